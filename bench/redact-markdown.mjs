// What reading Markdown escapes through costs the redactor (issue 33, finding 5): an Office sidecar-like text
// (prose whose every `_` and `*` is escaped, a table, an escaped key every 2 KiB), redacted by the redactor before
// the change (the floor: it reads the escapes literally and masks none of those keys), by the current one, and
// the same text unescaped (what a .txt of it costs now); and plain prose, to show texts without escapes pay
// nothing. Runs the TypeScript sources through vite-node, no build:
//   npx vite-node bench/redact-markdown.mjs [-- --runs N] [--baseline <git ref>]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { arg } from './lib.mjs';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const RUNS = Number(arg('--runs')) || 15;
/** The commit before the redactor read Markdown escapes. */
const BASELINE_REF = arg('--baseline') ?? '92a94ff';
const WARMUP_RUNS = 3;
const TEXT_CHARS = 100_000;
const SECRET_EVERY = 2048;

function loadBaseline(ref) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redact-md-baseline-'));
  const tar = execFileSync('git', ['archive', ref, 'server/redact'], { cwd: ROOT, maxBuffer: 64 << 20 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  return import(pathToFileURL(path.join(dir, 'server/redact/index.ts')).href);
}

const current = await import(pathToFileURL(path.join(ROOT, 'server/redact/index.ts')).href);
const { unescapeMarkdown } = await import(pathToFileURL(path.join(ROOT, 'server/redact/markdown-escapes.ts')).href);
const previous = await loadBaseline(BASELINE_REF);

let seed = 0x5eed;
function rand() {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return seed / 2 ** 32;
}
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const WORDS = 'the report file_name of to and in quarterly user_id build *draft* step [link] value error result team plan'.split(' ');
const KEYS = () => pick(['ghp_', 'sk_live_', 'hf_', 'github_pat_11']) + Array.from({ length: 28 }, () => pick([...'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789'])).join('');
const escape = (t) => t.replace(/[\\`*_[\]<]/g, '\\$&');

function document() {
  let out = '';
  let next = SECRET_EVERY;
  while (out.length < TEXT_CHARS) {
    if (out.length >= next) {
      out += `Key: ${KEYS()}\n`;
      next += SECRET_EVERY;
    } else if (rand() < 0.05) out += `| ${pick(WORDS)} | ${pick(WORDS)} | ${Math.floor(rand() * 1000)} |\n`;
    else out += Array.from({ length: 12 }, () => pick(WORDS)).join(' ') + '.\n';
  }
  return out;
}
const plainDoc = document();
const markdownDoc = escape(plainDoc);
const prose = plainDoc.replace(/[_*[\]]/g, ' ').replace(/Key: \S+/g, 'Key: none');

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
function time(redact, text) {
  for (let i = 0; i < WARMUP_RUNS; i++) redact(text);
  const ms = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    redact(text);
    ms.push(performance.now() - t);
  }
  return median(ms);
}

const rows = [
  ['Office-like Markdown (escaped), previous: the floor', time(previous.redact, markdownDoc)],
  ['Office-like Markdown (escaped), current', time(current.redact, markdownDoc)],
  ['the same text unescaped (a .txt), current', time(current.redact, plainDoc)],
  ['prose without escapes, previous', time(previous.redact, prose)],
  ['prose without escapes, current', time(current.redact, prose)],
];
const keysLeft = (out) => (unescapeMarkdown(out).copy.match(/(ghp_|sk_live_|hf_|github_pat_11)[A-Za-z0-9]{20,}/g) ?? []).length;
console.log(`${TEXT_CHARS.toLocaleString('en-US')} characters, a key every ${SECRET_EVERY}; median of ${RUNS} runs (ms); load ${os.loadavg()[0].toFixed(1)}`);
for (const [what, ms] of rows) console.log(`${what.padEnd(56)} ${ms.toFixed(2)}`);
console.log(`ratio current/previous, escaped: ${(rows[1][1] / rows[0][1]).toFixed(2)}; current escaped / current unescaped: ${(rows[1][1] / rows[2][1]).toFixed(2)}; prose current/previous: ${(rows[4][1] / rows[3][1]).toFixed(2)}`);
console.log(`keys left whole in the escaped text: previous ${keysLeft(previous.redact(markdownDoc))}, current ${keysLeft(current.redact(markdownDoc))}`);
