// GET /api/search over HTTP on the yardstick (bench/history/: a history built through Satchel's import), beside
// its floor in the same run: a bare FTS5 query returning the same number of ranked rows (rowid and the first
// characters Satchel reads of each: `SELECT rowid, substr(text, 1, 8192) FROM search WHERE search MATCH ? ORDER
// BY rank LIMIT 20`) through the same `sqlite3` binding on the same database file, with the same MATCH expression
// (the server's own ftsQuery of the same words), in a child process of its own asked over IPC. Searches alternate
// server, floor, one at a time. Reported per kind of query: CPU ms per search of each process (/proc, bench/cpu.mjs)
// first, since the machine is shared, then wall p50/p95 and their ratios. Issue 37 finding 7: p95 ≤ 1.5× the floor.
// Usage: npm run build && node bench/history/generate.mjs --state-dir DIR --messages 200000
//        node bench/search.mjs --state DIR [--searches 200] [--dist dist]
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cpuMs } from './cpu.mjs';
import { arg, hasCommand, machine, median, pct, startChild } from './lib.mjs';

const STATE = arg('--state', undefined);
if (!STATE || !fs.existsSync(path.join(STATE, 'satchel.db'))) throw new Error('--state DIR: a history built by bench/history/generate.mjs');
const SEARCHES = Number(arg('--searches', 200));
const DIST = path.resolve(arg('--dist', 'dist'));
const LIMIT = 20;
const TOKEN = 'c'.repeat(43);
/** The target: search p95 at most this many times the floor's. */
const TARGET_P95_RATIO = 1.5;
/**
 * Searches before measuring (caches, JIT) on both sides. The server's path is long (HTTP, the store, the
 * redactor, the snippets): V8 was still optimizing ~86 of its functions during searches 20-220 (--trace-opt), and
 * its CPU per search fell from 7.4 to 4.7 ms between 20 and 1,000 searches before measuring; the floor's few lines
 * are warm after a handful. A server runs for hours: it is measured warm.
 */
const WARMUP = 300;

// The words a person would type: the corpus's words by frequency (bench/history/corpus.md).
const corpus = fs.readFileSync(new URL('./history/corpus.md', import.meta.url), 'utf8');
const counts = new Map();
for (const w of corpus.toLowerCase().match(/[a-z]{3,}/g)) counts.set(w, (counts.get(w) ?? 0) + 1);
const byRank = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w);
const prose = corpus.split('\n\n').filter((b) => !b.startsWith('```') && !b.startsWith('#') && b.split(/\s+/).length >= 12);
let seed = 37;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const ranked = () => byRank[100 + Math.floor(rand() * 4_900)];
const kinds = {
  'two words, rank 100-5,000': () => `${ranked()} ${ranked()}`,
  'two words, the second typed halfway': () => `${ranked()} ${ranked().slice(0, 3)}`,
  'a typed 9-word sentence': () => {
    const words = prose[Math.floor(rand() * prose.length)].split(/\s+/).filter(Boolean);
    const at = Math.floor(rand() * (words.length - 9));
    return words.slice(at, at + 9).join(' ');
  },
  'one very common word': (() => {
    const common = byRank.slice(0, 8);
    let i = 0;
    return () => common[i++ % common.length];
  })(),
};

const { ftsQuery } = await import(path.join(DIST, 'server', 'store', 'db', 'search-query.js'));
const { child: server, info } = await startChild(
  `const { startServer } = await import(${JSON.stringify(path.join(DIST, 'server', 'index.js'))});
const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: ${JSON.stringify(path.resolve(STATE))}, token: ${JSON.stringify(TOKEN)}, maxUploadBytes: 1 << 20, preloadSpeech: false });
console.log(JSON.stringify({ port: s.port }));`,
);
// The floor: the same binding (resolved from this checkout's node_modules), read-only, pinned like the server.
const floorFile = path.resolve('bench', '.search-floor.cjs');
fs.writeFileSync(
  floorFile,
  `const sqlite3 = require(${JSON.stringify(path.resolve('node_modules', 'sqlite3'))});
const db = new sqlite3.Database(${JSON.stringify(path.join(path.resolve(STATE), 'satchel.db'))}, sqlite3.OPEN_READONLY);
process.on('message', (match) => db.all('SELECT rowid, substr(text, 1, 8192) AS head FROM search WHERE search MATCH ? ORDER BY rank LIMIT ${LIMIT + 1}', [match], (err, rows) => process.send(err ? { error: String(err) } : { rows: rows.length })));
process.send('ready');`,
);
const wrap = hasCommand('taskset') ? ['taskset', '-c', '0', process.execPath] : [process.execPath];
const floor = fork(floorFile, [], { execPath: wrap[0], execArgv: wrap.slice(1) });
await new Promise((resolve) => floor.once('message', resolve));
const stop = () => {
  server.kill('SIGTERM');
  floor.kill('SIGTERM');
  fs.rmSync(floorFile, { force: true });
};
process.on('exit', stop);

