import { describe, expect, it } from 'vitest';
import { sidecarErrorText, sidecarPath } from './workspace.js';

describe('sidecarPath', () => {
  it('places the server’s sidecar beside the upload, relative to the workspace', () => {
    const sidecar = { filename: 'r.docx.md', path: '/ws/docs/r.docx.md', size: 10, preview_kind: 'office', office_format: 'docx' } as const;
    expect(sidecarPath({ sidecar }, 'docs')).toBe('docs/r.docx.md');
    expect(sidecarPath({ sidecar }, '')).toBe('r.docx.md');
    expect(sidecarPath({ sidecar_error: 'Office sidecar extraction failed' }, '')).toBeNull();
    expect(sidecarPath({}, '')).toBeNull();
  });
});

describe('sidecarErrorText', () => {
  it('adds the plain-words reason to the fixed error, and sums up failures inside an archive', () => {
    const failed = 'Office sidecar extraction failed';
    expect(sidecarErrorText({ sidecar_error: failed, sidecar_reason: 'encrypted or saved in the old binary format' })).toBe(
      'No text preview: Office sidecar extraction failed (encrypted or saved in the old binary format)',
    );
    expect(sidecarErrorText({ sidecar_error: failed })).toBe('No text preview: Office sidecar extraction failed');
    const sidecar = { filename: 'a.docx.md', path: '/ws/x/a.docx.md', size: 3, preview_kind: 'office', office_format: 'docx' } as const;
    expect(
      sidecarErrorText({
        sidecars: [
          { file: 'x/a.docx', sidecar },
          { file: 'x/b.docx', sidecar_error: failed, sidecar_reason: 'not a readable zip file' },
          { file: 'x/c.pptx', sidecar_error: failed, sidecar_reason: 'not a readable zip file' },
        ],
      }),
    ).toBe('No text preview for 2 of 3 Office files (not a readable zip file)');
    expect(sidecarErrorText({ sidecars: [{ file: 'x/a.docx', sidecar }] })).toBeNull();
  });
});
