// The Markdown previewer's parse time on 1 MiB (the preview cap) beside markdown-it's parser (the reference,
// a dev dependency) in the same run, and beside the previous implementation (commit 2069d76, compiled from git)
// at sizes it finishes in reasonable time: it was quadratic on long lines.
//   npm run build && node bench/markdown.mjs [--runs 7]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import MarkdownIt from 'markdown-it';
import ts from 'typescript';
import { machine, median, tempDir } from './lib.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const RUNS = Number(values.runs);
const MIB = 1024 * 1024;
const PREVIOUS_COMMIT = '2069d76';
/** The previous parser ran 16 s on 60 KB of '*a '; beyond this size on a hostile line it is not run. */
const PREVIOUS_HOSTILE_MAX = 60_000;

const { parseMarkdown } = await import(new URL('../dist/renderer/markdown.js', import.meta.url).href);
const md = new MarkdownIt();

async function previousParser() {
  const src = execFileSync('git', ['show', `${PREVIOUS_COMMIT}:renderer/src/markdown.ts`], { encoding: 'utf8' });
  const js = ts.transpileModule(src, { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } }).outputText;
  const file = path.join(await tempDir('satchel-bench-md-'), 'markdown-previous.mjs');
  fs.writeFileSync(file, js);
  return (await import(file)).parseMarkdown;
}
const previous = await previousParser();

function documentOf(size) {
  let doc = '';
  for (let i = 0; doc.length < size; i++) {
    doc += `## Section ${i}\n\nRevenue for **region ${i}** grew by *${i % 13}* percent, see \`table ${i}\` and [the notes](https://example.com/${i}).\n\n`;
    doc += `| Item | Q1 | Q2 |\n| :--- | ---: | ---: |\n| widgets | ${i} | ${i * 2} |\n| gadgets | ${i + 1} | ${i * 3} |\n\n- first point\n- second _point_\n  - nested\n\n`;
  }
  return doc.slice(0, size);
}

const cases = [
  { name: 'sidecar-like document', size: MIB, text: documentOf(MIB) },
  { name: "one line of '*a '", size: 60_000, text: '*a '.repeat(20_000) },
  { name: "one line of '*a '", size: MIB, text: '*a '.repeat(MIB / 3) },
  { name: "one line of '*_'", size: MIB, text: '*_'.repeat(MIB / 2) },
  { name: "one line of '[a](b'", size: MIB, text: '[a](b'.repeat(MIB / 5) },
  { name: 'a heading with a 1 MiB run of spaces', size: MIB, text: `# a${' '.repeat(MIB)}b` },
];

function time(fn, text, runs) {
  fn(text); // warm-up
  const ms = [];
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    fn(text);
    ms.push(performance.now() - t);
  }
  return median(ms);
}

const rows = [];
for (const c of cases) {
  const hostile = !c.name.startsWith('sidecar');
  const satchel = time(parseMarkdown, c.text, RUNS);
  const reference = time((s) => md.parse(s, {}), c.text, RUNS);
  const prev = !hostile || c.size <= PREVIOUS_HOSTILE_MAX ? time(previous, c.text, hostile ? 1 : RUNS) : null;
  rows.push({ ...c, satchel, reference, prev });
  console.error(`${c.name} ${c.size}: satchel ${satchel.toFixed(1)} ms, markdown-it ${reference.toFixed(1)} ms, previous ${prev?.toFixed(1) ?? '—'} ms`);
}

const kb = (n) => (n >= MIB ? `${n / MIB} MiB` : `${Math.round(n / 1000)} KB`);
console.log(`Machine: ${machine()}; median of ${RUNS} runs (the previous parser on a hostile line: one run)\n`);
console.log(`| input | size | Satchel ms | markdown-it ms | ratio | previous (${PREVIOUS_COMMIT}) ms |`);
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  const prev = r.prev === null ? 'not run (quadratic)' : r.prev.toFixed(1);
  console.log(`| ${r.name} | ${kb(r.size)} | ${r.satchel.toFixed(1)} | ${r.reference.toFixed(1)} | ${(r.satchel / r.reference).toFixed(2)} | ${prev} |`);
}
