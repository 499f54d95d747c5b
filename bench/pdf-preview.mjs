// PDF previews: the preview's latency and the longest stall of the server's event loop while it is read, by the
// built worker (dist/server/workspace/pdf.js: warm worker, as a second preview finds it) against the reference,
// the same extraction in the server's thread (pdf-text.js, what previews did before). Documents written by
// LibreOffice from plain text: 1 page and 24 pages. Runs alternate worker / in-thread, medians of RUNS.
// Run after `npm run build`: node bench/pdf-preview.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const RUNS = 9;
const TICK_MS = 5;
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { summarizePdf } = await import(path.join(root, 'dist/server/workspace/pdf.js'));
const { extractPdfText } = await import(path.join(root, 'dist/server/workspace/pdf-text.js'));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pdf-bench-'));

function libreOfficePdf(name, paragraphs) {
  const txt = path.join(work, `${name}.txt`);
  fs.writeFileSync(txt, Array.from({ length: paragraphs }, (_, i) => `Paragraph ${i + 1}: the quarterly figures for region ${i % 7} were reviewed and found in order.`).join('\n\n') + '\n');
  execFileSync('soffice', [`-env:UserInstallation=file://${work}/profile`, '--headless', '--convert-to', 'pdf', '--outdir', work, txt], { stdio: 'pipe' });
  return fs.readFileSync(path.join(work, `${name}.pdf`));
}

/** Wall time of `work`, the longest gap between TICK_MS timer ticks meanwhile, and the share of that time
 *  this thread's event loop was busy (eventLoopUtilization). */
async function measure(work) {
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, TICK_MS);
  const start = performance.now();
  const elu = performance.eventLoopUtilization();
  const result = await work();
  const busy = performance.eventLoopUtilization(elu).utilization;
  const ms = performance.now() - start;
  clearInterval(timer);
  return { ms, gap: Math.max(gap, performance.now() - last), busy, result };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const docs = { '1 page': libreOfficePdf('short', 10), '24 pages': libreOfficePdf('report', 24 * 22) };
console.log('| document | read | worker: latency ms / longest stall ms / loop busy | in-thread (reference) | busy ratio worker/in-thread |');
console.log('|---|---|---|---|---|');
const row = (label, read, w, t) =>
  console.log(`| ${label} | ${read} | ${w.ms.toFixed(0)} / ${w.gap.toFixed(0)} / ${(w.busy * 100).toFixed(0)} % | ${t.ms.toFixed(0)} / ${t.gap.toFixed(0)} / ${(t.busy * 100).toFixed(0)} % | ${(w.busy / t.busy).toFixed(2)} |`);
let first = true;
for (const [label, bytes] of Object.entries(docs)) {
  // The first read of each document; the very first starts the worker (pdf.js loaded and compiled in it) and
  // compiles pdf.js in this thread.
  row(label, first ? 'first of the process' : 'first', await measure(() => summarizePdf(Buffer.from(bytes))), await measure(() => extractPdfText(new Uint8Array(bytes))));
  first = false;
  const worker = [];
  const inThread = [];
  let pages = 0;
  for (let i = 0; i < RUNS; i++) {
    const w = await measure(() => summarizePdf(Buffer.from(bytes)));
    const t = await measure(() => extractPdfText(new Uint8Array(bytes)));
    pages = w.result.pages;
    if (w.result.text !== t.result.text) throw new Error('worker and in-thread texts differ');
    worker.push(w);
    inThread.push(t);
  }
  const med = (runs) => ({ ms: median(runs.map((r) => r.ms)), gap: median(runs.map((r) => r.gap)), busy: median(runs.map((r) => r.busy)) });
  row(`${label} (${pages})`, `median of ${RUNS}, warm`, med(worker), med(inThread));
}
fs.rmSync(work, { recursive: true, force: true });
process.exit(0);
