// Office sidecar conversion time: Satchel's guarded pipeline (read, zip guard, parse, Markdown) against a
// reference doing only the library work without Satchel: mammoth alone on the buffer for .docx; yauzl
// unzipping every member plus fast-xml-parser parsing every XML part for .xlsx/.pptx; yauzl unzipping with no
// limits for the guard. Single process,
// pinned to one core when taskset exists. Needs the compiled server (`npm run build`, or --dist DIR).
//   node bench/office.mjs [--runs 15] [--dist dist]
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import mammoth from 'mammoth';
import yauzl from 'yauzl';
import { hasCommand, machine, median, tempDir } from './lib.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '15' }, dist: { type: 'string', default: 'dist' }, pinned: { type: 'boolean' } } });
if (!values.pinned && hasCommand('taskset')) {
  execFileSync('taskset', ['-c', '0', process.execPath, ...process.argv.slice(1), '--pinned'], { stdio: 'inherit' });
  process.exit(0);
}
const runs = Number(values.runs);
const dist = path.resolve(values.dist);
const load = (p) => import(pathToFileURL(path.join(dist, 'server/office', p)).href);
const office = await load('index.js');
const { readGuardedZip } = await load('guarded-zip.js');
const { parseXml } = await load('xml.js');
const fx = await load('testing/fixtures.js');

// Words drawn at random from a small vocabulary: compresses like prose (well under the ratio limit).
const VOCAB = 'the of and report quarterly revenue growth market customer product team plan risk budget forecast review'.split(' ');
const words = (n) => Array.from({ length: n }, () => VOCAB[crypto.randomInt(VOCAB.length)]).join(' ');

async function cases() {
  const typicalDocx = await fx.buildDocx(
    [
      fx.wHeading(1, 'Quarterly report'),
      ...Array.from({ length: 40 }, (_, i) => [fx.wHeading(2, `Section ${i}`), fx.wPara(words(120)), fx.wBullet(words(8)), fx.wBullet(words(8)), fx.wNumbered(words(6))].join('')),
      fx.wTable(Array.from({ length: 20 }, () => Array.from({ length: 5 }, () => words(2)))),
    ].join(''),
  );
  // Near the per-member limit: ~3.9 MB of document.xml.
  const paraCount = 5200;
  const bigDocx = await fx.buildDocx(Array.from({ length: paraCount }, () => fx.wPara(words(90))).join(''));
  const shared = Array.from({ length: 2000 }, (_, i) => `<si><t>${words(3)} ${i}</t></si>`);
  const sheetRows = (rows, cols) =>
    Array.from({ length: rows }, (_, r) =>
      `<row r="${r + 1}">${Array.from({ length: cols }, (_, c) => (c % 2 ? `<c t="s"><v>${(r * cols + c) % 2000}</v></c>` : `<c><v>${r * 1.5 + c}</v></c>`)).join('')}</row>`,
    ).join('');
  const typicalXlsx = await fx.buildXlsx([{ name: 'Data', sheetData: sheetRows(400, 10) }, { name: 'More', sheetData: sheetRows(100, 6) }], shared);
  const bigXlsx = await fx.buildXlsx([{ name: 'Big', sheetData: sheetRows(30000, 5) }], shared);
  const slides = Array.from({ length: 30 }, (_, i) => ({
    file: `slide${i + 1}.xml`,
    shapes: fx.pShape([words(4)], 'title') + fx.pShape(Array.from({ length: 6 }, (_, j) => ({ text: words(10), lvl: j % 2 })), 'body'),
  }));
  const typicalPptx = await fx.buildPptx(slides);
  return [
    ['docx', 'typical .docx (40 sections, lists, table)', typicalDocx],
    ['docx', `large .docx (${paraCount} paragraphs, document.xml near 4 MB)`, bigDocx],
    ['xlsx', 'typical .xlsx (2 sheets, 500 rows, 2000 shared strings)', typicalXlsx],
    ['xlsx', 'large .xlsx (30,000 rows × 5, 500 shown)', bigXlsx],
    ['pptx', 'typical .pptx (30 slides)', typicalPptx],
  ];
}

