// On-device OCR (issue 25): word recall and time per page on rendered images of known text — printed pages of
// body text at 11 and 12 pt, 150 and 300 dpi, in serif and sans faces, and a screenshot of 13 px UI text —
// through this build's engine (dist/server/ocr/engine.js: sharp's preparation, the worker, Tesseract's LSTM
// model). Recall is the share of the reference's words (as a multiset, case and edge punctuation ignored) found
// in the recognized text. Also: the first recognition's extra time (loading the core and model) and the
// process's peak resident set.
// Usage: npm run build && node bench/ocr.mjs [--runs 3] [--words 260]
import { arg, median, pct } from './lib.mjs';

const RUNS = Number(arg('--runs', 3));
const WORDS = Number(arg('--words', 260));
const TARGET = 0.95;

const { createOcrEngine } = await import(new URL('../dist/server/ocr/engine.js', import.meta.url).href);
const { renderPage, renderScreenshot, prose, scannedPdf, wordRecall } = await import(new URL('../dist/server/ocr/testing/render.js', import.meta.url).href);

const cases = [
  ['11 pt serif, 150 dpi', () => renderPage(prose(WORDS, 0), { points: 11, dpi: 150, family: 'DejaVu Serif' })],
  ['12 pt sans, 150 dpi', () => renderPage(prose(WORDS, 31), { points: 12, dpi: 150, family: 'Nimbus Sans' })],
  ['11 pt Times-like, 150 dpi', () => renderPage(prose(WORDS, 57), { points: 11, dpi: 150, family: 'Nimbus Roman' })],
  ['11 pt serif, 300 dpi', () => renderPage(prose(WORDS, 90), { points: 11, dpi: 300, family: 'DejaVu Serif' })],
  ['12 pt Times-like, 300 dpi', () => renderPage(prose(WORDS, 120), { points: 12, dpi: 300, family: 'Nimbus Roman' })],
  ['screenshot, 13 px UI text, 1280×800', () => renderScreenshot()],
  // A scanned PDF's page: pdf.js decodes the page image in the worker, then Tesseract reads it (pdf-pages.ts).
  ['scanned PDF page (grayscale JPEG), 11 pt, 150 dpi', () => scanPage('jpeg', 150)],
  ['scanned PDF page (1 bit), 11 pt, 300 dpi', () => scanPage('bilevel', 300)],
];

async function scanPage(kind, dpi) {
  const page = await renderPage(prose(WORDS, 150), { points: 11, dpi, family: 'Nimbus Roman' });
  return { ...page, pdf: new Uint8Array(await scannedPdf([{ kind, png: page.png }])) };
}

let peak = process.memoryUsage.rss();
const baseline = peak;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);

const engine = createOcrEngine();
const rows = [];
const allTimes = [];
let loadMs;
for (const [name, render] of cases) {
  const page = await render();
  const times = [];
  const cpu = [];
  let recall = 0;
  let words = 0;
  const total = RUNS + (loadMs === undefined ? 1 : 0);
  for (let run = 0; run < total; run++) {
    const t0 = performance.now();
    // The process's CPU time counts every thread, the OCR worker's included.
    const c0 = process.cpuUsage();
    const result = page.pdf ? await engine.recognizePdfPage(page.pdf, 1) : await engine.recognizeImage(page.png);
    const ms = performance.now() - t0;
    const used = process.cpuUsage(c0);
    const cpuMs = (used.user + used.system) / 1000;
    if (loadMs === undefined) {
      // The very first recognition: the same page again, warm, tells the load apart from the work.
      loadMs = -ms;
      continue;
    }
    times.push(ms);
    cpu.push(cpuMs);
    recall = wordRecall(page.text, result.text);
    words = result.words;
  }
  if (loadMs < 0) loadMs = -loadMs - median(times);
  allTimes.push(...times);
  const refWords = page.text.split(/\s+/).filter(Boolean).length;
  rows.push({ name, size: `${page.width}×${page.height}`, refWords, words, recall, median: median(times), p95: pct(times, 95), cpu: median(cpu) });
}
await engine.close();
clearInterval(sampler);

console.log(`| Image | Size (px) | Reference words | Words recognized | Word recall | Median | p95 | CPU median |`);
console.log(`|---|---|---|---|---|---|---|---|`);
for (const r of rows) {
  console.log(`| ${r.name} | ${r.size} | ${r.refWords} | ${r.words} | **${r.recall.toFixed(3)}** | ${(r.median / 1000).toFixed(2)} s | ${(r.p95 / 1000).toFixed(2)} s | ${(r.cpu / 1000).toFixed(2)} s |`);
}
const worst = Math.min(...rows.map((r) => r.recall));
console.log(`\nAll pages: median ${(median(allTimes) / 1000).toFixed(2)} s, p95 ${(pct(allTimes, 95) / 1000).toFixed(2)} s (${allTimes.length} recognitions, ${RUNS} runs each)`);
console.log(`First use (core compiled, model unpacked): +${(loadMs / 1000).toFixed(2)} s`);
console.log(`Peak RSS ${(peak / 1048576).toFixed(0)} MiB (baseline ${(baseline / 1048576).toFixed(0)} MiB, +${((peak - baseline) / 1048576).toFixed(0)} MiB)`);
console.log(`Lowest recall ${worst.toFixed(3)}: ${worst >= TARGET ? 'meets' : 'MISSES'} the ${TARGET} target`);
process.exitCode = worst >= TARGET ? 0 : 1;
