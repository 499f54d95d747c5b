// Issue 37, finding 3's import: a large import (an "Export all" of the 20k history imported back: 200 conversations,
// 20,000 messages; and its 10,000-message conversation alone) stored by SessionStore.insertAll while another
// conversation is appended to, one append after another, in Satchel's store (a child pinned to core 0: this build's
// and `--before REV`, the commit before the batched import), beside bare SQLite (the same node-sqlite3 binding, a
// copy of the same empty database, one connection with its transactions queued in order as the store's) storing
// the same rows (the row, its search text) in one transaction and in batches of --batch rows. Reported per variant:
// the import's CPU alone (/proc/self/stat utime+stime), each transaction's CPU (getrusage between them), the
// longest and the median append wait during the import, and, after the import alone (its index merges finished),
// the index's segments and the CPU of a search. Medians over --runs.
// Session 14 added, for Satchel's variants: each transaction's own CPU (from BEGIN's turn to COMMIT, the
// connection held: Db.prototype.transaction wrapped in the child) beside the interval's between two batches, and
// the event loop's longest turn while the import ran alone: its CPU (process.cpuUsage between two setImmediate
// ticks) and its wall time (perf_hooks.monitorEventLoopDelay).
// Session 15 added: the transactions that show the imported conversations once their rows are stored (one
// before, a header rewrite per conversation; bounded slices after), their count and the CPU inside the longest; the
// p99 of the append waits and how many waited over 50 ms; and a workload `many` (2,000 conversations: each of the
// history's cut in ten, as many headers to show as the 200k history's Export all).
// Usage: node bench/import-writes.mjs [--runs N] [--before REV] [--history DIR] [--batch N] [--variants satchel|all]
//        [--workloads all,long,many]
// (from the repository root; builds both revisions into .cache/ once; DIR is copied, never opened in place).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { arg, buildRevision, hasCommand, machine, median, pct } from './lib.mjs';

const RUNS = Number(arg('--runs', 3));
/** The core the children are pinned to (two benches at once: one each). */
const CORE = Number(arg('--core', 0));
/** The last commit with the import in one transaction and FTS5's automerge. */
const BEFORE = arg('--before', '6a95358');
/** The build measured as after (HEAD by default). */
const AFTER = arg('--after', 'HEAD');
const HISTORY = arg('--history', '/tmp/yard-h20k');
/** The store's IMPORT_ROWS_PER_BATCH, for the bare batched floor. */
const BATCH = Number(arg('--batch', 25));
const APPENDED = '0000000000ab';
/** `satchel`: Satchel's two builds only (the bare variants take minutes each on a loaded machine). */
const VARIANTS = arg('--variants', 'all');
/** Which workloads: `all` (the Export all), `long` (the 10,000-message conversation), `many` (2,000 conversations). */
const WORKLOADS = arg('--workloads', 'all,long').split(',');

/** The child's CPU time so far (ms), from /proc/self/stat: utime + stime in clock ticks (100 Hz). */
const CPU = `const cpuMs = () => { const s = require('node:fs').readFileSync('/proc/self/stat', 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return (Number(f[11]) + Number(f[12])) * 10; };`;

/** After the import: the index's segments (FTS5's structure record) and the CPU of one search (ms), on the file. */
const INDEX = `
const indexHealth = async (file) => {
  const sqlite3 = require('sqlite3');
  const db = await new Promise((r, j) => { const d = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (e) => (e ? j(e) : r(d))); });
  const get = (sql, p = []) => new Promise((r, j) => db.get(sql, p, (e, row) => (e ? j(e) : r(row))));
  const b = (await get('SELECT block FROM search_data WHERE id = 10')).block;
  let i = 4; if (b.readUInt32BE(4) === 0xff000001) i += 4;
  const v = () => { let x = 0; for (let k = 0; k < 9; k++) { const c = b[i++]; x = x * 128 + (c & 127); if (!(c & 128)) break; } return x; };
  const levels = v(); const segments = v();
  const queries = ['the', 'server error', 'python deploy', 'invoice*', 'w1a*', 'garden music photo', 'th*', 'report plan budget meeting'];
  for (const q of queries) await new Promise((r, j) => db.all('SELECT rowid FROM search WHERE search MATCH ? ORDER BY rank LIMIT 21', [q], (e) => (e ? j(e) : r())));
  const t = process.cpuUsage();
  for (let k = 0; k < 10; k++) for (const q of queries) await new Promise((r, j) => db.all('SELECT rowid FROM search WHERE search MATCH ? ORDER BY rank LIMIT 21', [q], (e) => (e ? j(e) : r())));
  const d = process.cpuUsage(t);
  await new Promise((r) => db.close(r));
  return { levels, segments, searchMs: (d.user + d.system) / 1000 / (10 * queries.length) };
};`;

