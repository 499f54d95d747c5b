import { describe, expect, it } from 'vitest';
import { sidecarPath } from './workspace.js';

describe('sidecarPath', () => {
  it('places the server’s sidecar beside the upload, relative to the workspace', () => {
    const sidecar = { filename: 'r.docx.md', path: '/ws/docs/r.docx.md', size: 10, preview_kind: 'office', office_format: 'docx' } as const;
    expect(sidecarPath({ sidecar }, 'docs')).toBe('docs/r.docx.md');
    expect(sidecarPath({ sidecar }, '')).toBe('r.docx.md');
    expect(sidecarPath({ sidecar_error: 'Office sidecar extraction failed' }, '')).toBeNull();
    expect(sidecarPath({}, '')).toBeNull();
  });
});
