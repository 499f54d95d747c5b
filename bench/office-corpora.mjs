// Real Office files from public test corpora (Apache POI, python-pptx, python-docx, openpyxl, exceljs,
// markitdown) through the upload's own Office conversion (dist/server/office/index.js officeToMarkdown: the
// file read, the size limit, the worker, the zip guard, the converters), measured per format: how many
// converted, why the others were refused, time per file, and word recall against an independent reader
// (pandoc for .docx, python-pptx for .pptx, openpyxl for .xlsx; bench/office-corpora-lib.mjs).
//
// Run after `npm run build`:
//   node bench/office-corpora.mjs [--python /usr/bin/python3] [--python-pptx <python-pptx>/src] [--worst 15]
//        [--json out.json] <folder>...
// Fetching the corpora: see docs/benchmarks.md, "Office sidecars on real test corpora".
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pandocText, pythonReadings, quantiles, wordRecall } from './office-corpora-lib.mjs';
import { cellRecall } from './office-recall-lib.mjs';

// The brief's bar: a file "reads well" at this word recall.
const GOOD_RECALL = 0.95;
const FORMATS = ['docx', 'xlsx', 'pptx'];

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [, value] = args.splice(i, 2);
  return value;
};
const python = option('--python', 'python3');
const pythonPath = option('--python-pptx', undefined);
const worstCount = Number(option('--worst', '15'));
const jsonOut = option('--json', undefined);
const folders = args;
if (!folders.length) {
  console.error('usage: node bench/office-corpora.mjs [--python bin] [--python-pptx src] [--worst n] [--json out] <folder>...');
  process.exit(2);
}
const { officeToMarkdown } = await import(path.join(root, 'dist/server/office/index.js'));
const { OfficeError } = await import(path.join(root, 'dist/server/office/office-error.js'));

function walk(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    // A whole clone can be given: its .git and installed packages hold no test files.
    if (entry.isDirectory()) {
      if (!entry.name.startsWith('.') && entry.name !== 'node_modules') walk(full, out);
    }
    else if (entry.isFile()) {
      const format = path.extname(entry.name).slice(1).toLowerCase();
      if (FORMATS.includes(format)) out.push({ file: full, format, corpus: path.basename(path.resolve(folders.find((f) => full.startsWith(path.resolve(f)))) ?? '') });
    }
  }
  return out;
}
const files = folders.flatMap((f) => walk(path.resolve(f))).sort((a, b) => a.file.localeCompare(b.file));

// Satchel: one file at a time, as an upload converts them (OFFICE_MAX_CONCURRENT is 1).
for (const doc of files) {
  const start = performance.now();
  try {
    doc.markdown = await officeToMarkdown(doc.file, doc.format);
  } catch (err) {
    doc.refused = err instanceof OfficeError ? err.reason : 'error';
    doc.message = err instanceof Error ? err.message : String(err);
  }
  doc.ms = performance.now() - start;
  // Cut by the preview's limits (120,000 characters; 500 rows × 30 columns a sheet): recall is then bounded by design.
  doc.cut = Boolean(doc.markdown && /\*\[Preview truncated at |not shown\)\*$/m.test(doc.markdown));
}

// References.
for (const doc of files.filter((d) => d.format === 'docx')) doc.ref = await pandocText(doc.file);
for (const format of ['pptx', 'xlsx']) {
  const of = files.filter((d) => d.format === format);
  const readings = await pythonReadings(format, of.map((d) => d.file), { python, pythonPath });
  for (const doc of of) doc.ref = readings.get(doc.file) ?? { error: 'no reading' };
}
for (const doc of files) {
  if (!doc.markdown || doc.ref.error) continue;
  Object.assign(doc, wordRecall(doc.ref.text, doc.markdown));
  if (doc.ref.sheets) {
    const cells = cellRecall(doc.ref.sheets, doc.markdown);
    doc.cells = { total: cells.total, value: cells.value, recall: cells.total ? cells.value / cells.total : 1, missing: cells.missing.slice(0, 5) };
  }
}

