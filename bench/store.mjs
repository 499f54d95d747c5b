// The session store at scale, SQLite (this build's dist/) side by side with the JSON files it replaced (the
// server of `--compare REV`, default 6563b6c, the commit before the database; any other build can be named), in one run,
// on the same generated history: 10,000 conversations and 200,000 messages of realistic lengths, one of them
// of 10,000 messages (9,600 generated, then the appends below bring it to the 10,000 a session may hold).
// For each store: server start (spawn to listening, against an empty state folder), GET /api/sessions, the
// server's resident memory (RSS) at start and after opening 2,000 conversations (GET /api/session each), and
// POST /api/session/message into the long conversation (each request until its answer: the whole session, then
// with `answer: "summary"`, the summary and the stored row, which the JSON store does not know and answers whole),
// and the same appends through SessionStore.addMessage alone in a child (what the store costs). For SQLite also the
// one-time import of the JSON files and an FTS5 query with bm25 ranking and a snippet (the index search uses).
// Usage: node bench/store.mjs [--runs N] [--conversations N] [--messages N] [--appends N] [--compare REV]
// (after `npm run build`; from the repository root).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { generate, query, text } from './history.mjs';
import { arg, buildRevision, hasCommand, machine, median, pct } from './lib.mjs';

const RUNS = Number(arg('--runs', 3));
const CONVERSATIONS = Number(arg('--conversations', 10_000));
const MESSAGES = Number(arg('--messages', 200_000));
/** Appends into the long conversation per run; it is generated this many short of MAX_MESSAGES_PER_SESSION. */
const APPENDS = Number(arg('--appends', 200));
// Appended three times (over HTTP answered whole, then in summary, then through the store alone), so generated
// this many short of the 10,000 a session may hold.
const LONG = 10_000 - 3 * APPENDS;
/** Conversations opened (GET /api/session) before the server's memory is read the second time. */
const OPENED = Math.min(2_000, CONVERSATIONS - 1);
const LIST_CALLS = 20;
const SEARCHES = 50;
/** The last commit of the JSON-file store (main has had the database since): the default to compare with. */
const JSON_STORE_COMMIT = '6563b6c';
const COMPARE = arg('--compare', JSON_STORE_COMMIT);
const TOKEN = 'b'.repeat(43);
const START_DEADLINE_MS = 600_000;


/** Every server child started, stopped if this script ends early (an error, Ctrl-C). */
const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Start the server of `dist` on `stateDir` in a child (pinned to core 0); resolves with its port and the ms from spawn to listening. */
function startServer(dist, stateDir) {
  const url = new URL(`file://${path.join(dist, 'server', 'index.js')}`).href;
  const script = `const { startServer } = await import(${JSON.stringify(url)});
const s = await startServer({ host: '127.0.0.1', port: 0, stateDir: ${JSON.stringify(stateDir)}, token: ${JSON.stringify(TOKEN)}, maxUploadBytes: 1 << 20, preloadSpeech: false });
console.log(JSON.stringify({ port: s.port }));
process.on('SIGTERM', () => s.close().then(() => process.exit(0)));
// The bench asks for memory after a full collection: RSS alone keeps what V8 has not given back yet.
process.on('SIGUSR2', () => { globalThis.gc(); const m = process.memoryUsage(); console.log(JSON.stringify({ rss: m.rss, heap: m.heapUsed })); });`;
  const args = hasCommand('taskset') ? ['taskset', '-c', '0', process.execPath] : [process.execPath];
  const started = process.hrtime.bigint();
  const child = spawn(args[0], [...args.slice(1), '--expose-gc', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, SATCHEL_LOG_LEVEL: 'error' } });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('server did not start')), START_DEADLINE_MS);
    let listening = false;
    child.stdout.on('data', (d) => {
      out += d;
      // Later lines are the memory answers, read by memory() below.
      if (listening) return;
      const nl = out.indexOf('\n');
      if (nl === -1) return;
      listening = true;
      clearTimeout(timer);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const { port } = JSON.parse(out.slice(0, nl));
      out = out.slice(nl + 1);
      resolve({
        /** RSS and heap used after a full collection, in MiB. */
        memory: () =>
          new Promise((r) => {
            // Listeners run in order: the one above has appended the chunk by the time this one reads.
            const read = () => {
              const at = out.indexOf('\n');
              if (at === -1) return;
              child.stdout.off('data', read);
              const m = JSON.parse(out.slice(0, at));
              out = out.slice(at + 1);
              r({ rss: m.rss / 2 ** 20, heap: m.heap / 2 ** 20 });
            };
            child.stdout.on('data', read);
            child.kill('SIGUSR2');
          }),
        ms,
        port,
        stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))),
      });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
}