function child(script, input) {
  const file = path.join(os.tmpdir(), `import-writes-${process.pid}-${Math.random().toString(36).slice(2)}.mjs`);
  fs.writeFileSync(file, `import { createRequire } from 'node:module'; const require = createRequire(${JSON.stringify(path.resolve('package.json'))});\n${CPU}\n${INDEX}\nconst input = ${JSON.stringify(input)};\n${script}`);
  const args = hasCommand('taskset') ? ['taskset', '-c', String(CORE), process.execPath, file] : [process.execPath, file];
  return new Promise((resolve, reject) => {
    const proc = spawn(args[0], args.slice(1), { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, SATCHEL_LOG_LEVEL: 'error' } });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`child exited ${code}: ${file}`));
      fs.rmSync(file, { force: true });
      resolve(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}

/** Every conversation of the history (read through the store from a copy), and the empty store with APPENDED. */
const PREPARE = `
const fs = require('node:fs');
const { SessionStore } = await import(input.dist + '/server/store/sessions.js');
const source = new SessionStore(input.source);
await source.load();
const all = [];
for (const l of source.list()) all.push(await source.get(l.session_id));
await source.close();
fs.writeFileSync(input.all, JSON.stringify(all));
fs.writeFileSync(input.long, JSON.stringify(all.filter((s) => s.session_id === input.longId)));
// Each conversation cut in ten (its messages in ten runs, new ids, its attachments with the first): 2,000 headers.
const many = [];
for (const s of all) for (let k = 0; k < 10; k++) {
  const from = Math.floor((s.messages.length * k) / 10), to = Math.floor((s.messages.length * (k + 1)) / 10);
  many.push({ ...s, session_id: s.session_id.slice(0, 10) + k.toString(16).padStart(2, '0'), messages: s.messages.slice(from, to), attachments: k === 0 ? s.attachments : [] });
}
fs.writeFileSync(input.many, JSON.stringify(many));
const store = new SessionStore(input.template);
await store.load();
const at = '2025-01-01T00:00:00.000Z';
await store.insertAll([{ session_id: input.appended, title: 'Appended to', workspace: '/w', profile: 'default', created_at: at, updated_at: at, attachments: [],
  messages: Array.from({ length: 10 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: 'an earlier message ' + i, timestamp: 1_700_000_000 + i })) }]);
await store.close();
console.log(JSON.stringify({ conversations: all.length, messages: all.reduce((n, s) => n + s.messages.length, 0) }));`;

