// GET /api/search over HTTP on the yardstick (bench/history/: a history built through Satchel's import), beside
// two floors in the same run, each through the same `sqlite3` binding on the same database file with the same
// MATCH expression (the server's own ftsQuery of the same words), each a process of its own pinned like the server:
// - the in-process floor: a bare FTS5 query returning the same number of ranked rows (rowid and the first
//   characters Satchel reads of each: `SELECT rowid, substr(text, 1, 8192) FROM search WHERE search MATCH ? ORDER
//   BY rank LIMIT 21`), asked over IPC. No HTTP at all: what SQLite alone costs.
// - the HTTP floor: the bare FTS5 query behind a bare `node:http` server, the 20 ranked rows with their snippet()
//   as JSON (`SELECT rowid, snippet(search, 0, '', '', '…', 14) … ORDER BY rank LIMIT 20`), asked by fetch as the
//   page asks Satchel. This is the floor the target is read against: a search the page makes is a request, and a
//   request alone costs ~1 ms of CPU on this machine (docs/benchmarks.md, issue 37 finding 7, session 14), which a
//   floor asked in process never pays.
// Searches alternate server and floors, one at a time, the order rotating. Reported per kind of query: CPU ms per
// search of each process (/proc, bench/cpu.mjs) first, since the machine is shared, then wall p50/p95 and the
// ratios. Issue 37 finding 7: p95 ≤ 1.5× the floor.
// Usage: npm run build && node bench/history/generate.mjs --state-dir DIR --messages 200000
//        node bench/search.mjs --state DIR [--searches 200] [--dist dist]
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cpuMs } from './cpu.mjs';
import { arg, hasCommand, machine, median, pct, startChild } from './lib.mjs';
import { pickWords } from './search-words.mjs';

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

const kinds = pickWords(37, ['two words, rank 100-5,000', 'two words, the second typed halfway', 'a typed 9-word sentence', 'one very common word']);

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
// The HTTP floor: nothing but node:http, the binding and JSON; the MATCH expression comes as `?match=`.
const { child: httpFloor, info: httpFloorInfo } = await startChild(
  `import http from 'node:http';
import { createRequire } from 'node:module';
const sqlite3 = createRequire(import.meta.url)(${JSON.stringify(path.resolve('node_modules', 'sqlite3'))});
const db = new sqlite3.Database(${JSON.stringify(path.join(path.resolve(STATE), 'satchel.db'))}, sqlite3.OPEN_READONLY);
const sql = "SELECT rowid, snippet(search, 0, '', '', '…', 14) AS snippet FROM search WHERE search MATCH ? ORDER BY rank LIMIT ${LIMIT}";
const server = http.createServer((req, res) => {
  const match = new URL(req.url, 'http://x').searchParams.get('match');
  db.all(sql, [match], (err, rows) => {
    const body = JSON.stringify(err ? { error: String(err) } : { results: rows });
    res.writeHead(err ? 500 : 200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));`,
);
const stop = () => {
  server.kill('SIGTERM');
  floor.kill('SIGTERM');
  httpFloor.kill('SIGTERM');
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

async function viaHttpFloor(q) {
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${httpFloorInfo.port}/?match=${encodeURIComponent(ftsQuery(q))}`);
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${q}: ${res.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - t0, results: body.results.length };
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
  await viaHttpFloor(q);
}
const manifest = fs.existsSync(path.join(STATE, 'history.json')) ? JSON.parse(fs.readFileSync(path.join(STATE, 'history.json'), 'utf8')) : {};
console.log(`machine: ${machine()}`);
console.log(`history: ${manifest.messages ?? '?'} messages in ${manifest.conversations ?? '?'} conversations (bench/history, seed ${manifest.seed ?? '?'}); server and floors pinned to core ${hasCommand('taskset') ? 0 : 'any'}; limit ${LIMIT}`);
console.log('CPU ms per search; the target (p95 ≤ 1.5×) is read against the HTTP floor, the in-process floor shown beside it\n');
console.log('| query | searches | server CPU | HTTP floor CPU | in-process floor CPU | CPU ratio (HTTP floor; in-process) | server p50 / p95 ms | HTTP floor p50 / p95 ms | in-process floor p50 / p95 ms | p95 ratio (HTTP floor; in-process) | results (median) |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
const sides = {
  s: { pid: () => server.pid, ask: viaServer },
  h: { pid: () => httpFloor.pid, ask: viaHttpFloor },
  f: { pid: () => floor.pid, ask: viaFloor },
};
const ORDERS = [['s', 'h', 'f'], ['h', 'f', 's'], ['f', 's', 'h']];
for (const [label, make] of Object.entries(kinds)) {
  const n = label === 'one very common word' ? Math.max(8, Math.round(SEARCHES / 4)) : SEARCHES;
  const got = { s: { ms: [], cpu: 0, results: [] }, h: { ms: [], cpu: 0, results: [] }, f: { ms: [], cpu: 0, results: [] } };
  for (let i = 0; i < n; i++) {
    const q = make();
    // Rotate which goes first, so none always meets another's leftovers in the page cache.
    for (const side of ORDERS[i % ORDERS.length]) {
      const pid = sides[side].pid();
      const c0 = cpuMs(pid);
      const r = await sides[side].ask(q);
      got[side].cpu += cpuMs(pid) - c0;
      got[side].ms.push(r.ms);
      got[side].results.push(r.results);
    }
  }
  const { s, h, f } = got;
  const p95h = pct(s.ms, 95) / pct(h.ms, 95);
  const p95f = pct(s.ms, 95) / pct(f.ms, 95);
  const pp = (x) => `${median(x.ms).toFixed(1)} / ${pct(x.ms, 95).toFixed(1)}`;
  console.log(
    `| ${label} | ${n} | ${(s.cpu / n).toFixed(2)} | ${(h.cpu / n).toFixed(2)} | ${(f.cpu / n).toFixed(2)} | ${(s.cpu / h.cpu).toFixed(2)}; ${(s.cpu / f.cpu).toFixed(2)} | ${pp(s)} | ${pp(h)} | ${pp(f)} | ${p95h.toFixed(2)} ${p95h <= TARGET_P95_RATIO ? '(≤ 1.5)' : '(OVER 1.5)'}; ${p95f.toFixed(2)} | ${median(s.results)} |`,
  );
}
stop();
