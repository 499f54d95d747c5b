// Redaction throughput. Build first: `npx tsc -p tsconfig.json && node bench/redact.mjs [--runs N] [--json]`.
// Corpora are generated from a fixed seed, so every run measures the same text. Long inputs (1 MiB) bypass the
// memo cache by design (it only holds strings up to 16384 characters); the "unique 1 KiB strings" cases go
// through redact() with a fresh string each call, so every call misses the cache and pays insert + eviction.
import { performance } from 'node:perf_hooks';
import { median } from './lib.mjs';

const { redact, clearRedactCache, VENDOR_SHAPES } = await import(new URL('../dist/server/redact.js', import.meta.url).href);

const MiB = 1 << 20;
const SECRET_EVERY = 2048; // characters between planted secrets
const SMALL = 1024; // size of the unique strings in the per-call cases
const WARMUP_RUNS = 5;
const TARGET_PROSE_MBPS = 100;
const TARGET_SECRETS_MBPS = 20;

const argv = process.argv.slice(2);
const RUNS = Number(argv[argv.indexOf('--runs') + 1]) || 21;
const JSON_OUT = argv.includes('--json');

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
function big(text) {
  const variants = flat(Array.from({ length: WARMUP_RUNS + RUNS }, (_, i) => `${text.slice(0, MiB - 8)} ${String(i).padStart(6, '0')}`));
  return measure(Buffer.byteLength(variants[0]), (i) => redact(variants[i]));
}

/** 1 MiB as unique 1 KiB strings per run: every call misses the memo cache. */
function uniqueSmall(text) {
  const count = MiB / SMALL;
  const runs = flat(
    Array.from({ length: WARMUP_RUNS + RUNS }, (_, r) =>
      Array.from({ length: count }, (_, k) => `${r}:${k} ${text.slice(k * SMALL, (k + 1) * SMALL - 16)}`),
    ),
  );
  clearRedactCache();
  return measure(Buffer.byteLength(runs[0].join('')), (i) => {
    for (const s of runs[i]) redact(s);
  });
}

/** The same 1 KiB strings every run: after the first run every call is a cache hit. */
function cachedSmall(text) {
  const count = MiB / SMALL;
  const strings = flat(Array.from({ length: count }, (_, k) => `${k} ${text.slice(k * SMALL, (k + 1) * SMALL - 8)}`));
  clearRedactCache();
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
for (let i = 0; i < GLOBAL_WARMUP_ROUNDS; i++) for (const t of [proseText, secretText, codeText, codeSecretText]) redact(t);

const results = {
  'prose, 1 MiB, no secrets': big(proseText),
  'prose, 1 MiB, a secret every 2 KiB': big(secretText),
  'code, 1 MiB, no secrets': big(codeText),
  'code, 1 MiB, a secret every 2 KiB': big(codeSecretText),
  'prose, unique 1 KiB strings (cache misses)': uniqueSmall(proseText),
  'prose + secrets, unique 1 KiB strings (cache misses)': uniqueSmall(secretText),
  'prose + secrets, repeated 1 KiB strings (cache hits)': cachedSmall(secretText),
};

// The design this replaced found vendor prefixes with one alternation of every literal prefix. Its trigger scan
// alone (no rule work at all) is timed here on the same prose, as the baseline for the separator trigger.
const escape = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const authorization = [...'authorization'].map((c) => `[${c.toUpperCase()}${c}]`).join('');
const literalTrigger = new RegExp(
  ['=', authorization, ...VENDOR_SHAPES.map((v) => v.prefix).sort((a, b) => b.length - a.length).map(escape)].join('|'),
  'g',
);
const flatProse = flat(proseText);
const baseline = measure(Buffer.byteLength(flatProse), () => {
  literalTrigger.lastIndex = 0;
  let hits = 0;
  while (literalTrigger.test(flatProse)) hits++;
  return hits;
});
results['baseline: literal-alternation trigger scan only, prose 1 MiB'] = baseline;

const ratios = {
  'full redact / old trigger scan alone, prose (CPU-time median)': Number(
    (results['prose, 1 MiB, no secrets'].cpuMBps / baseline.cpuMBps).toFixed(2),
  ),
  'prose / 100 MB/s target (CPU-time median)': Number((results['prose, 1 MiB, no secrets'].cpuMBps / TARGET_PROSE_MBPS).toFixed(2)),
  'secrets / 20 MB/s target (CPU-time median)': Number(
    (results['prose, 1 MiB, a secret every 2 KiB'].cpuMBps / TARGET_SECRETS_MBPS).toFixed(2),
  ),
  'secrets / no secrets, prose (CPU-time median)': Number(
    (results['prose, 1 MiB, a secret every 2 KiB'].cpuMBps / results['prose, 1 MiB, no secrets'].cpuMBps).toFixed(2),
  ),
};

if (JSON_OUT) {
  console.log(JSON.stringify({ node: process.version, runs: RUNS, results, ratios }, null, 2));
} else {
  console.log(`node ${process.version}, ${RUNS} runs each after ${WARMUP_RUNS} warm-up runs; MB/s = 10^6 bytes/s`);
  console.log(`${'case'.padEnd(64)} ${'wall med'.padStart(9)} ${'CPU med'.padStart(9)} ${'wall best'.padStart(9)}`);
  for (const [name, r] of Object.entries(results)) {
    console.log(`${name.padEnd(64)} ${String(r.wallMBps).padStart(9)} ${String(r.cpuMBps).padStart(9)} ${String(r.bestMBps).padStart(9)}`);
  }
  for (const [name, r] of Object.entries(ratios)) console.log(`${name.padEnd(64)} ${String(r).padStart(9)}x`);
}
