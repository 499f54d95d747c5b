// Issue 37, finding 9: where a screenshot's OCR time goes, one setting at a time. Tesseract's WebAssembly core (the
// one Satchel ships) runs in this process on the rendered 1280×800 screenshot, prepared as Satchel prepares it
// (sharp: flattened, grayscale, Lanczos-scaled, a binary PGM), at 1× and 2× and in two page segmentations: 6 (one
// block: the API's default, what Satchel used until session 16) and 3 (automatic: the tesseract CLI's default).
// Per setting: the core's CPU for the recognition (this thread's, the model loaded and warm), the word recall
// against the drawn text, and the native `tesseract` CLI's recall and CPU on the very same PGM with the same model
// (OMP_THREAD_LIMIT=1, see ocr-floor.mjs), so a setting that reads fewer words, or a gap that is the engine build's
// rather than the setting's, shows. The same screenshot shrunk to 60 % (8 px text) shows why small text is still
// read at 2×.
// Usage: npm run build && node bench/ocr-settings.mjs [--runs 3]
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { arg, hasCommand, median } from './lib.mjs';

const RUNS = Number(arg('--runs', 3));
if (!hasCommand('tesseract')) throw new Error('tesseract is not installed (apt-get install tesseract-ocr)');
const require = createRequire(import.meta.url);
const sharp = require('sharp');
const r = await import(new URL('../dist/server/ocr/testing/render.js', import.meta.url).href);
const { ocrFiles } = await import(new URL('../dist/server/ocr/engine.js', import.meta.url).href);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocr-settings-'));
const { corePath, dataPath } = ocrFiles();
const model = gunzipSync(fs.readFileSync(dataPath));
fs.mkdirSync(path.join(dir, 'tessdata'));
fs.writeFileSync(path.join(dir, 'tessdata', 'eng.traineddata'), model);
const core = await require(corePath)({});
core.FS.writeFile('/eng.traineddata', model);
const api = new core.TessBaseAPI();
if (api.Init(null, 'eng', 1) !== 0) throw new Error('the core could not load its model');

const shot = await r.renderScreenshot();
const threadCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
async function pgm(png, width) {
  const { data, info } = await sharp(png).flatten({ background: '#ffffff' }).grayscale().resize({ width, kernel: 'lanczos3' }).raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  return Buffer.concat([Buffer.from(`P5\n${info.width} ${info.height}\n255\n`, 'latin1'), data]);
}
function wasm(image, psm) {
  core.FS.writeFile('/input', image);
  api.SetPageSegMode(psm);
  const c0 = threadCpu();
  api.SetImageFile(1, 0);
  api.Recognize(null);
  const text = api.GetUTF8Text();
  const cpu = threadCpu() - c0;
  api.Clear();
  return { cpu, text };
}
function native(file, psm) {
  const out = execFileSync('sh', ['-c', `tesseract ${file} ${dir}/out --tessdata-dir ${dir}/tessdata --psm ${psm} 2>/dev/null; cat /proc/$$/stat`], { encoding: 'latin1', env: { ...process.env, OMP_THREAD_LIMIT: '1' } });
  const f = out.slice(out.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
  return { cpu: ((Number(f[13]) + Number(f[14])) * 1000) / ticks, text: fs.readFileSync(`${dir}/out.txt`, 'utf8') };
}

const small = await sharp(shot.png).resize({ width: 768 }).png().toBuffer();
const settings = [
  ['1280×800 at 1×, PSM 6', shot.png, 1280, 6],
  ['1280×800 at 2×, PSM 6 (Satchel before session 16)', shot.png, 2560, 6],
  ['1280×800 at 1×, PSM 3 (Satchel from session 16; the CLI on the PNG)', shot.png, 1280, 3],
  ['1280×800 at 2×, PSM 3', shot.png, 2560, 3],
  ['768×480 (8 px text) at 1×, PSM 3', small, 768, 3],
  ['768×480 (8 px text) at 2×, PSM 3 (Satchel: lines under 12 px)', small, 1536, 3],
];
wasm(await pgm(shot.png, 1280), 3); // the core's first run tiers up its code: not measured
console.log(`${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, ${RUNS} runs each (medians)`);
console.log('| image, scale, page segmentation | WebAssembly core CPU s | recall | native CLI CPU s, same PGM and model | native recall | core ÷ native CPU |');
console.log('|---|---|---|---|---|---|');
for (const [name, png, width, psm] of settings) {
  const image = await pgm(png, width);
  const file = path.join(dir, 'in.pgm');
  fs.writeFileSync(file, image);
  const w = [];
  const n = [];
  for (let i = 0; i < RUNS; i++) {
    // Alternated, so load falls on both alike.
    w.push(wasm(image, psm));
    n.push(native(file, psm));
  }
  const wc = median(w.map((x) => x.cpu));
  const nc = median(n.map((x) => x.cpu));
  console.log(`| ${name} | ${(wc / 1000).toFixed(2)} | ${r.wordRecall(shot.text, w[0].text).toFixed(3)} | ${(nc / 1000).toFixed(2)} | ${r.wordRecall(shot.text, n[0].text).toFixed(3)} | ${(wc / nc).toFixed(2)} |`);
}
fs.rmSync(dir, { recursive: true, force: true });