/** Satchel: insertAll while appends go into APPENDED one after another (or alone, then the index's health). */
const SATCHEL = `
const fs = require('node:fs');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { SessionStore } = await import(input.dist + '/server/store/sessions.js');
const { Db } = await import(input.dist + '/server/store/db/connection.js');
// Each transaction's own CPU: from the turn its work starts (BEGIN done) to its end, the connection held.
const transactions = [];
const transactionOf = Db.prototype.transaction;
Db.prototype.transaction = function (work) {
  return transactionOf.call(this, async (q) => {
    const at = process.cpuUsage();
    try { return await work(q); } finally { const d = process.cpuUsage(at); transactions.push((d.user + d.system) / 1000); }
  });
};
const loop = monitorEventLoopDelay({ resolution: 5 });
// The CPU of each turn of the event loop (a setImmediate each turn): how long the import held the loop, in CPU
// time, which load stretches far less than wall time.
const turns = { on: false, max: 0, at: undefined };
const turn = () => {
  if (!turns.on) return;
  const d = process.cpuUsage(turns.at);
  turns.max = Math.max(turns.max, (d.user + d.system) / 1000);
  turns.at = process.cpuUsage();
  setImmediate(turn);
};
const sessions = JSON.parse(fs.readFileSync(input.sessions, 'utf8'));
const store = new SessionStore(input.stateDir);
await store.load();
await store.addMessage(input.appended, 'warm up', []);
const waits = [];
// Each wait also in the child's CPU (one core, pinned): the work the process did meanwhile, the purge's or the
// import's transaction it waited behind and its own, which a loaded machine's scheduler does not stretch.
const cpuWaits = [];
const batches = [];
let mark = process.cpuUsage();
// The transactions after the last batch of rows are those that show the conversations (before: one).
let rowsDone = 0;
const batched = (phase) => { const d = process.cpuUsage(mark); batches.push((d.user + d.system) / 1000); mark = process.cpuUsage(); if (phase !== 'shown') rowsDone = transactions.length; };
let done = false;
transactions.length = 0;
loop.enable();
if (!input.appends) { turns.on = true; turns.at = process.cpuUsage(); setImmediate(turn); }
const cpu0 = cpuMs();
const t0 = performance.now();
const work = store.insertAll(sessions, batched).then(() => { done = true; return performance.now() - t0; });
while (!done && input.appends) {
  const a = performance.now();
  const ac = process.cpuUsage();
  await store.addMessage(input.appended, 'an append during the import ' + waits.length, []);
  waits.push(performance.now() - a);
  { const d = process.cpuUsage(ac); cpuWaits.push((d.user + d.system) / 1000); }
}
const wallMs = await work;
const cpu = cpuMs() - cpu0;
loop.disable();
turns.on = false;
const stallMs = loop.max / 1e6;
const turnCpuMs = turns.max;
const inTransactions = transactions.slice();
const showing = transactions.slice(rowsDone);
while (store.indexMerging) await new Promise((r) => setTimeout(r, 20));
const mergedCpu = cpuMs() - cpu0;
// The commit before closed without waiting for an idle checkpoint under way (one falls due when a transaction
// holds the queue past IDLE_CHECKPOINT_MS, as the import in one did here): a moment for it to end.
await new Promise((r) => setTimeout(r, 1_000));
await store.close();
const health = input.appends ? undefined : await indexHealth(input.stateDir + '/satchel.db');
console.log(JSON.stringify({ waits, cpuWaits, wallMs, cpu, mergedCpu, batches, health, inTransactions, showing, stallMs, turnCpuMs }));`;

/** Bare SQLite: the same rows (each message's row and its text in search_docs) in one transaction or in batches. */
const BARE = `
const fs = require('node:fs');
const sqlite3 = require('sqlite3');
const sessions = JSON.parse(fs.readFileSync(input.sessions, 'utf8'));
const db = await new Promise((r, j) => { const d = new sqlite3.Database(input.file, (e) => (e ? j(e) : r(d))); });
const exec = (sql) => new Promise((r, j) => db.exec(sql, (e) => (e ? j(e) : r())));
const run = (sql, p = []) => new Promise((r, j) => db.run(sql, p, function (e) { e ? j(e) : r(this.changes); }));
await exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
let lock = Promise.resolve();
const tx = (work) => { const t = lock.then(async () => { await exec('BEGIN IMMEDIATE'); try { const v = await work(); await exec('COMMIT'); return v; } catch (e) { await exec('ROLLBACK'); throw e; } }); lock = t.catch(() => {}); return t; };
let position = await new Promise((r) => db.get('SELECT count(*) AS n FROM messages WHERE session_id = ?', [input.appended], (e, row) => r(row.n)));
const append = (content) => tx(async () => {
  const p = position++;
  await run('INSERT INTO messages (session_id, position, row) VALUES (?, ?, ?)', [input.appended, p, JSON.stringify({ role: 'user', content, timestamp: Date.now() / 1000, attachments: [] })]);
  await run("INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'message', ?, ?)", [input.appended, p, content]);
  await run('UPDATE sessions SET message_count = message_count + 1, revision = revision + 1 WHERE id = ?', [input.appended]);
});
// One step per row: a session's record first, then its messages (row and text), then its attachments.
const steps = [];
for (const s of sessions) {
  const { messages, attachments, ...header } = s;
  steps.push(() => run('INSERT INTO sessions (id, updated_at, message_count, attachment_count, header) VALUES (?, ?, ?, ?, ?)', [s.session_id, s.updated_at, messages.length, attachments.length, JSON.stringify(header)])
    .then(() => run("INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'title', 0, ?)", [s.session_id, s.title])));
  messages.forEach((m, i) => steps.push(async () => {
    await run('INSERT INTO messages (session_id, position, row) VALUES (?, ?, ?)', [s.session_id, i, JSON.stringify(m)]);
    if (typeof m.content === 'string' && m.content !== '') await run("INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'message', ?, ?)", [s.session_id, i, m.content]);
  }));
  attachments.forEach((a, i) => steps.push(() => run('INSERT INTO attachments (session_id, position, record) VALUES (?, ?, ?)', [s.session_id, i, JSON.stringify(a)])));
}
const batches = [];
const store = async () => {
  const size = input.mode === 'one' ? steps.length : input.batch;
  for (let at = 0; at < steps.length; at += size) {
    const mark = process.cpuUsage();
    await tx(async () => { for (const step of steps.slice(at, at + size)) await step(); });
    const d = process.cpuUsage(mark);
    batches.push((d.user + d.system) / 1000);
  }
};
await append('warm up');
const waits = [];
// Each wait also in the child's CPU (one core, pinned): the work the process did meanwhile, the purge's or the
// import's transaction it waited behind and its own, which a loaded machine's scheduler does not stretch.
const cpuWaits = [];
let done = false;
const cpu0 = cpuMs();
const t0 = performance.now();
const work = store().then(() => { done = true; return performance.now() - t0; });
while (!done && input.appends) {
  const a = performance.now();
  const ac = process.cpuUsage();
  await append('an append during the import ' + waits.length);
  waits.push(performance.now() - a);
  { const d = process.cpuUsage(ac); cpuWaits.push((d.user + d.system) / 1000); }
}
const wallMs = await work;
const cpu = cpuMs() - cpu0;
await new Promise((r) => db.close(r));
const health = input.appends ? undefined : await indexHealth(input.file);
console.log(JSON.stringify({ waits, cpuWaits, wallMs, cpu, mergedCpu: cpu, batches, health }));`;

