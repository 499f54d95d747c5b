// What telling text from binary and decoding it costs (issue 25, legacy encodings): the one sniffer's calls on a
// 10 MB file, for this build and another (`--before`, e.g. main's dist, for the before/after rows in
// docs/benchmarks.md). Needs `npx tsc -p tsconfig.json` (or `npm run build`).
//   node bench/text-sniff.mjs [--mb 10] [--runs 9] [--before /work/main/dist/server/content/file-kind.js]
//
// Calls, as the readers make them: `looksLikeText` on the first 8 KiB (every reader), `decodeText` on the whole
// buffer (the preview's strict decode, which reads at most 1 MiB; here 10 MB to show the per-byte cost), `textOf`
// on the whole buffer (what the agent and MCP decode). Files: UTF-8 prose (é every ~40 bytes), the same text in
// Windows-1252, and random bytes. Median wall time of `--runs`, after one warm-up.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { machine, median } from './lib.mjs';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '10' },
    runs: { type: 'string', default: '9' },
    before: { type: 'string' },
  },
});
const BYTES = Number(values.mb) * 1_000_000;
const RUNS = Number(values.runs);

const after = await import(new URL('../dist/server/content/file-kind.js', import.meta.url).href);
const before = values.before ? await import(pathToFileURL(path.resolve(values.before)).href) : undefined;

const LINE = 'Le café crème coûte 3,50 € chez Jürgen, “très bon” — déjà vu.\n';
const repeatTo = (buf) => Buffer.concat(Array.from({ length: Math.ceil(BYTES / buf.length) }, () => buf)).subarray(0, BYTES);
const utf8 = repeatTo(Buffer.from(LINE, 'utf8'));
// Windows-1252 by hand: the line's non-Latin-1 characters are € (0x80), “ (0x93), ” (0x94), — (0x97).
const cp1252 = repeatTo(Buffer.from(LINE.replace('€', '\x80').replace('“', '\x93').replace('”', '\x94').replace('—', '\x97'), 'latin1'));
let seed = 42;
const random = Buffer.alloc(BYTES);
for (let i = 0; i < BYTES; i++) {
  seed = (seed * 1103515245 + 12345) >>> 0;
  random[i] = seed >>> 24;
}

function time(fn) {
  fn();
  const ms = [];
  for (let i = 0; i < RUNS; i++) {
    const t = process.hrtime.bigint();
    fn();
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(ms);
}

const head = (b) => b.subarray(0, after.SNIFF_BYTES);
const describe = (mod, bytes) => {
  const decoded = mod.decodeText(bytes, true);
  return decoded ? decoded.encoding : 'binary';
};
console.log(machine());
console.log(`| file (${values.mb} MB) | build | looksLikeText(8 KiB) ms | decodeText(whole) ms → result | textOf(whole) ms |`);
console.log('|---|---|---|---|---|');
for (const [name, bytes] of [['UTF-8 prose', utf8], ['Windows-1252 prose', cp1252], ['random bytes', random]]) {
  for (const [build, mod] of [['before', before], ['after', after]]) {
    if (!mod) continue;
    const sniff = time(() => mod.looksLikeText(head(bytes)));
    const strict = time(() => mod.decodeText(bytes, true));
    const lenient = time(() => mod.textOf(bytes));
    console.log(`| ${name} | ${build} | ${sniff.toFixed(3)} | ${strict.toFixed(1)} → ${describe(mod, bytes)} | ${lenient.toFixed(1)} |`);
  }
}
