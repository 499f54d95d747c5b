// Recall of Office sidecars: how much of what a reference reader finds in a document the sidecar also holds,
// on the documents of bench/office-corpus.mjs (the tests' documents plus larger ones made by LibreOffice and
// pandoc from the repository's docs and generated data).
// References: docx — `pandoc -t plain`. pptx — Debian's pandoc 2.17 cannot read pptx, so LibreOffice's
// reading: the deck converted to flat ODP, every paragraph of the slides and their notes pages. xlsx —
// LibreOffice's CSV export of every sheet with "save cell contents as shown" (filter token 9) for words, and
// its flat ODS export (each cell's shown text and stored value) for cells, compared as shown and as values.
// Run after `npm run build`: node bench/office-recall.mjs [--missing]  (--missing lists every word not found)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildCorpus, DOCS_COMMIT, soffice } from './office-corpus.mjs';
import { flag } from './lib.mjs';
import { cellRecall, odfText, odsCells, wordRecall } from './office-recall-lib.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { convertOfficeBuffer } = await import(path.join(root, 'dist/server/office/convert.js'));
const showMissing = flag('--missing');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'office-recall-'));
// Comma-separated, quoted, UTF-8, from line 1, language en-US, save cell contents as shown (token 9), every
// sheet to its own file (token 12 = -1, LibreOffice 7.2 and later).
const CSV_AS_SHOWN = 'csv:Text - txt - csv (StarCalc):44,34,76,1,,1033,false,true,true,false,false,-1';

function reference(doc) {
  const out = path.join(work, 'ref', doc.format, path.basename(path.dirname(doc.file)));
  if (doc.format === 'docx') return { text: execFileSync('pandoc', ['-t', 'plain', '--wrap=none', doc.file], { maxBuffer: 64 << 20 }).toString() };
  if (doc.format === 'pptx') return { text: odfText(soffice(work, out, 'fodp', [doc.file])[0]) };
  soffice(work, out, CSV_AS_SHOWN, [doc.file]);
  const base = path.basename(doc.file, '.xlsx');
  const csv = fs.readdirSync(out).filter((f) => f.startsWith(`${base}-`) && f.endsWith('.csv'));
  // The CSV's separators and quotes are not words of the sheet.
  const text = csv.map((f) => fs.readFileSync(path.join(out, f), 'utf8').replace(/"((?:[^"]|"")*)"|,/g, (_m, q) => (q === undefined ? ' ' : ` ${q.replace(/""/g, '"')} `))).join('\n');
  return { text, sheets: odsCells(soffice(work, out, 'fods', [doc.file])[0]) };
}

const rows = [];
for (const doc of buildCorpus(root, work)) {
  const ref = reference(doc);
  const sidecar = await convertOfficeBuffer(fs.readFileSync(doc.file), doc.format);
  rows.push({ ...doc, ...wordRecall(ref.text, sidecar), cells: ref.sheets ? cellRecall(ref.sheets, sidecar) : null });
}

const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(1)}%` : '—');
const n = (x) => x.toLocaleString('en-US');
const REFERENCE = { docx: '`pandoc -t plain`', pptx: 'LibreOffice → flat ODP, slides + notes', xlsx: 'LibreOffice CSV, cells as shown' };
console.log(`Docs at ${DOCS_COMMIT.slice(0, 7)}; ${execFileSync('soffice', ['--version']).toString().trim()}; ${execFileSync('pandoc', ['--version']).toString().split('\n')[0]}\n`);
console.log('| format | document | made by | reference words | word recall | distinct words | distinct recall | cells | cells as shown | cells by value | missing |');
console.log('| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
const line = (r, name, origin) => {
  const c = r.cells;
  const miss = [...r.missing, ...(c ? c.missing.map((m) => `cell ${m}`) : [])];
  const shownMissing = showMissing ? miss.join(' · ') : miss.slice(0, 8).join(' · ') + (miss.length > 8 ? ` … (${miss.length})` : '');
  console.log(
    `| ${r.format} | ${name} | ${origin} | ${n(r.total)} | ${pct(r.matched, r.total)} | ${n(r.distinct)} | ${pct(r.distinctFound, r.distinct)} | ` +
      `${c ? n(c.total) : '—'} | ${c ? pct(c.shown, c.total) : '—'} | ${c ? pct(c.value, c.total) : '—'} | ${shownMissing || '—'} |`,
  );
};
for (const r of rows) line(r, r.name, r.origin);
for (const format of ['docx', 'pptx', 'xlsx']) {
  const of = rows.filter((r) => r.format === format);
  const sum = (f) => of.reduce((s, r) => s + f(r), 0);
  const cells = of.some((r) => r.cells) ? { total: sum((r) => r.cells.total), shown: sum((r) => r.cells.shown), value: sum((r) => r.cells.value), missing: of.flatMap((r) => r.cells.missing) } : null;
  line({ format, total: sum((r) => r.total), matched: sum((r) => r.matched), distinct: sum((r) => r.distinct), distinctFound: sum((r) => r.distinctFound), missing: of.flatMap((r) => r.missing), cells }, `**all ${of.length}**`, REFERENCE[format]);
}
fs.rmSync(work, { recursive: true, force: true });
