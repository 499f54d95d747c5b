// Makes corpus.md, the committed text source of the generated history (bench/history/generate.mjs): the README
// English of permissively licensed packages installed in node_modules (MIT, ISC, BSD, Apache-2.0), each under a
// heading naming the package and its licence, badges and raw HTML lines left out. Run once; the output is
// committed, so the history is the same on every machine whatever node_modules holds.
// Usage: node bench/history/build-corpus.mjs [--node-modules DIR] [--bytes N]
import fs from 'node:fs';
import path from 'node:path';
import { arg } from '../lib.mjs';

const ROOT = path.resolve(arg('--node-modules', 'node_modules'));
/** About a megabyte: enough distinct text that a 200k-message history is not one README repeated. */
const BUDGET_BYTES = Number(arg('--bytes', 1_000_000));
/** Licences that allow copying the text with its notice (the heading keeps the package's name and licence). */
const ALLOWED = /^(MIT|ISC|BSD-2-Clause|BSD-3-Clause|Apache-2\.0)$/;
/** A README shorter than this is mostly badges and an install line. */
const MIN_BYTES = 4_000;
/** One package's share: no single README dominates the words. */
const MAX_BYTES = 40_000;

const packages = [];
for (const entry of fs.readdirSync(ROOT).sort()) {
  const dirs = entry.startsWith('@') ? fs.readdirSync(path.join(ROOT, entry)).sort().map((d) => path.join(entry, d)) : [entry];
  for (const dir of dirs) {
    const readme = ['README.md', 'readme.md', 'Readme.md'].map((n) => path.join(ROOT, dir, n)).find((p) => fs.existsSync(p));
    if (!readme) continue;
    let license;
    try {
      license = JSON.parse(fs.readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')).license;
    } catch {
      continue;
    }
    if (typeof license !== 'string' || !ALLOWED.test(license)) continue;
    const text = fs
      .readFileSync(readme, 'utf8')
      .split('\n')
      .filter((l) => !/^\s*(<|\[!\[|!\[)/.test(l))
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    if (Buffer.byteLength(text) >= MIN_BYTES) packages.push({ dir, license, text: text.slice(0, MAX_BYTES) });
  }
}
let out = '';
for (const p of packages) {
  const part = `\n\n# ${p.dir} (${p.license})\n\n${p.text}\n`;
  if (Buffer.byteLength(out) + Buffer.byteLength(part) > BUDGET_BYTES) continue;
  out += part;
}
const file = path.join(path.dirname(new URL(import.meta.url).pathname), 'corpus.md');
fs.writeFileSync(file, out.trimStart());
console.log(`${file}: ${Buffer.byteLength(out)} bytes`);