async function viaServer(q) {
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${info.port}/api/search?q=${encodeURIComponent(q)}&limit=${LIMIT}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${q}: ${res.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - t0, results: body.results.length };
}
function viaFloor(q) {
  const match = ftsQuery(q);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    floor.once('message', (m) => (m.error ? reject(new Error(m.error)) : resolve({ ms: performance.now() - t0, results: Math.min(LIMIT, m.rows) })));
    floor.send(match);
  });
}

// A start's own work (the daily backup, the attachment-text backfill) would count as the searches' CPU: wait until
// the server is idle (under IDLE_CPU_MS a second), up to IDLE_WAIT_S.
const IDLE_CPU_MS = 20;
const IDLE_WAIT_S = 120;
for (let s = 0; s < IDLE_WAIT_S; s++) {
  const c0 = cpuMs(server.pid);
  await new Promise((r) => setTimeout(r, 1_000));
  if (cpuMs(server.pid) - c0 < IDLE_CPU_MS) break;
}
for (let i = 0; i < WARMUP; i++) {
  const q = kinds['two words, rank 100-5,000']();
  await viaServer(q);
  await viaFloor(q);
}
const manifest = fs.existsSync(path.join(STATE, 'history.json')) ? JSON.parse(fs.readFileSync(path.join(STATE, 'history.json'), 'utf8')) : {};
console.log(`machine: ${machine()}`);
console.log(`history: ${manifest.messages ?? '?'} messages in ${manifest.conversations ?? '?'} conversations (bench/history, seed ${manifest.seed ?? '?'}); server and floor pinned to core ${hasCommand('taskset') ? 0 : 'any'}; limit ${LIMIT}\n`);
console.log('| query | searches | server CPU ms/search | floor CPU ms/search | CPU ratio | server p50 / p95 ms | floor p50 / p95 ms | p95 ratio | results (median) |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [label, make] of Object.entries(kinds)) {
  const n = label === 'one very common word' ? Math.max(8, Math.round(SEARCHES / 4)) : SEARCHES;
  const s = { ms: [], cpu: 0, results: [] };
  const f = { ms: [], cpu: 0 };
  for (let i = 0; i < n; i++) {
    const q = make();
    // Alternate which goes first, so neither always meets the other's leftovers in the page cache.
    const order = i % 2 === 0 ? ['s', 'f'] : ['f', 's'];
    for (const side of order) {
      const pid = side === 's' ? server.pid : floor.pid;
      const c0 = cpuMs(pid);
      const r = side === 's' ? await viaServer(q) : await viaFloor(q);
      const cpu = cpuMs(pid) - c0;
      if (side === 's') (s.ms.push(r.ms), (s.cpu += cpu), s.results.push(r.results));
      else (f.ms.push(r.ms), (f.cpu += cpu));
    }
  }
  const p95 = pct(s.ms, 95) / pct(f.ms, 95);
  console.log(
    `| ${label} | ${n} | ${(s.cpu / n).toFixed(2)} | ${(f.cpu / n).toFixed(2)} | ${(s.cpu / f.cpu).toFixed(2)} | ${median(s.ms).toFixed(1)} / ${pct(s.ms, 95).toFixed(1)} | ${median(f.ms).toFixed(1)} / ${pct(f.ms, 95).toFixed(1)} | ${p95.toFixed(2)} ${p95 <= TARGET_P95_RATIO ? '(≤ 1.5)' : '(OVER 1.5)'} | ${median(s.results)} |`,
  );
}
stop();
