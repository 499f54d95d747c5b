// A PDF too long to read whole within the reader's deadline (or memory bound) is read again as a turn first reads
// it, its first pages: its passages are better than only its name. The reader is replaced here, because making
// pdf.js pass its deadline on purpose would take the deadline itself (15 s) on a quiet machine.
import { describe, expect, it, vi } from 'vitest';
import type { AttachmentRead, InputOptions } from '../content/index.js';

const calls: (InputOptions['pdfLimits'] | undefined)[] = [];
vi.mock('../content/index.js', async (original) => {
  const real = await original<typeof import('../content/index.js')>();
  return {
    ...real,
    readAttachment: async (_a: unknown, _b: unknown, opts: InputOptions): Promise<AttachmentRead> => {
      calls.push(opts.pdfLimits);
      return opts.pdfLimits
        ? { kind: 'pdf', parts: [], summary: { state: 'unreadable', text: 'took too long to read (over 15 s): save it again (print to PDF) and attach it again' } }
        : { kind: 'pdf', parts: [{ type: 'text', text: 'Page one of the handbook', from: { file: 'h.pdf', page: 1 } }], summary: { state: 'partial', text: 'first 50 of 152 pages' } };
    },
  };
});

describe('a PDF too long to read whole', () => {
  it('is read again to its first pages, not left as only a name', async () => {
    const { DocTexts } = await import('./doc-text.js');
    const doc = { key: 'attachment:h.pdf', name: 'h.pdf', origin: 'attachment' as const, attachment: { kind: 'file' as const, filename: 'h.pdf', path: __filename, size: 1, mime: 'application/pdf', is_image: false }, uri: 'satchel://session/s/attachment/h.pdf' };
    const got = await new DocTexts().get(doc, { roots: [] });
    expect(calls).toHaveLength(2);
    expect(calls[0]?.pages).toBeGreaterThan(50);
    expect(calls[1]).toBeUndefined();
    expect(got.summary).toEqual({ state: 'partial', text: 'first 50 of 152 pages' });
    expect(JSON.stringify(got.parts)).toContain('Page one of the handbook');
  });
});