/** `APPENDS` messages appended through the store itself (no HTTP, no response), in a child pinned to core 0: ms each. */
function storeAppends(dist, stateDir, id) {
  const url = new URL(`file://${path.join(dist, 'server', 'store', 'sessions.js')}`).href;
  const script = `const { SessionStore } = await import(${JSON.stringify(url)});
const store = new SessionStore(${JSON.stringify(stateDir)});
await store.load();
await store.get(${JSON.stringify(id)});
const ms = [];
for (let i = 0; i < ${APPENDS}; i++) {
  const t0 = performance.now();
  await store.addMessage(${JSON.stringify(id)}, ${JSON.stringify(text(300))}, []);
  ms.push(performance.now() - t0);
}
await store.close?.();
console.log(JSON.stringify(ms));`;
  const args = hasCommand('taskset') ? ['taskset', '-c', '0', process.execPath] : [process.execPath];
  const r = spawnSync(args[0], [...args.slice(1), '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, SATCHEL_LOG_LEVEL: 'error' }, maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`store appends failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

async function timed(port, pathname, body) {
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}${pathname}`, {
    method: body ? 'POST' : 'GET',
    headers: { Authorization: `Bearer ${TOKEN}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${pathname}: ${res.status}`);
  return performance.now() - t0;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-store-bench-'));
const history = path.join(work, 'history');
let t0 = performance.now();
const ids = generate(history, { conversations: CONVERSATIONS, messages: MESSAGES, long: LONG });
const bytes = Number(execFileSync('du', ['-sb', path.join(history, 'sessions')], { encoding: 'utf8' }).split('\t')[0]);
console.error(`generated ${CONVERSATIONS} conversations, ${MESSAGES} messages, ${(bytes / 2 ** 20).toFixed(0)} MiB of JSON in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const { commit, out: jsonDist } = buildRevision(COMPARE, 'store');
const stores = { sqlite: path.resolve('dist'), [`${COMPARE === JSON_STORE_COMMIT ? 'JSON files' : 'build'} (${commit})`]: jsonDist };
const results = Object.fromEntries(Object.keys(stores).map((k) => [k, { emptyStart: [], start: [], list: [], append: [], summaryAppend: [], listAfterChange: [], storeAppend: [], rssStart: [], rssOpened: [], heapStart: [], heapOpened: [] }]));
const importMs = [];
const searchMs = [];

for (let run = 0; run < RUNS; run++) {
  for (const [name, dist] of Object.entries(stores)) {
    const r = results[name];
    const empty = path.join(work, `empty-${name}-${run}`);
    fs.mkdirSync(empty);
    const e = await startServer(dist, empty);
    r.emptyStart.push(e.ms);
    await e.stop();
    const state = path.join(work, `state-${run}`);
    fs.rmSync(state, { recursive: true, force: true });
    fs.cpSync(history, state, { recursive: true });
    if (name === 'sqlite') {
      // The first start imports the JSON files (once in a person's life); the start measured is the next one.
      const first = await startServer(dist, state);
      importMs.push(first.ms);
      await first.stop();
    }
    const s = await startServer(dist, state);
    r.start.push(s.ms);
    let m = await s.memory();
    r.rssStart.push(m.rss);
    r.heapStart.push(m.heap);
    for (let i = 0; i < LIST_CALLS; i++) r.list.push(await timed(s.port, '/api/sessions'));
    for (const id of ids.slice(1, 1 + OPENED)) await timed(s.port, `/api/session?session_id=${id}`);
    m = await s.memory();
    r.rssOpened.push(m.rss);
    r.heapOpened.push(m.heap);
    for (let i = 0; i < APPENDS; i++) r.append.push(await timed(s.port, '/api/session/message', { session_id: ids[0], text: text(300) }));
    for (let i = 0; i < APPENDS; i++) {
      r.summaryAppend.push(await timed(s.port, '/api/session/message', { session_id: ids[0], text: text(300), answer: 'summary' }));
      // What a window's list shows after each message: the list once one listing has changed.
      if (i < LIST_CALLS) r.listAfterChange.push(await timed(s.port, '/api/sessions'));
    }
    await s.stop();
    r.storeAppend.push(...storeAppends(dist, state, ids[0]));
    if (name === 'sqlite') {
      const require = createRequire(path.resolve('package.json'));
      const sqlite3 = require('sqlite3');
      const db = new sqlite3.Database(path.join(state, 'satchel.db'), sqlite3.OPEN_READONLY);
      const all = (sql, p) => new Promise((res, rej) => db.all(sql, p, (err, rows) => (err ? rej(err) : res(rows))));
      for (let i = 0; i < SEARCHES; i++) {
        const q = query();
        t0 = performance.now();
        await all(
          `SELECT d.session_id, d.kind, d.position, snippet(search, 0, '<mark>', '</mark>', '…', 12) AS snip
           FROM search JOIN search_docs d ON d.id = search.rowid WHERE search MATCH ? ORDER BY bm25(search) LIMIT 50`,
          [q],
        );
        searchMs.push(performance.now() - t0);
      }
      await new Promise((res) => db.close(res));
    }
    fs.rmSync(state, { recursive: true, force: true });
  }
}
fs.rmSync(work, { recursive: true, force: true });

console.log(`machine: ${machine()}`);
console.log(`history: ${CONVERSATIONS} conversations, ${MESSAGES} messages (${(bytes / 2 ** 20).toFixed(0)} MiB as JSON files), one of ${LONG} + 3 × ${APPENDS} appended; runs: ${RUNS}, stores alternated; load before: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}\n`);
const names = Object.keys(stores);
const [db, json] = names.map((n) => results[n]);
const line = (label, a, b, f = (x) => x.toFixed(1)) => console.log(`| ${label} | ${f(a)} | ${f(b)} | ${(b / a).toFixed(1)}× |`);
console.log(`| median of ${RUNS} runs, ms | SQLite (this build) | ${names[1]} | JSON / SQLite |`);
console.log('|---|---|---|---|');
line('server start, empty state folder', median(db.emptyStart), median(json.emptyStart), (x) => x.toFixed(0));
line(`server start, the history`, median(db.start), median(json.start), (x) => x.toFixed(0));
line('start over empty (budget +300 ms)', median(db.start) - median(db.emptyStart), median(json.start) - median(json.emptyStart), (x) => x.toFixed(0));
line(`GET /api/sessions, median of ${LIST_CALLS * RUNS}`, median(db.list), median(json.list));
line(`GET /api/sessions, p95`, pct(db.list, 95), pct(json.list, 95));
line(`GET /api/sessions just after an append, median of ${LIST_CALLS * RUNS}`, median(db.listAfterChange), median(json.listAfterChange));
line(`GET /api/sessions just after an append, p95`, pct(db.listAfterChange, 95), pct(json.listAfterChange, 95));
line(`append in the long conversation over HTTP, answered whole, median of ${APPENDS * RUNS}`, median(db.append), median(json.append));
line(`append in the long conversation over HTTP, answered whole, p95`, pct(db.append, 95), pct(json.append, 95));
line(`append over HTTP, \`answer: "summary"\` (JSON store: whole), median of ${APPENDS * RUNS}`, median(db.summaryAppend), median(json.summaryAppend), (x) => x.toFixed(2));
line(`append over HTTP, \`answer: "summary"\` (JSON store: whole), p95`, pct(db.summaryAppend, 95), pct(json.summaryAppend, 95), (x) => x.toFixed(2));
line(`… through the store alone (no HTTP), median of ${APPENDS * RUNS}`, median(db.storeAppend), median(json.storeAppend), (x) => x.toFixed(2));
line(`… through the store alone (no HTTP), p95`, pct(db.storeAppend, 95), pct(json.storeAppend, 95), (x) => x.toFixed(2));
const mib = (label, a, b) => console.log(`| ${label}, MiB | ${median(a).toFixed(0)} | ${median(b).toFixed(0)} | ${(median(b) / median(a)).toFixed(1)}× |`);
mib('server RSS at start (after a full GC)', db.rssStart, json.rssStart);
mib(`server RSS after opening ${OPENED} conversations (after a full GC)`, db.rssOpened, json.rssOpened);
mib('JS heap used at start', db.heapStart, json.heapStart);
mib(`JS heap used after opening ${OPENED} conversations`, db.heapOpened, json.heapOpened);
console.log(`load after: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`\nSQLite only: first start importing the ${CONVERSATIONS} JSON files, median ${(median(importMs) / 1000).toFixed(1)} s (${importMs.map((x) => (x / 1000).toFixed(1)).join(', ')});`);
console.log(`FTS5 query (two words of rank 100-5,000, both required, bm25, snippet, 50 best) over ${MESSAGES} messages: median ${median(searchMs).toFixed(1)} ms, p95 ${pct(searchMs, 95).toFixed(1)} ms of ${searchMs.length}.`);
