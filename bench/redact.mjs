// Redaction throughput, the current redactor side by side with the previous one in the same run.
// Build first: `npm run build && node bench/redact.mjs [--runs N] [--json] [--baseline <git ref>] [--new <module>]
// [--stream <module>] [--skip-long]`.
// The previous redactor is the single-file server/redact.ts of BASELINE_REF, read with `git show` and transpiled
// with TypeScript into a temporary directory (it has no imports).
// Corpora are generated from a fixed seed, so every run measures the same text. Long inputs (1 MiB) bypass the
// memo cache by design (it only holds strings up to 16384 characters); the "unique 1 KiB strings" cases go
// through redact() with a fresh string each call, so every call misses the cache and pays insert + eviction.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { arg, flag, median } from './lib.mjs';

/** The last commit with the single-file redactor (before server/redact/). */
const BASELINE_REF = '3aa0a00';
const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

const RUNS = Number(arg('--runs')) || 21;
const JSON_OUT = flag('--json');

function loadBaseline(ref) {
  const source = execFileSync('git', ['show', `${ref}:server/redact.ts`], { cwd: ROOT, encoding: 'utf8' });
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redact-baseline-'));
  const file = path.join(dir, 'redact.mjs');
  fs.writeFileSync(file, js);
  return import(pathToFileURL(file).href);
}

const current = await import(pathToFileURL(path.resolve(arg('--new') ?? path.join(ROOT, 'dist/server/redact/index.js'))).href);
const baseline = await loadBaseline(arg('--baseline') ?? BASELINE_REF);
const IMPLS = { previous: baseline, current };

const MiB = 1 << 20;
const SECRET_EVERY = 2048; // characters between planted secrets
const SMALL = 1024; // size of the unique strings in the per-call cases
const WARMUP_RUNS = 5;
const TARGET_PROSE_MBPS = 100;
const TARGET_SECRETS_MBPS = 20;

let seed = 0x5eed;
function rand() {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return seed / 2 ** 32;
}
const pick = (xs) => xs[Math.floor(rand() * xs.length)];

const WORDS = (
  'the a of to and in that it with as for was on are be this by from they we you have not but or an at his ' +
  'session upload archive folder workspace transcript model server request response token secret password ' +
  'author credential key user file path window message agent voice browser limit cache value error result'
).split(' ');
const PUNCT = [' ', ' ', ' ', ' ', ' ', ' ', ', ', '. ', '; ', ': ', '! ', '? ', ' (', ') ', '\n', ' - '];

function prose(chars) {
  let s = '';
  while (s.length < chars) s += pick(WORDS) + pick(PUNCT);
  return s.slice(0, chars);
}

