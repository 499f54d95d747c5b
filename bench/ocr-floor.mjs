// Issue 37, finding 9's OCR: Satchel's engine beside native Tesseract on the same page. The floor is what a person
// would run: `pdftoppm -r 300` to render a scanned PDF page, then the `tesseract` CLI (its own process, model
// loaded each time), once with the system's model and once with the very model Satchel ships
// (@tesseract.js-data/eng 4.0.0_best_int, unpacked to a temporary tessdata folder: the same network, so the
// comparison is the engine's, not the model's). Satchel's side runs this build's engine (dist/server/ocr/engine.js)
// in this process: warm (the worker kept while files arrive) and cold (a fresh engine: thread, WebAssembly core and
// model loaded). CPU is the process's utime+stime from /proc (every thread, the OCR worker's included) and the
// floor's children's (cutime+cstime of the shell that ran them); wall second. Word recall against the reference
// text is printed so a faster setting that reads worse shows.
// Usage: npm run build && node bench/ocr-floor.mjs [--runs 5] [--only screenshot|pdf1|pdfjpeg]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { arg, median, hasCommand } from './lib.mjs';
import { cpuMs } from './cpu.mjs';

const RUNS = Number(arg('--runs', 5));
const ONLY = arg('--only', '');
for (const cmd of ['pdftoppm', 'tesseract']) if (!hasCommand(cmd)) throw new Error(`${cmd} is not installed (apt-get install poppler-utils tesseract-ocr)`);

const { createOcrEngine } = await import(new URL('../dist/server/ocr/engine.js', import.meta.url).href);
const { renderPage, renderScreenshot, prose, scannedPdf, wordRecall } = await import(new URL('../dist/server/ocr/testing/render.js', import.meta.url).href);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocr-floor-'));
// Satchel's model for the native CLI.
const ownData = path.join(dir, 'tessdata');
fs.mkdirSync(ownData);
const gz = fs.readFileSync(new URL('../node_modules/@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz', import.meta.url));
fs.writeFileSync(path.join(ownData, 'eng.traineddata'), (await import('node:zlib')).gunzipSync(gz));

async function scan(kind, dpi) {
  const page = await renderPage(prose(260, 150), { points: 11, dpi, family: 'Nimbus Roman' });
  return { text: page.text, pdf: new Uint8Array(await scannedPdf([{ kind, png: page.png }])), size: `${page.width}×${page.height}` };
}
const shot = await renderScreenshot();
const cases = [
  ['screenshot', 'screenshot, 13 px UI text, 1280×800', { text: shot.text, png: shot.png, size: '1280×800' }],
  ['pdf1', 'scanned PDF page (1 bit), 11 pt, 300 dpi', await scan('bilevel', 300)],
  ['pdfjpeg', 'scanned PDF page (grayscale JPEG), 11 pt, 150 dpi', await scan('jpeg', 150)],
].filter(([key]) => !ONLY || ONLY === key);

/** The floor: a shell that runs the commands and prints its waited-for children's CPU (cutime+cstime, ticks). */
function floor(c, tessdata) {
  const input = path.join(dir, c.png ? 'in.png' : 'in.pdf');
  fs.writeFileSync(input, c.png ?? c.pdf);
  const td = tessdata ? `--tessdata-dir ${tessdata}` : '';
  const steps = c.png
    ? `tesseract ${input} - ${td} 2>/dev/null > ${dir}/out.txt`
    : `pdftoppm -r 300 -f 1 -l 1 -png ${input} ${dir}/page && tesseract ${dir}/page-1.png - ${td} 2>/dev/null > ${dir}/out.txt`;
  const t0 = performance.now();
  const stat = execFileSync('sh', ['-c', `${steps}; cat /proc/$$/stat`], { encoding: 'latin1' });
  const wall = performance.now() - t0;
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
  const cpu = ((Number(f[13]) + Number(f[14])) * 1000) / ticks;
  return { wall, cpu, text: fs.readFileSync(`${dir}/out.txt`, 'utf8') };
}

async function satchel(engine, c) {
  const cpu0 = cpuMs(process.pid);
  const t0 = performance.now();
  const r = c.png ? await engine.recognizeImage(c.png) : await engine.recognizePdfPage(c.pdf, 1);
  return { wall: performance.now() - t0, cpu: cpuMs(process.pid) - cpu0, text: r.text };
}

const rows = [];
for (const [, name, c] of cases) {
  const m = { sys: [], own: [], warm: [], cold: [] };
  const recall = {};
  for (let run = 0; run < RUNS; run++) {
    // Interleaved, so load on the shared machine falls on every side alike.
    for (const [key, td] of [['sys', undefined], ['own', ownData]]) {
      const r = floor(c, td);
      m[key].push(r);
      recall[key] = wordRecall(c.text, r.text);
    }
    const cold = createOcrEngine();
    const first = await satchel(cold, c);
    m.cold.push(first);
    m.warm.push(await satchel(cold, c));
    recall.satchel = wordRecall(c.text, first.text);
    await cold.close();
  }
  const med = (xs, k) => median(xs.map((x) => x[k]));
  rows.push({ name, size: c.size, recall, ...Object.fromEntries(Object.entries(m).map(([k, xs]) => [k, { cpu: med(xs, 'cpu'), wall: med(xs, 'wall') }])) });
}
fs.rmSync(dir, { recursive: true, force: true });

const s = (ms) => (ms / 1000).toFixed(2);
console.log(`${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, ${RUNS} runs each (medians)`);
console.log('| page | Satchel warm CPU / wall s | Satchel cold CPU / wall s | native, Satchel\'s model, CPU / wall s | native, system model, CPU / wall s | warm ÷ native (same model) CPU / wall | recall Satchel / native same / system |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.name} | ${s(r.warm.cpu)} / ${s(r.warm.wall)} | ${s(r.cold.cpu)} / ${s(r.cold.wall)} | ${s(r.own.cpu)} / ${s(r.own.wall)} | ${s(r.sys.cpu)} / ${s(r.sys.wall)} | **${(r.warm.cpu / r.own.cpu).toFixed(2)}** / ${(r.warm.wall / r.own.wall).toFixed(2)} | ${r.recall.satchel.toFixed(3)} / ${r.recall.own.toFixed(3)} / ${r.recall.sys.toFixed(3)} |`,
  );
}
