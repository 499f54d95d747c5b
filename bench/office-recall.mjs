// Recall of Office sidecars: the share of a reference reader's words that the sidecar also holds, on the
// documents the tests use (server/office/testing/real/, converted by LibreOffice). References: pandoc
// -t plain for docx; for pptx (Debian's pandoc cannot read it) the text of every a:t in the slides and notes
// pages, read with python3's zipfile; for xlsx LibreOffice's own CSV export (values as the sheet shows them).
// Run after `npm run build`: node bench/office-recall.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { convertOfficeBuffer } = await import(path.join(root, 'dist/server/office/convert.js'));
const sources = path.join(root, 'server/office/testing/real');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'office-recall-'));
const soffice = (target, files) =>
  execFileSync('soffice', [`-env:UserInstallation=file://${work}/profile`, '--headless', '--convert-to', target, '--outdir', work, ...files], { stdio: 'pipe' });

const PPTX_TEXT = `
import sys, zipfile, re
z = zipfile.ZipFile(sys.argv[1])
names = sorted(n for n in z.namelist() if re.match(r'ppt/(slides|notesSlides)/[^/]+\\.xml$', n))
for n in names:
    print(' '.join(re.findall(r'<a:t>([^<]*)</a:t>', z.read(n).decode('utf-8'))))
`;

const words = (text) => new Set((text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}.,:/%-]*[\p{L}\p{N}%]|[\p{L}\p{N}]/gu) ?? []));

function recall(reference, sidecar) {
  const ref = words(reference);
  const got = words(sidecar);
  const missing = [...ref].filter((w) => !got.has(w));
  return { refWords: ref.size, found: ref.size - missing.length, recall: ref.size ? (ref.size - missing.length) / ref.size : 1, missing };
}

soffice('docx', [path.join(sources, 'report.fodt')]);
soffice('pptx', [path.join(sources, 'deck.fodp')]);
soffice('xlsx', [path.join(sources, 'figures.fods')]);
soffice('csv', [path.join(work, 'figures.xlsx')]);

const rows = [];
for (const [format, file, reference] of [
  ['docx', 'report.docx', () => execFileSync('pandoc', ['-t', 'plain', path.join(work, 'report.docx')]).toString()],
  ['pptx', 'deck.pptx', () => execFileSync('python3', ['-c', PPTX_TEXT, path.join(work, 'deck.pptx')]).toString()],
  ['xlsx', 'figures.xlsx', () => fs.readFileSync(path.join(work, 'figures.csv'), 'utf8').replace(/,/g, ' ')],
]) {
  const sidecar = await convertOfficeBuffer(fs.readFileSync(path.join(work, file)), format);
  rows.push({ format, file, ...recall(reference(), sidecar) });
}
console.log('| format | document | reference | reference words | found in sidecar | recall | missing |');
console.log('| --- | --- | --- | ---: | ---: | ---: | --- |');
const refName = { docx: 'pandoc -t plain', pptx: 'python3 zipfile a:t (slides + notes)', xlsx: 'soffice --convert-to csv' };
for (const r of rows) {
  console.log(`| ${r.format} | ${r.file} | ${refName[r.format]} | ${r.refWords} | ${r.found} | ${(100 * r.recall).toFixed(1)}% | ${r.missing.join(', ') || '—'} |`);
}
fs.rmSync(work, { recursive: true, force: true });
