// Issue 37, finding 9's OCR: Satchel's engine beside native Tesseract on the same page. The floor is what a person
// would run: `pdftoppm -r 300` to render a scanned PDF page, then the `tesseract` CLI (its own process, model
// loaded each time), once with the system's model and once with the very model Satchel ships
// (@tesseract.js-data/eng 4.0.0_best_int, unpacked to a temporary tessdata folder: the same network, so the
// comparison is the engine's, not the model's). Satchel's side runs this build's engine (dist/server/ocr/engine.js)
// in this process: warm (the worker kept while files arrive) and cold (a fresh engine: thread, WebAssembly core and
// model loaded). CPU is utime+stime from /proc of this process and of the OCR worker's child process (under Node the
// worker runs in a child since session 14: /proc/<this pid> alone counted none of the recognition, as session 16
// found), and the floor's children's (cutime+cstime of the shell that ran them); wall second. Word recall against the reference
// text is printed so a faster setting that reads worse shows.
// The CLI runs with OMP_THREAD_LIMIT=1: with OpenMP's default threads on this shared 2-core machine it spun to ~10× the
// CPU for the same page (a 1280×800 screenshot: 10.9 s CPU against 0.96 s), and Tesseract's own docs advise one thread
// when several run at once. pdftoppm renders at 300 dpi as the issue's floor did; for the synthetic 1-bit scan, whose
// page says 150 dpi, at 150 (its own pixels, as Satchel reads them).
// --before <dist>: another build's engine measured beside this one's (before/after in the same run).
// Usage: npm run build && node bench/ocr-floor.mjs [--runs 5] [--only screenshot|licenses|pdf1] [--before .cache/x/dist]
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
const BEFORE = arg('--before', '');
const before = BEFORE ? (await import(new URL(`file://${path.resolve(BEFORE)}/server/ocr/engine.js`).href)).createOcrEngine : undefined;
const { renderPage, renderScreenshot, prose, scannedPdf, wordRecall } = await import(new URL('../dist/server/ocr/testing/render.js', import.meta.url).href);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocr-floor-'));
// Satchel's model for the native CLI.
const ownData = path.join(dir, 'tessdata');
fs.mkdirSync(ownData);
const gz = fs.readFileSync(new URL('../node_modules/@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz', import.meta.url));
fs.writeFileSync(path.join(ownData, 'eng.traineddata'), (await import('node:zlib')).gunzipSync(gz));

async function scan(kind, dpi) {
  const page = await renderPage(prose(260, 150), { points: 11, dpi, family: 'Nimbus Roman' });
  return { text: page.text, pdf: new Uint8Array(await scannedPdf([{ kind, png: page.png }])), size: `${page.width}×${page.height}`, dpi: 150 };
}
const shot = await renderScreenshot();
// A real scan from the repository (Ghostscript + img2pdf, bench/corpus/context/README.md): page 1, a 1261×1769 RGB
// JPEG at 161 dpi. Its reference is the native CLI's own reading at 300 dpi (recall is then agreement with it).
const licenses = { pdf: new Uint8Array(fs.readFileSync(new URL('./corpus/context/scanned-licenses.pdf', import.meta.url))), size: '1261×1769', dpi: 300 };
const cases = [
  ['screenshot', 'screenshot, 13 px UI text, 1280×800', { text: shot.text, png: shot.png, size: '1280×800' }],
  ['licenses', 'real scanned PDF page (RGB JPEG, 161 dpi), pdftoppm -r 300', licenses],
  ['pdf1', 'synthetic scanned PDF page (1 bit), 11 pt, 300 dpi pixels', await scan('bilevel', 300)],
].filter(([key]) => !ONLY || ONLY === key);

/** The floor: a shell that runs the commands and prints its waited-for children's CPU (cutime+cstime, ticks). */
function floor(c, tessdata) {
  const input = path.join(dir, c.png ? 'in.png' : 'in.pdf');
  fs.writeFileSync(input, c.png ?? c.pdf);
  const td = tessdata ? `--tessdata-dir ${tessdata}` : '';
  const steps = c.png
    ? `tesseract ${input} - ${td} 2>/dev/null > ${dir}/out.txt`
    : `pdftoppm -r ${c.dpi} -f 1 -l 1 -png ${input} ${dir}/page && tesseract ${dir}/page-1.png - ${td} 2>/dev/null > ${dir}/out.txt`;
  const t0 = performance.now();
  const stat = execFileSync('sh', ['-c', `${steps}; cat /proc/$$/stat`], { encoding: 'latin1', env: { ...process.env, OMP_THREAD_LIMIT: '1' } });
  const wall = performance.now() - t0;
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
  const cpu = ((Number(f[13]) + Number(f[14])) * 1000) / ticks;
  return { wall, cpu, text: fs.readFileSync(`${dir}/out.txt`, 'utf8') };
}