const rel = (f) => path.relative(path.resolve(folders[0], '..'), f);
const pct = (x) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '—');
const ms = (x) => (Number.isFinite(x) ? x.toFixed(0) : '—');
const counts = (list) => Object.entries(list.reduce((m, k) => ({ ...m, [k]: (m[k] ?? 0) + 1 }), {})).map(([k, n]) => `${k} ${n}`).join(', ') || '—';

// Recall is over the files both sides read and the preview did not cut; the cut ones get a column of their own.
console.log('| format | files | converted | refused (reason) | reference cannot open | time ms median / p95 | measured | recall median | files ≥ 0.95 | pooled recall | xlsx cells by value | cut by preview limits: files, recall median |');
console.log('| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const format of FORMATS) {
  const of = files.filter((d) => d.format === format);
  const read = of.filter((d) => d.markdown && !d.ref.error);
  const measured = read.filter((d) => !d.cut);
  const cut = read.filter((d) => d.cut);
  const t = quantiles(of.map((d) => d.ms));
  const sum = (list, f) => list.reduce((s, d) => s + f(d), 0);
  const cells = measured.filter((d) => d.cells);
  console.log(
    `| ${format} | ${of.length} | ${of.filter((d) => d.markdown).length} | ${counts(of.filter((d) => d.refused).map((d) => d.refused))} | ${of.filter((d) => d.ref.error).length} | ` +
      `${ms(t.median)} / ${ms(t.p95)} | ${measured.length} | ${pct(quantiles(measured.map((d) => d.recall)).median)} | ` +
      `${pct(measured.filter((d) => d.recall >= GOOD_RECALL).length / measured.length)} | ${pct(sum(measured, (d) => d.matched) / sum(measured, (d) => d.total))} | ` +
      `${cells.length ? pct(sum(cells, (d) => d.cells.value) / sum(cells, (d) => d.cells.total)) : '—'} | ` +
      `${cut.length}, ${pct(quantiles(cut.map((d) => d.recall)).median)} |`,
  );
}

console.log('\nRefused by Satchel although the reference reads them:');
const odd = files.filter((d) => d.refused && !d.ref.error);
for (const d of odd) console.log(`- ${rel(d.file)} (${d.format}): ${d.refused}: ${d.message}`);
if (!odd.length) console.log('- none');

console.log('\nRefused by both (reason: Satchel / reference):');
for (const d of files.filter((x) => x.refused && x.ref.error)) console.log(`- ${rel(d.file)}: ${d.refused} / ${d.ref.error}`);
console.log('\nConverted by Satchel, not readable by the reference:');
for (const d of files.filter((x) => x.markdown && x.ref.error)) console.log(`- ${rel(d.file)}: ${d.ref.error}`);

console.log(`\nWorst ${worstCount} by word recall (uncut files):`);
const worst = files.filter((d) => d.recall !== undefined && !d.cut).sort((a, b) => a.recall - b.recall).slice(0, worstCount);
for (const d of worst) console.log(`- ${pct(d.recall)} ${rel(d.file)} (${d.matched}/${d.total}) missing: ${d.missing.slice(0, 10).join(' ')}`);
console.log('\nWorst xlsx by cell recall (uncut files):');
const worstCells = files.filter((d) => d.cells && !d.cut).sort((a, b) => a.cells.recall - b.cells.recall).slice(0, worstCount);
for (const d of worstCells) console.log(`- ${pct(d.cells.recall)} ${rel(d.file)} (${d.cells.value}/${d.cells.total}) missing: ${d.cells.missing.join(' · ')}`);
console.log('\nCut by the preview limits:');
for (const d of files.filter((x) => x.cut && x.recall !== undefined)) console.log(`- ${pct(d.recall)} ${rel(d.file)} (${d.matched}/${d.total} words)`);

if (jsonOut) {
  const slim = files.map(({ markdown, ref, ...d }) => ({ ...d, refError: ref.error, chars: markdown?.length }));
  fs.writeFileSync(jsonOut, JSON.stringify(slim, null, 1));
}