const xml = new XMLParser({ ignoreAttributes: false, processEntities: false, preserveOrder: true });
async function rawMembers(buffer) {
  const zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true });
  const out = new Map();
  await new Promise((resolve, reject) => {
    zip.on('entry', (e) => {
      zip.openReadStream(e, (err, s) => {
        if (err) return reject(err);
        const chunks = [];
        s.on('data', (c) => chunks.push(c));
        s.on('error', reject);
        s.on('end', () => {
          out.set(e.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
      });
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return out;
}
/** The floor for each format: the library work any converter must do, without guard or Markdown. */
async function floor(format, buffer) {
  if (format === 'docx') return (await mammoth.convertToHtml({ buffer })).value.length;
  const members = await rawMembers(buffer);
  let n = 0;
  for (const [name, bytes] of members) if (name.endsWith('.xml')) n += xml.parse(bytes.toString('utf8')).length;
  return n;
}

/** Peak RSS (MiB) of a fresh Node converting `file` once, minus that of one that only loads the modules. */
function peakRss(file, format) {
  const script = (convert) => `
    const office = await import(${JSON.stringify(pathToFileURL(path.join(dist, 'server/office/index.js')).href)});
    await import('mammoth');
    ${convert ? `await office.officeToMarkdown(${JSON.stringify(file)}, '${format}');` : ''}
    console.log(process.resourceUsage().maxRSS);`;
  const run = (convert) => Number(execFileSync(process.execPath, ['--input-type=module', '-e', script(convert)], { cwd: path.dirname(new URL(import.meta.url).pathname), encoding: 'utf8' }));
  return (run(true) - run(false)) / 1024;
}

/** Median ms of each function; the functions take turns within each run so machine noise hits them alike. */
async function timeInterleaved(fns) {
  const samples = fns.map(() => []);
  for (const fn of fns) await fn(); // warm-up
  for (let i = 0; i < runs; i++) {
    for (const [k, fn] of fns.entries()) {
      const t0 = process.hrtime.bigint();
      await fn();
      samples[k].push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  return samples.map(median);
}

const dir = await tempDir('satchel-bench-office-');
const rows = [];
try {
  for (const [format, label, buffer] of await cases()) {
    const file = path.join(dir, `f.${format}`);
    await fs.writeFile(file, buffer);
    const [ours, base, guard, unguarded] = await timeInterleaved([
      () => office.officeToMarkdown(file, format),
      () => floor(format, buffer),
      () => readGuardedZip(buffer, office.OFFICE_LIMITS),
      () => rawMembers(buffer),
    ]);
    const md = await office.officeToMarkdown(file, format);
    rows.push({ label, kb: Math.round(buffer.length / 1024), ours, base, guard, unguarded, mdChars: md.length, rss: peakRss(file, format) });
  }
} finally {
  await fs.rm(dir, { recursive: true, force: true });
}

const f = (x) => x.toFixed(1);
console.log(`Machine: ${machine()}; ${runs} runs per figure, median ms.`);
console.log('| case | file KiB | Satchel officeToMarkdown | reference (library alone) | ratio | zip guard | yauzl unguarded | ratio | Markdown chars | extra peak RSS MiB |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  console.log(`| ${r.label} | ${r.kb} | ${f(r.ours)} | ${f(r.base)} | ${(r.ours / r.base).toFixed(2)} | ${f(r.guard)} | ${f(r.unguarded)} | ${(r.guard / r.unguarded).toFixed(2)} | ${r.mdChars} | ${r.rss.toFixed(0)} |`);
}

// The XML parser alone on the largest part: Satchel's strict parser against fast-xml-parser doing the same
// job (validate for well-formedness, then parse with order kept), which is what it replaced.
const sheetXml = `<worksheet xmlns="urn:s"><sheetData>${Array.from({ length: 30000 }, (_, r) => `<row r="${r + 1}">${Array.from({ length: 5 }, (_, c) => `<c t="s"><v>${(r * 5 + c) % 2000}</v></c>`).join('')}</row>`).join('')}</sheetData></worksheet>`;
const fxpOrdered = new XMLParser({ preserveOrder: true, ignoreAttributes: false, processEntities: false, parseTagValue: false, trimValues: false });
const [mine, theirs] = await timeInterleaved([
  async () => parseXml(sheetXml, 'sheet'),
  async () => {
    if (XMLValidator.validate(sheetXml) !== true) throw new Error('invalid');
    fxpOrdered.parse(sheetXml);
  },
]);
console.log('');
console.log('| XML part | chars | Satchel parseXml ms | fast-xml-parser validate + parse ms | ratio |');
console.log('| --- | --- | --- | --- | --- |');
console.log(`| sheet, 30,000 rows × 5 | ${sheetXml.length} | ${f(mine)} | ${f(theirs)} | ${(mine / theirs).toFixed(2)} |`);
