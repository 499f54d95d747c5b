import { afterAll, describe, expect, it } from 'vitest';
import { createOcrEngine } from './engine.js';
import { OCR_PDF_MAX_PAGES, recognizePdfPages } from './pdf-pages.js';
import { prose, renderPage, scannedPdf, wordRecall } from './testing/render.js';

const SLOW = 180_000;
const engine = createOcrEngine();
afterAll(() => engine.close());

describe('scanned PDF pages', () => {
  it('reads a grayscale JPEG scan and a 1-bit scan, page by page, in the order asked', async () => {
    const first = await renderPage(prose(80, 0), { points: 12, dpi: 150 });
    const second = await renderPage(prose(80, 100), { points: 11, dpi: 150, family: 'Nimbus Roman' });
    const pdf = await scannedPdf([
      { kind: 'jpeg', png: first.png },
      { kind: 'bilevel', png: second.png },
    ]);
    const result = await recognizePdfPages(new Uint8Array(pdf), [2, 1], engine);
    expect(result.skipped).toEqual([]);
    expect(result.pages.map((p) => p.page)).toEqual([2, 1]);
    expect(wordRecall(second.text, result.pages[0]!.text)).toBeGreaterThanOrEqual(0.95);
    expect(wordRecall(first.text, result.pages[1]!.text)).toBeGreaterThanOrEqual(0.95);
    expect(result.pages[1]!.text).toContain('The quarterly report describes how the team shipped');
  }, SLOW);

  it('a page that paints no image, a page that does not exist and bytes that are not a PDF give no words, never a throw', async () => {
    const blank = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
    const empty = await recognizePdfPages(new Uint8Array(blank), [1], engine);
    expect(empty.pages).toEqual([{ page: 1, text: '', words: 0 }]);
    const missing = await recognizePdfPages(new Uint8Array(blank), [7], engine);
    expect(missing.pages[0]).toMatchObject({ page: 7, text: '', words: 0, error: expect.stringMatching(/^text recognition failed/) });
    const garbage = await recognizePdfPages(new Uint8Array(Buffer.from('not a pdf')), [1], engine);
    expect(garbage.pages[0]).toMatchObject({ page: 1, words: 0, error: expect.any(String) });
  }, SLOW);

  it(`reads at most ${OCR_PDF_MAX_PAGES} pages and names the rest`, async () => {
    const pages = Array.from({ length: OCR_PDF_MAX_PAGES + 3 }, (_, i) => i + 1);
    const blank = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
    const result = await recognizePdfPages(new Uint8Array(blank), pages, engine);
    expect(result.pages).toHaveLength(OCR_PDF_MAX_PAGES);
    expect(result.skipped).toEqual([OCR_PDF_MAX_PAGES + 1, OCR_PDF_MAX_PAGES + 2, OCR_PDF_MAX_PAGES + 3]);
  }, SLOW);
});