/** CPU ms of the engine's worker child (0 when there is none: a thread of this process, counted with it). */
const childCpu = (pid) => (pid === undefined ? 0 : cpuMs(pid));

async function satchel(engine, c) {
  const pid0 = engine.pid;
  const cpu0 = cpuMs(process.pid);
  const child0 = childCpu(pid0);
  const t0 = performance.now();
  const r = c.png ? await engine.recognizeImage(c.png) : await engine.recognizePdfPage(c.pdf, 1);
  const wall = performance.now() - t0;
  // A child started by this recognition (cold) is counted from its start; a kept one (warm) by its delta.
  const pid = engine.pid;
  const child = pid === pid0 ? childCpu(pid) - child0 : childCpu(pid);
  return { wall, cpu: cpuMs(process.pid) - cpu0 + child, text: r.text };
}

const rows = [];
let failed = 0;
for (const [, name, c] of cases) {
  const m = { sys: [], own: [], warm: [], cold: [], bwarm: [], bcold: [] };
  const recall = {};
  if (!c.text) c.text = floor(c, ownData).text;
  for (let run = 0; run < RUNS; run++) {
    // Interleaved, so load on the shared machine falls on every side alike.
    for (const [key, td] of [['sys', undefined], ['own', ownData]]) {
      const r = floor(c, td);
      m[key].push(r);
      recall[key] = wordRecall(c.text, r.text);
    }
    for (const [make, coldKey, warmKey] of [[createOcrEngine, 'cold', 'warm'], ...(before ? [[before, 'bcold', 'bwarm']] : [])]) {
      const engine = make();
      try {
        const first = await satchel(engine, c);
        m[coldKey].push(first);
        m[warmKey].push(await satchel(engine, c));
        recall[warmKey] = wordRecall(c.text, first.text);
      } catch (err) {
        // A recognition past its time budget on the loaded machine: counted, not measured.
        failed++;
        console.error(`${name}, ${warmKey}: ${err.message}`);
      }
      await engine.close();
    }
  }
  if (before) recall.same = m.bwarm.every((r) => m.warm.some((w) => w.text === r.text)) && m.warm.length > 0;
  const med = (xs, k) => (xs.length ? median(xs.map((x) => x[k])) : NaN);
  rows.push({ name, size: c.size, recall, ...Object.fromEntries(Object.entries(m).map(([k, xs]) => [k, { cpu: med(xs, 'cpu'), wall: med(xs, 'wall') }])) });
}
fs.rmSync(dir, { recursive: true, force: true });

if (failed) console.log(`${failed} engine runs ended past their time budget (left out)`);
const s = (ms) => (ms / 1000).toFixed(2);
const x = (a, b) => (a / b).toFixed(2);
console.log(`${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, ${RUNS} runs each (medians); CPU s / wall s`);
// The target is read against the faster of the two native runs (the CLI's default is the system's model), never a
// slower one.
console.log(`| page | native CLI, Satchel's model | native CLI, system model | ${before ? 'before: warm | before: cold | ' : ''}this build: warm | this build: cold | warm ÷ native (same model), CPU / wall | warm CPU ÷ the faster native CPU | recall (this build / native same model / system) |`);
console.log(`|---|---|---|${before ? '---|---|' : ''}---|---|---|---|---|`);
for (const r of rows) {
  const b = before ? `${s(r.bwarm.cpu)} / ${s(r.bwarm.wall)} | ${s(r.bcold.cpu)} / ${s(r.bcold.wall)} | ` : '';
  console.log(
    `| ${r.name} | ${s(r.own.cpu)} / ${s(r.own.wall)} | ${s(r.sys.cpu)} / ${s(r.sys.wall)} | ${b}${s(r.warm.cpu)} / ${s(r.warm.wall)} | ${s(r.cold.cpu)} / ${s(r.cold.wall)} | **${x(r.warm.cpu, r.own.cpu)}** / ${x(r.warm.wall, r.own.wall)}${before ? ` (before ${x(r.bwarm.cpu, r.own.cpu)} / ${x(r.bwarm.wall, r.own.wall)})` : ''} | **${x(r.warm.cpu, Math.min(r.own.cpu, r.sys.cpu))}**${before ? ` (before ${x(r.bwarm.cpu, Math.min(r.own.cpu, r.sys.cpu))})` : ''} | ${r.recall.warm?.toFixed(3)} / ${r.recall.own.toFixed(3)} / ${r.recall.sys.toFixed(3)}${before ? `; texts ${r.recall.same ? 'identical to before' : 'DIFFER from before'}` : ''} |`,
  );
}