const CODE_LINES = [
  'const total = items.reduce((sum, x) => sum + x.size, 0);',
  'if (status == 200 && body.length > 0) { return body; }',
  'export const MAX_UPLOAD_MB = 100;',
  'let url = `${base}/api/session?session_id=${id}`;',
  'for (let i = 0; i < n; i++) out[i] = data[i] ^ mask[i % 4];',
  'headers["Content-Type"] = "application/json; charset=utf-8";',
  'x = y + 1; z = x * 2; w = "literal";',
];
function code(chars) {
  let s = '';
  while (s.length < chars) s += pick(CODE_LINES) + '\n';
  return s.slice(0, chars);
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randomChars = (n, alphabet = ALNUM) => Array.from({ length: n }, () => pick([...alphabet])).join('');
const SECRETS = [
  () => `sk-proj-${randomChars(40)}`,
  () => `ghp_${randomChars(36)}`,
  () => `AKIA${randomChars(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}`,
  () => `OPENAI_API_KEY=${randomChars(24)}`,
  () => `Authorization: Bearer ${randomChars(32)}`,
  () => `xoxb-${randomChars(12, '0123456789')}-${randomChars(24)}`,
  () => `password="${randomChars(12)}"`,
  () => `AIza${randomChars(35)}`,
  () => `eyJ${randomChars(20)}.${randomChars(30)}.${randomChars(20)}`,
  () => `postgres://app:${randomChars(16)}@db.internal/app`,
  () => `{"api_key": "${randomChars(24)}"}`,
  () => `bot${randomChars(9, '0123456789')}:${randomChars(35)}`,
  () => `x-api-key: ${randomChars(28)}`,
  () => `call +4915${randomChars(8, '0123456789')} now`,
];

function withSecrets(chars, filler) {
  let s = '';
  while (s.length < chars) s += filler(SECRET_EVERY) + ' ' + pick(SECRETS)() + ' ';
  return s.slice(0, chars);
}

/**
 * MB/s (10^6 bytes of UTF-8 per second) of `fn` over RUNS timed runs after a warm-up: the median by wall clock,
 * the median by this process's CPU time (user + system; far less sensitive to other jobs on a shared machine),
 * and the best wall-clock run.
 */
function measure(bytes, fn) {
  for (let i = 0; i < WARMUP_RUNS; i++) fn(i);
  const wall = [];
  const cpu = [];
  for (let i = 0; i < RUNS; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    fn(WARMUP_RUNS + i);
    const t1 = performance.now();
    const c1 = process.cpuUsage(c0);
    wall.push(t1 - t0);
    cpu.push((c1.user + c1.system) / 1000);
  }
  const mbps = (ms) => Number((bytes / 1e6 / (ms / 1000)).toFixed(1));
  const wallMs = median(wall);
  const cpuMs = median(cpu);
  const bestMs = Math.min(...wall);
  return { wallMs: Number(wallMs.toFixed(3)), wallMBps: mbps(wallMs), cpuMs: Number(cpuMs.toFixed(3)), cpuMBps: mbps(cpuMs), bestMBps: mbps(bestMs) };
}

// Response strings arrive flat (from JSON.parse or a file read); concatenated ones would make the first regex
// pay V8's flattening, which the server never pays. A JSON round trip yields flat strings.
const flat = (value) => JSON.parse(JSON.stringify(value));

/** One 1 MiB string; a different trailing digit per run keeps V8 from reusing anything between runs. */
function big(redact, text) {
  const variants = flat(Array.from({ length: WARMUP_RUNS + RUNS }, (_, i) => `${text.slice(0, MiB - 8)} ${String(i).padStart(6, '0')}`));
  return measure(Buffer.byteLength(variants[0]), (i) => redact(variants[i]));
}

/** 1 MiB as unique 1 KiB strings per run: every call misses the memo cache. */
function uniqueSmall(redact, clear, text) {
  const count = MiB / SMALL;
  const runs = flat(
    Array.from({ length: WARMUP_RUNS + RUNS }, (_, r) =>
      Array.from({ length: count }, (_, k) => `${r}:${k} ${text.slice(k * SMALL, (k + 1) * SMALL - 16)}`),
    ),
  );
  clear();
  return measure(Buffer.byteLength(runs[0].join('')), (i) => {
    for (const s of runs[i]) redact(s);
  });
}

/** The same 1 KiB strings every run: after the first run every call is a cache hit. */
function cachedSmall(redact, clear, text) {
  const count = MiB / SMALL;
  const strings = flat(Array.from({ length: count }, (_, k) => `${k} ${text.slice(k * SMALL, (k + 1) * SMALL - 8)}`));
  clear();
  return measure(Buffer.byteLength(strings.join('')), () => {
    for (const s of strings) redact(s);
  });
}

const proseText = prose(MiB);
const secretText = withSecrets(MiB, prose);
const codeText = code(MiB);
const codeSecretText = withSecrets(MiB, code);

// Let V8 optimize every path before anything is timed: otherwise the first case measured pays for tier-up.
const GLOBAL_WARMUP_ROUNDS = 20;
for (const impl of Object.values(IMPLS)) {
  for (let i = 0; i < GLOBAL_WARMUP_ROUNDS; i++) for (const t of [proseText, secretText, codeText, codeSecretText]) impl.redact(t);
}

const CASES = {
  'prose, 1 MiB, no secrets': (r) => big(r.redact, proseText),
  'prose, 1 MiB, a secret every 2 KiB': (r) => big(r.redact, secretText),
  'code, 1 MiB, no secrets': (r) => big(r.redact, codeText),
  'code, 1 MiB, a secret every 2 KiB': (r) => big(r.redact, codeSecretText),
  'prose, unique 1 KiB strings (cache misses)': (r) => uniqueSmall(r.redact, r.clearRedactCache, proseText),
  'prose + secrets, unique 1 KiB strings (cache misses)': (r) => uniqueSmall(r.redact, r.clearRedactCache, secretText),
  'prose + secrets, repeated 1 KiB strings (cache hits)': (r) => cachedSmall(r.redact, r.clearRedactCache, secretText),
};

// Cases alternate between the two redactors, so a burst of load on the shared machine hits both alike.
const results = {};
for (const [name, run] of Object.entries(CASES)) {
  results[name] = {};
  for (const [label, impl] of Object.entries(IMPLS)) results[name][label] = run(impl);
}

// A reply streamed to the browser goes through redact/stream-redact.ts instead: the same text cut into pieces the
// size of model tokens, every piece pushed, then flushed. Measured against the whole-text redactor of this tree
// on the same text (the previous stream redactor gave no such guarantee, so it is no reference).
const streamModule = await import(pathToFileURL(path.resolve(arg('--stream') ?? path.join(ROOT, 'dist/server/redact/stream-redact.js'))).href);
const STREAM_PIECES = [4, 16]; // characters per pushed piece (a model token is about 4)
const STREAM_TEXTS = { 'prose, 1 MiB, no secrets': proseText, 'prose, 1 MiB, a secret every 2 KiB': secretText, 'code, 1 MiB, a secret every 2 KiB': codeSecretText };
function streamed(text, size) {
  const pieces = flat(Array.from({ length: Math.ceil(text.length / size) }, (_, k) => text.slice(k * size, (k + 1) * size)));
  return measure(Buffer.byteLength(text), () => {
    const r = new streamModule.StreamRedactor();
    let out = 0;
    for (const piece of pieces) out += r.push(piece).length;
    out += r.flush().length;
    return out;
  });
}
const streamResults = {};
for (const [name, text] of Object.entries(STREAM_TEXTS)) {
  for (const size of STREAM_PIECES) streamResults[`${name}, streamed in ${size}-char pieces`] = { whole: results[name]?.current ?? big(current.redact, text), streamed: streamed(text, size) };
}
// Long lines (issue 21): one reply without a line break, the shape that made the stream redactor quadratic (a
// hostile agent's 200,000 `a ` tokens; a model writing one 406 KiB paragraph). `--skip-long` leaves them out
// (a quadratic redactor takes minutes per run).
const LONG_LINES = {
  'one line: 200,000 "a " tokens (400 KB)': ['a '.repeat(200_000), 2],
  'one line: prose paragraph, 406 KiB': [prose(406 * 1024).replace(/\n/g, ' '), 4],
};
if (!flag('--skip-long')) {
  for (const [name, [text, size]] of Object.entries(LONG_LINES)) {
    const line = flat(text);
    const whole = measure(Buffer.byteLength(line), () => current.redact(line));
    streamResults[`${name}, streamed in ${size}-char pieces`] = { whole, streamed: streamed(line, size) };
  }
}

const cpu = (name, label) => results[name][label].cpuMBps;
const ratios = {
  'prose: current / 100 MB/s target (CPU-time median)': Number((cpu('prose, 1 MiB, no secrets', 'current') / TARGET_PROSE_MBPS).toFixed(2)),
  'secrets: current / 20 MB/s target (CPU-time median)': Number(
    (cpu('prose, 1 MiB, a secret every 2 KiB', 'current') / TARGET_SECRETS_MBPS).toFixed(2),
  ),
};

if (JSON_OUT) {
  console.log(JSON.stringify({ node: process.version, runs: RUNS, baseline: arg('--baseline') ?? BASELINE_REF, results, streamResults, ratios }, null, 2));
} else {
  console.log(`node ${process.version}, ${RUNS} runs each after ${WARMUP_RUNS} warm-up runs; MB/s = 10^6 bytes/s`);
  console.log(`previous = ${arg('--baseline') ?? BASELINE_REF}:server/redact.ts, current = this tree's dist/server/redact/index.js`);
  const cols = ['prev wall', 'prev CPU', 'cur wall', 'cur CPU', 'cur/prev'];
  console.log(`${'case'.padEnd(56)} ${cols.map((c) => c.padStart(9)).join(' ')}`);
  for (const [name, r] of Object.entries(results)) {
    const row = [r.previous.wallMBps, r.previous.cpuMBps, r.current.wallMBps, r.current.cpuMBps, (r.current.cpuMBps / r.previous.cpuMBps).toFixed(2) + 'x'];
    console.log(`${name.padEnd(56)} ${row.map((v) => String(v).padStart(9)).join(' ')}`);
  }
  for (const [name, r] of Object.entries(ratios)) console.log(`${name.padEnd(56)} ${String(r).padStart(9)}x`);
  console.log(`\nstreamed = redact/stream-redact.ts StreamRedactor (push every piece, then flush), whole = redact() of the same text`);
  const streamCols = ['whole wall', 'whole CPU', 'strm wall', 'strm CPU', 'strm/whole', 'strm ms'];
  console.log(`${'case'.padEnd(70)} ${streamCols.map((c) => c.padStart(10)).join(' ')}`);
  for (const [name, r] of Object.entries(streamResults)) {
    const row = [r.whole.wallMBps, r.whole.cpuMBps, r.streamed.wallMBps, r.streamed.cpuMBps, (r.streamed.cpuMBps / r.whole.cpuMBps).toFixed(2) + 'x', r.streamed.cpuMs];
    console.log(`${name.padEnd(70)} ${row.map((v) => String(v).padStart(10)).join(' ')}`);
  }
}
