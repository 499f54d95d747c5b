// Attack: a scanned-looking PDF whose page content is a decompression bomb (2 MiB of file inflating to 2 GiB),
// handed to on-device OCR (server/ocr/pdf-pages.ts). pdf.js parses the page in the OCR worker, whose heap limit
// does not count the ArrayBuffers it inflates into: the resident-set watchdog must end the worker within its
// memory budget, the page must say why it has no text, the memory must be given back, and the same engine must
// read the next ordinary scan. Never a throw, never a crash.
import { afterAll, expect, it } from 'vitest';
import { createOcrEngine, OCR_MAX_MEMORY_MB } from '../ocr/engine.js';
import { recognizePdfPages } from '../ocr/pdf-pages.js';
import { prose, renderPage, scannedPdf, wordRecall } from '../ocr/testing/render.js';
import { flateBombPdf } from '../workspace/testing/pdf.js';

const MIB = 1024 * 1024;
const BOMB_INFLATED_MIB = 2048;
/** What the process may pass the budget by: one sampling interval of pdf.js's inflate, timers late on a loaded
 *  machine, and this test's own noise (as in pdf-bomb.attack.test.ts). */
const MARGIN_MIB = 128;
const SAMPLE_MS = 2;
const TEST_TIMEOUT_MS = 180_000;

const engine = createOcrEngine();
afterAll(() => engine.close());

it('a PDF page that inflates to 2 GiB is ended within the memory budget, and the next scan is read', async () => {
  const bomb = await flateBombPdf(BOMB_INFLATED_MIB);
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), SAMPLE_MS);
  let result;
  try {
    result = await recognizePdfPages(new Uint8Array(bomb), [1], engine);
  } finally {
    clearInterval(sampler);
  }
  expect(result.pages).toEqual([{ page: 1, text: '', words: 0, error: `text recognition needed too much memory (over ${OCR_MAX_MEMORY_MB} MiB)` }]);
  expect((peak - before) / MIB).toBeLessThan(OCR_MAX_MEMORY_MB + MARGIN_MIB);
  expect((process.memoryUsage.rss() - before) / MIB).toBeLessThan(MARGIN_MIB);

  const page = await renderPage(prose(40), { points: 12, dpi: 150 });
  const next = await recognizePdfPages(new Uint8Array(await scannedPdf([{ kind: 'jpeg', png: page.png }])), [1], engine);
  expect(wordRecall(page.text, next.pages[0]!.text)).toBeGreaterThanOrEqual(0.95);
}, TEST_TIMEOUT_MS);
