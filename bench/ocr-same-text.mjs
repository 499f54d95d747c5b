// Issue 37, finding 9: a change to OCR's preparation or hand-over must keep every recognized text. Reads the same
// pages with another build's engine (--before, a dist folder inside the project) and this build's, and prints, page
// by page, whether text and word count are identical: printed pages at 150 and 300 dpi, the rendered 1280×800
// screenshot, synthetic JPEG and 1-bit scans, both pages of the repository's real scan and a docs screenshot.
// Time budgets are raised: on the loaded shared machine a page took over the engine's 45 s.
// Where the page's text is known (the rendered ones), each build's word recall against it is printed too: a change
// meant to change the text (session 16: the CLI's page segmentation, small text alone scaled up) must not read fewer.
// Usage: npm run build && node bench/ocr-same-text.mjs --before .cache/<build>/dist
import fs from 'node:fs';
import path from 'node:path';
import { arg } from './lib.mjs';

const BEFORE = arg('--before', '');
if (!BEFORE) throw new Error('--before <dist folder> is required');
const before = await import(new URL(`file://${path.resolve(BEFORE)}/server/ocr/engine.js`).href);
const after = await import(new URL('../dist/server/ocr/engine.js', import.meta.url).href);
const r = await import(new URL('../dist/server/ocr/testing/render.js', import.meta.url).href);
const file = (p) => fs.readFileSync(new URL(p, import.meta.url));
const W = 260;
const scan = async (kind, dpi) => {
  const p = await r.renderPage(r.prose(W, 150), { points: 11, dpi, family: 'Nimbus Roman' });
  return { pdf: new Uint8Array(await r.scannedPdf([{ kind, png: p.png }])), text: p.text };
};
const cases = [
  ['11 pt serif, 150 dpi', async () => r.renderPage(r.prose(W, 0), { points: 11, dpi: 150, family: 'DejaVu Serif' })],
  ['12 pt sans, 150 dpi', async () => r.renderPage(r.prose(W, 31), { points: 12, dpi: 150, family: 'Nimbus Sans' })],
  ['11 pt serif, 300 dpi', async () => r.renderPage(r.prose(W, 90), { points: 11, dpi: 300, family: 'DejaVu Serif' })],
  ['screenshot 1280×800', async () => r.renderScreenshot()],
  ['screenshot at 60 % (8 px text)', async () => {
    const shot = await r.renderScreenshot();
    const sharp = (await import('sharp')).default;
    return { png: await sharp(shot.png).resize({ width: 768 }).png().toBuffer(), text: shot.text };
  }],
  ['scanned PDF (JPEG), 150 dpi', () => scan('jpeg', 150)],
  ['scanned PDF (1 bit), 300 dpi', () => scan('bilevel', 300)],
  ['real scan, page 1', async () => ({ pdf: new Uint8Array(file('./corpus/context/scanned-licenses.pdf')), page: 1 })],
  ['real scan, page 2', async () => ({ pdf: new Uint8Array(file('./corpus/context/scanned-licenses.pdf')), page: 2 })],
  ['docs screenshot', async () => ({ png: file('../docs/screenshots/access-dark.png') })],
];
const budget = { timeoutMs: 600_000, loadTimeoutMs: 120_000 };
const engines = [before.createOcrEngine(budget), after.createOcrEngine(budget)];
let same = 0;
for (const [name, make] of cases) {
  const c = await make();
  const read = (e) => (c.pdf ? e.recognizePdfPage(c.pdf, c.page ?? 1) : e.recognizeImage(c.png));
  const texts = [];
  for (const e of engines) texts.push(await read(e));
  const ok = texts[0].text === texts[1].text && texts[0].words === texts[1].words;
  same += ok;
  const recall = c.text ? `; recall ${texts.map((t) => r.wordRecall(c.text, t.text).toFixed(3)).join(' / ')}` : '';
  console.log(`${name}: ${ok ? 'identical' : 'DIFFERENT'} (${texts[0].words} / ${texts[1].words} words${recall})`);
}
console.log(`${same} of ${cases.length} pages identical`);
process.exitCode = same === cases.length ? 0 : 1;
for (const e of engines) await e.close();
