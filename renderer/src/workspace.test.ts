import { describe, expect, it } from 'vitest';
import { sidecarPath } from './workspace.js';

describe('sidecarPath', () => {
  it('places the server’s sidecar beside the upload, relative to the workspace', () => {
    expect(sidecarPath({ filename: 'r.docx', sidecar: { filename: 'r.docx.md', path: '/ws/docs/r.docx.md', preview_kind: 'office' } }, 'docs')).toBe('docs/r.docx.md');
    expect(sidecarPath({ filename: 'r.docx', preview_kind: 'office' }, '')).toBe('r.docx.md');
    expect(sidecarPath({ filename: 'r.docx', sidecar_error: 'Office sidecar extraction failed' }, '')).toBeNull();
    expect(sidecarPath({ filename: 'a.txt' }, '')).toBeNull();
  });
});
