// GET /api/search over HTTP on the generated history (bench/history.mjs): 10,000 conversations, 200,000 messages
// of realistic lengths, one of 10,000. The history is imported into the database first (the JSON import, in a
// child, not timed here: bench/store.mjs measures it), then this build's server (dist/) answers searches one at a
// time, each until its whole answer: the budget is a p95 of 100 ms.
// Usage: npm run build && node bench/search.mjs [--conversations N] [--messages N] [--searches N]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generate, query } from './history.mjs';
import { hasCommand, machine, median, startChild } from './lib.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1];
};
const CONVERSATIONS = Number(arg('--conversations', 10_000));
const MESSAGES = Number(arg('--messages', 200_000));
const SEARCHES = Number(arg('--searches', 200));
const LIMIT = 20;
const TOKEN = 'c'.repeat(43);
/** The budget for a search's p95. */
const BUDGET_P95_MS = 100;

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-search-bench-'));
const state = path.join(work, 'state');
let t0 = performance.now();
generate(state, { conversations: CONVERSATIONS, messages: MESSAGES, long: Math.min(10_000, MESSAGES) });
console.error(`generated ${CONVERSATIONS} conversations, ${MESSAGES} messages in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const dist = path.resolve('dist');
const store = new URL(`file://${path.join(dist, 'server', 'store', 'sessions.js')}`).href;
t0 = performance.now();
const imported = spawnSync(
  process.execPath,
  ['--input-type=module', '-e', `const { SessionStore } = await import(${JSON.stringify(store)}); const s = new SessionStore(${JSON.stringify(state)}); await s.load(); await s.close();`],
  { encoding: 'utf8', env: { ...process.env, SATCHEL_LOG_LEVEL: 'error' } },
);
if (imported.status !== 0) throw new Error(`import failed:\n${imported.stderr}`);
console.error(`imported into the database in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const server = new URL(`file://${path.join(dist, 'server', 'index.js')}`).href;
const { child, info } = await startChild(
  `const { startServer } = await import(${JSON.stringify(server)});
const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: ${JSON.stringify(state)}, token: ${JSON.stringify(TOKEN)}, maxUploadBytes: 1 << 20, preloadSpeech: false });
console.log(JSON.stringify({ port: s.port }));`,
);
process.on('exit', () => child.kill('SIGKILL'));

async function timed(q) {
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${info.port}/api/search?q=${encodeURIComponent(q)}&limit=${LIMIT}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${q}: ${res.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - started, results: body.results.length };
}

/** Query kinds: what a person types. */
const kinds = {
  // Two words of rank 100-5,000 (a name, a topic), the second matched as a prefix.
  'two words, rank 100-5,000': () => query(),
  // The same, the second word typed halfway (3 letters): a prefix matching many words.
  'two words, the second typed halfway': () => {
    const [a, b] = query().split(' ');
    return `${a} ${b.slice(0, 3)}`;
  },
  // One very common word: it matches most of the 210,000 indexed rows, all ranked (the worst case).
  'one very common word (the, of, plan...)': (() => {
    const common = ['the', 'of', 'and', 'plan', 'report', 'file', 'python', 'budget'];
    let i = 0;
    return () => common[i++ % common.length];
  })(),
};

for (let i = 0; i < 5; i++) await timed(query());
console.log(`machine: ${machine()}`);
console.log(`history: ${CONVERSATIONS} conversations, ${MESSAGES} messages; server pinned to core ${hasCommand('taskset') ? 0 : 'any'}; limit ${LIMIT}\n`);
console.log(`| GET /api/search over HTTP, ms | searches | median | p95 | max | results (median) |`);
console.log('|---|---|---|---|---|---|');
let worstTypical = 0;
for (const [label, make] of Object.entries(kinds)) {
  const n = label.startsWith('one very common') ? Math.max(8, Math.round(SEARCHES / 4)) : SEARCHES;
  const ms = [];
  const counts = [];
  for (let i = 0; i < n; i++) {
    const r = await timed(make());
    ms.push(r.ms);
    counts.push(r.results);
  }
  if (!label.startsWith('one very common')) worstTypical = Math.max(worstTypical, pct(ms, 95));
  console.log(`| ${label} | ${n} | ${median(ms).toFixed(1)} | ${pct(ms, 95).toFixed(1)} | ${Math.max(...ms).toFixed(1)} | ${median(counts)} |`);
}
console.log(`\np95 of the typed searches ${worstTypical.toFixed(1)} ms: ${worstTypical <= BUDGET_P95_MS ? 'within' : 'OVER'} the ${BUDGET_P95_MS} ms budget`);
child.kill('SIGTERM');
fs.rmSync(work, { recursive: true, force: true });
