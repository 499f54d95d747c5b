// mammoth is loaded by the first Word document, not by the server's modules: most starts convert none.
import { describe, expect, it, vi } from 'vitest';

const loads = vi.hoisted(() => ({ mammoth: 0 }));
vi.mock('mammoth', async (original) => {
  loads.mammoth++;
  return original();
});

const { startServer } = await import('../index.js');
const { officeToMarkdown } = await import('./index.js');
const { buildDocx, wHeading, wPara } = await import('./testing/fixtures.js');
const { useTmpDir } = await import('./testing/tmpdir.js');

const tmp = useTmpDir();

describe('mammoth, loaded on first use', () => {
  it('is not loaded with the server, and the first Word documents, converted at once, are read by one load', async () => {
    expect(typeof startServer).toBe('function');
    expect(loads.mammoth).toBe(0);
    const [a, b] = await Promise.all([
      tmp.write('a.docx', await buildDocx(wHeading(1, 'First') + wPara('one'))),
      tmp.write('b.docx', await buildDocx(wPara('two'))),
    ]);
    expect(await Promise.all([officeToMarkdown(a, 'docx'), officeToMarkdown(b, 'docx')])).toEqual(['# First\n\none\n', 'two\n']);
    expect(loads.mammoth).toBe(1);
  });
});