const f1 = (x) => x.toFixed(1);
/** Append waits in the child's CPU: p99 / max (how many over 50 ms). */
const cpuWaitsOf = (xs) => (xs && xs.length ? `${f1(pct(xs, 99))} / ${f1(Math.max(...xs))} ms (${xs.filter((x) => x > 50).length})` : '-');

async function main() {
  console.log(`# import-writes: ${RUNS} runs; ${machine()}`);
  const builds = { before: buildRevision(BEFORE, 'import-writes'), after: buildRevision(AFTER, 'import-writes') };
  console.log(`before ${builds.before.commit}, after ${builds.after.commit}`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'import-writes-'));
  const source = path.join(work, 'source');
  fs.mkdirSync(source);
  // A copy: the history is never opened in place.
  for (const f of ['satchel.db', 'satchel.db-wal']) if (fs.existsSync(path.join(HISTORY, f))) fs.copyFileSync(path.join(HISTORY, f), path.join(source, f));
  const longId = JSON.parse(fs.readFileSync(path.join(HISTORY, 'history.json'), 'utf8')).long['10000'];
  const template = path.join(work, 'template');
  fs.mkdirSync(template);
  const files = { all: path.join(work, 'all.json'), long: path.join(work, 'long.json'), many: path.join(work, 'many.json') };
  const prepared = await child(PREPARE, { dist: builds.after.out, source, template, ...files, longId, appended: APPENDED });
  console.log(`history: ${prepared.conversations} conversations, ${prepared.messages} messages`);
  const copy = (name) => {
    const dir = path.join(work, name);
    fs.cpSync(template, dir, { recursive: true });
    return dir;
  };
  const workloads = Object.fromEntries(
    [
      ['all', [`Export all of the 20k history (${prepared.conversations} conversations)`, files.all]],
      ['long', ['one conversation of 10,000 messages', files.long]],
      ['many', [`2,000 conversations (the 20k history's, each cut in ten)`, files.many]],
    ]
      .filter(([key]) => WORKLOADS.includes(key))
      .map(([, pair]) => pair),
  );
  const variants = [
    [`Satchel before (${builds.before.commit})`, SATCHEL, (dir) => ({ dist: builds.before.out, stateDir: dir })],
    [`Satchel after (${builds.after.commit})`, SATCHEL, (dir) => ({ dist: builds.after.out, stateDir: dir })],
    ['bare SQLite, one transaction (floor)', BARE, (dir) => ({ file: path.join(dir, 'satchel.db'), mode: 'one' })],
    [`bare SQLite, batches of ${BATCH} rows`, BARE, (dir) => ({ file: path.join(dir, 'satchel.db'), mode: 'batches' })],
  ].slice(0, VARIANTS === 'satchel' ? 2 : 4);
  for (const [workload, sessions] of Object.entries(workloads)) {
    const results = Object.fromEntries(variants.map(([name]) => [name, []]));
    for (let run = 0; run < RUNS; run++) {
      for (const [name, script, inputOf] of variants) {
        const common = { sessions, appended: APPENDED, batch: BATCH };
        const r = await child(script, { ...common, ...inputOf(copy(`w${run}-${results[name].length}-${name.length}-a`)), appends: true });
        const alone = await child(script, { ...common, ...inputOf(copy(`w${run}-${results[name].length}-${name.length}-b`)), appends: false });
        const batches = alone.batches.length > 0 ? alone.batches : [alone.cpu];
        const own = alone.inTransactions ?? [];
        const showing = alone.showing ?? [];
        const sorted = [...r.waits].sort((a, b) => a - b);
        results[name].push({ ...r, own: own.length ? `${f1(median(own))} / ${f1(pct(own, 99))} / ${f1(Math.max(...own))} ms (${own.filter((c) => c > 43).length} over 43)` : '-', showing: showing.length ? `${showing.length}, ${f1(Math.max(...showing))} ms` : '-', waitP99: sorted.length ? pct(sorted, 99) : 0, waitsOver50: r.waits.filter((w) => w > 50).length, cwait: cpuWaitsOf(r.cpuWaits), stall: alone.stallMs === undefined ? '-' : `${f1(alone.turnCpuMs)} ms CPU (${f1(alone.stallMs)} ms wall)`, alone: alone.cpu, merged: alone.mergedCpu, health: alone.health, batchMax: Math.max(...batches), batchP99: pct(batches, 99), over50: batches.filter((c) => c > 50).length, batchMedian: median(batches), batchCount: batches.length });
        console.log(
          `run ${run + 1} ${workload} / ${name}: longest append waits ${[...r.waits].sort((a, b) => b - a).slice(0, 4).map(f1).join(', ')} ms over ${r.waits.length} appends, import ${f1(r.wallMs)} ms; alone: CPU ${alone.cpu} ms (${alone.mergedCpu} with its merges), ${batches.length} transactions, CPU each median ${f1(median(batches))} p99 ${f1(pct(batches, 99))} max ${f1(Math.max(...batches))} ms, ${batches.filter((c) => c > 50).length} over 50 ms; index ${alone.health.segments} segments on ${alone.health.levels} levels, a search ${alone.health.searchMs.toFixed(2)} ms CPU; in transactions ${results[name].at(-1).own}; showing: ${results[name].at(-1).showing} transactions, the longest's CPU; append wait p99 ${f1(results[name].at(-1).waitP99)} ms, ${results[name].at(-1).waitsOver50} over 50 ms; in CPU ${results[name].at(-1).cwait}; event loop's longest stall ${results[name].at(-1).stall}`,
        );
      }
    }
    console.log(`\n| ${workload} | import CPU alone (with its index merges) | transactions | CPU per transaction, median / p99 / max (over 50 ms) | CPU inside each transaction, median / p99 / max | the event loop's longest turn (alone), CPU (wall) | showing: transactions, CPU inside the longest | longest append wait | p99 append wait (waits over 50 ms) | append wait in the child's CPU: p99 / max (over 50 ms) | median append wait | appends during the import | import wall | index segments after | CPU per search after |`);
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    const floor = variants[2] ? median(results[variants[2][0]].map((r) => r.alone)) : NaN;
    for (const [name, rs] of Object.entries(results)) {
      const cpu = median(rs.map((r) => r.alone));
      console.log(
        `| ${name} | ${cpu} ms (${median(rs.map((r) => r.merged))}; ${Number.isNaN(floor) ? "no floor run" : `${(cpu / floor).toFixed(2)}× the floor`}) | ${median(rs.map((r) => r.batchCount))} | ${f1(median(rs.map((r) => r.batchMedian)))} / ${f1(median(rs.map((r) => r.batchP99)))} / ${f1(median(rs.map((r) => r.batchMax)))} ms (${median(rs.map((r) => r.over50))}) | ${rs.map((r) => r.own).join('; ')} | ${rs.map((r) => r.stall).join('; ')} | ${rs.map((r) => r.showing).join('; ')} | ${f1(median(rs.map((r) => Math.max(...r.waits, 0))))} ms | ${f1(median(rs.map((r) => r.waitP99)))} ms (${median(rs.map((r) => r.waitsOver50))}) | ${rs.map((r) => r.cwait).join('; ')} | ${f1(median(rs.map((r) => median(r.waits.length ? r.waits : [0]))))} ms | ${median(rs.map((r) => r.waits.length))} | ${f1(median(rs.map((r) => r.wallMs)))} ms | ${median(rs.map((r) => r.health.segments))} | ${median(rs.map((r) => r.health.searchMs)).toFixed(2)} ms |`,
      );
    }
  }
  fs.rmSync(work, { recursive: true, force: true });
}

await main();
