// Issue 37, findings 3 and 4 (the WAL): a purge of a 10,000-message conversation while another conversation is
// appended to, one append after another, in Satchel's store (SessionStore, in a child: this build's and the
// commit before the batched purge, `--before REV`), beside bare SQLite (the same node-sqlite3 binding, the same
// database file, one connection with its transactions queued in order, as the store's) removing the same rows in
// one statement (the cascade) and in batches of the store's size. Reported per run: the longest and the median
// wait of an append during the purge, the purge's wall time, and the child's CPU time over the purge from
// /proc/self/stat (utime+stime); the medians over the runs. Then the WAL: its size right after importing a
// history of --import-mib MiB of text (insertAll, one transaction) and after the store has been idle --idle-s.
// Session 15 added: each append's wait also in the child's CPU time (pinned to one core: the work it did meanwhile, which
// the scheduler of a loaded machine does not stretch), and the p99 and max of both.
// Usage: node bench/store-purge.mjs [--runs N] [--messages N] [--before REV] [--import-mib N] [--idle-s N]
// (from the repository root; builds both revisions into .cache/ once).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { text } from './history.mjs';
import { arg, buildRevision, hasCommand, machine, median, pct } from './lib.mjs';

const RUNS = Number(arg('--runs', 3));
/** The core the children are pinned to (two benches at once: one each). */
const CORE = Number(arg('--core', 0));
const MESSAGES = Number(arg('--messages', 10_000));
/**
 * The commit before: 6a95358, the purge in batches with FTS5's automerge (session 13's); c5ea2d1, the purge in one
 * statement and the WAL left as it grew (session 12's).
 */
const BEFORE = arg('--before', '6a95358');
/** 0: leave out the WAL's part (two imports and --idle-s of waiting). */
const WAL_PART = Number(arg('--wal', 1));
const IMPORT_MIB = Number(arg('--import-mib', 24));
/** Past the store's IDLE_CHECKPOINT_MS (30 s), so its idle checkpoint has run. */
const IDLE_S = Number(arg('--idle-s', 35));
/** The store's PURGE_ROWS_PER_BATCH, for the bare batched floor (the same size by default). */
const BATCH = Number(arg('--batch', 50));
const PURGED = '00000000000a';
const APPENDED = '00000000000b';

/** Realistic lengths: a question of 40-600 characters, an answer of 200-3,000 (as bench/history.mjs). */
const conversation = (id, count, seed = 0) => ({
  session_id: id,
  title: `Conversation ${id}`,
  workspace: '/w',
  profile: 'default',
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
  messages: Array.from({ length: count }, (_, i) =>
    i % 2 === 0
      ? { role: 'user', content: text(40 + ((i * 7919 + seed) % 560)), timestamp: 1_700_000_000 + i, attachments: [] }
      : { role: 'assistant', content: text(200 + ((i * 104729 + seed) % 2800)), timestamp: 1_700_000_000 + i },
  ),
  attachments: [],
});

/** The child's CPU time so far (ms), from /proc/self/stat: utime + stime in clock ticks (100 Hz). */
const CPU = `const cpuMs = () => { const f = require('node:fs').readFileSync('/proc/self/stat', 'utf8').slice(require('node:fs').readFileSync('/proc/self/stat', 'utf8').lastIndexOf(')') + 2).split(' '); return (Number(f[11]) + Number(f[12])) * 10; };`;

/** After a purge: the index's segments (FTS5's structure record) and the CPU of one search (ms), on the file. */
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

/** Run `script` (CommonJS-free ES module text) in a child pinned to core 0; resolves with its last JSON line. */
function child(script, input) {
  const file = path.join(os.tmpdir(), `store-purge-${process.pid}-${Math.random().toString(36).slice(2)}.mjs`);
  fs.writeFileSync(file, `import { createRequire } from 'node:module'; const require = createRequire(${JSON.stringify(path.resolve('package.json'))});\n${CPU}\n${INDEX}\nconst input = ${JSON.stringify(input)};\n${script}`);
  const args = hasCommand('taskset') ? ['taskset', '-c', String(CORE), process.execPath, file] : [process.execPath, file];
  return new Promise((resolve, reject) => {
    const proc = spawn(args[0], args.slice(1), { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, SATCHEL_LOG_LEVEL: 'error' } });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.on('exit', (code) => {
      fs.rmSync(file, { force: true });
      if (code !== 0) return reject(new Error(`child exited ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}

/** The store of `dist`: the two conversations written, the long one deleted (its grace period long over). */
const PREPARE = `
const { SessionStore } = await import(input.dist + '/server/store/sessions.js');
const store = new SessionStore(input.stateDir);
await store.load();
await store.insertAll(input.sessions);
await store.markDeleted(input.purged, new Date(Date.now() - 3_600_000));
await store.close();
console.log(JSON.stringify({ ok: true }));`;

/** Satchel: the purge (SessionStore.remove) while appends go into the other conversation one after another. */
const SATCHEL = `
const { SessionStore } = await import(input.dist + '/server/store/sessions.js');
const store = new SessionStore(input.stateDir);
await store.load();
await store.addMessage(input.appended, 'warm up', []);
const waits = [];
// Each wait also in the child's CPU (one core, pinned): the work the process did meanwhile, the purge's or the
// import's transaction it waited behind and its own, which a loaded machine's scheduler does not stretch.
const cpuWaits = [];
let done = false;
const cpu0 = cpuMs();
const t0 = performance.now();
const batches = [];
let mark = process.cpuUsage();
const batched = () => { const d = process.cpuUsage(mark); batches.push((d.user + d.system) / 1000); mark = process.cpuUsage(); };
const purge = store.remove(input.purged, batched).then(() => { done = true; return performance.now() - t0; });
while (!done && input.appends) {
  const a = performance.now();
  const ac = process.cpuUsage();
  await store.addMessage(input.appended, 'an append during the purge ' + waits.length, []);
  waits.push(performance.now() - a);
  { const d = process.cpuUsage(ac); cpuWaits.push((d.user + d.system) / 1000); }
}
const purgeMs = await purge;
const cpu = cpuMs() - cpu0;
// The index merges the purge left to do, when this build does them after writes (db/index-merge.ts).
while (store.indexMerging) await new Promise((r) => setTimeout(r, 20));
const mergedCpu = cpuMs() - cpu0;
await store.close();
const health = input.appends ? undefined : await indexHealth(input.stateDir + '/satchel.db');
console.log(JSON.stringify({ waits, cpuWaits, purgeMs, cpu, mergedCpu, batches, health }));`;

/** Bare SQLite: the same file, one connection, transactions queued in order (as Satchel's), the delete in one statement or in batches. */
const BARE = `
const sqlite3 = require('sqlite3');
const db = await new Promise((r, j) => { const d = new sqlite3.Database(input.file, (e) => (e ? j(e) : r(d))); });
const exec = (sql) => new Promise((r, j) => db.exec(sql, (e) => (e ? j(e) : r())));
const run = (sql, p = []) => new Promise((r, j) => db.run(sql, p, function (e) { e ? j(e) : r(this.changes); }));
await exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
let lock = Promise.resolve();
const tx = (work) => { const t = lock.then(async () => { await exec('BEGIN IMMEDIATE'); try { const v = await work(); await exec('COMMIT'); return v; } catch (e) { await exec('ROLLBACK'); throw e; } }); lock = t.catch(() => {}); return t; };
let position = (await new Promise((r) => db.get('SELECT count(*) AS n FROM messages WHERE session_id = ?', [input.appended], (e, row) => r(row.n))));
const append = (content) => tx(async () => {
  const p = position++;
  await run('INSERT INTO messages (session_id, position, row) VALUES (?, ?, ?)', [input.appended, p, JSON.stringify({ role: 'user', content, timestamp: Date.now() / 1000, attachments: [] })]);
  await run("INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'message', ?, ?)", [input.appended, p, content]);
  await run('UPDATE sessions SET message_count = message_count + 1, revision = revision + 1 WHERE id = ?', [input.appended]);
});
const tables = [['search_docs', 'id'], ['messages', 'position'], ['attachments', 'position'], ['attachment_text_pending', 'position'], ['mcp_receipts', 'id'], ['streamed_text', 'id']];
const purgeRows = async () => {
  if (input.mode === 'one') return tx(() => run('DELETE FROM sessions WHERE id = ?', [input.purged]));
  for (const [table, key] of tables) {
    for (;;) {
      const mark = process.cpuUsage();
      const n = await tx(() => run('DELETE FROM ' + table + ' WHERE session_id = ? AND ' + key + ' IN (SELECT ' + key + ' FROM ' + table + ' WHERE session_id = ? LIMIT ?)', [input.purged, input.purged, input.batch]));
      const d = process.cpuUsage(mark);
      if (n > 0) batches.push((d.user + d.system) / 1000);
      if (n < input.batch) break;
    }
  }
  return tx(() => run('DELETE FROM sessions WHERE id = ?', [input.purged]));
};
await append('warm up');
const batches = [];
const waits = [];
// Each wait also in the child's CPU (one core, pinned): the work the process did meanwhile, the purge's or the
// import's transaction it waited behind and its own, which a loaded machine's scheduler does not stretch.
const cpuWaits = [];
let done = false;
const cpu0 = cpuMs();
const t0 = performance.now();
const purge = purgeRows().then(() => { done = true; return performance.now() - t0; });
while (!done && input.appends) {
  const a = performance.now();
  const ac = process.cpuUsage();
  await append('an append during the purge ' + waits.length);
  waits.push(performance.now() - a);
  { const d = process.cpuUsage(ac); cpuWaits.push((d.user + d.system) / 1000); }
}
const purgeMs = await purge;
const cpu = cpuMs() - cpu0;
await new Promise((r) => db.close(r));
const health = input.appends ? undefined : await indexHealth(input.file);
console.log(JSON.stringify({ waits, cpuWaits, purgeMs, cpu, mergedCpu: cpu, batches, health }));`;

/** The WAL: an import of ~IMPORT_MIB MiB of text in one insertAll, then idle. */
const WAL = `
const fs = require('node:fs');
const { SessionStore } = await import(input.dist + '/server/store/sessions.js');
const store = new SessionStore(input.stateDir);
await store.load();
const wal = () => { try { return fs.statSync(input.stateDir + '/satchel.db-wal').size; } catch { return 0; } };
const { text } = await import(input.history);
const sessions = [];
let chars = 0;
for (let s = 0; chars < input.mib * 2 ** 20; s++) {
  const messages = [];
  for (let i = 0; i < 1_000; i++) { const content = text(200 + ((i * 104729 + s) % 2800)); chars += content.length; messages.push({ role: i % 2 ? 'assistant' : 'user', content, timestamp: 1_700_000_000 + i }); }
  sessions.push({ session_id: (0xc00 + s).toString(16).padStart(12, '0'), title: 'Imported ' + s, workspace: '/w', profile: 'default', created_at: '2025-01-01T00:00:00.000Z', updated_at: '2025-01-01T00:00:00.000Z', messages, attachments: [] });
}
await store.insertAll(sessions);
const after = wal();
await new Promise((r) => setTimeout(r, input.idleS * 1000));
const idle = wal();
// A write after the idle checkpoint, as the next use would make: the WAL starts over from the file's head.
const s = await store.create({ workspace: '/w', profile: 'default' });
await store.addMessage(s.session_id, 'after', []);
const next = wal();
await store.close();
console.log(JSON.stringify({ chars, after, idle, next }));`;

const f1 = (x) => x.toFixed(1);
/** Append waits in wall time and in the child's CPU: p99 / max (how many over 50 ms). */
const waitsOf = (xs) => (xs && xs.length ? `${f1(pct(xs, 99))} / ${f1(Math.max(...xs))} ms (${xs.filter((x) => x > 50).length})` : '-');
const mib = (b) => (b / 2 ** 20).toFixed(1);

async function main() {
  console.log(`# store-purge: ${MESSAGES} messages purged, ${RUNS} runs; ${machine()}`);
  const builds = { before: buildRevision(BEFORE, 'store-purge'), after: buildRevision('HEAD', 'store-purge') };
  console.log(`before ${builds.before.commit}, after ${builds.after.commit}`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'store-purge-'));
  const template = path.join(work, 'template');
  fs.mkdirSync(template);
  await child(PREPARE, { dist: builds.after.out, stateDir: template, sessions: [conversation(PURGED, MESSAGES), conversation(APPENDED, 10, 1)], purged: PURGED });
  const copy = (name) => {
    const dir = path.join(work, name);
    fs.cpSync(template, dir, { recursive: true });
    return dir;
  };
  const BEFORE_NAME = `Satchel before (${builds.before.commit})`;
  const AFTER_NAME = `Satchel after (${builds.after.commit})`;
  const results = { [BEFORE_NAME]: [], [AFTER_NAME]: [], 'bare SQLite, one statement': [], [`bare SQLite, batches of ${BATCH}`]: [] };
  for (let run = 0; run < RUNS; run++) {
    // Twice: with appends alongside (their waits), and alone (the purge's own CPU, and each batch's).
    const one = async (name, script, input) => {
      const r = await child(script, { ...input, appends: true });
      const stateDir = input.stateDir ? copy(`${path.basename(input.stateDir)}-alone`) : undefined;
      const file = input.file ? path.join(copy(`${path.basename(path.dirname(input.file))}-alone`), 'satchel.db') : undefined;
      const alone = await child(script, { ...input, appends: false, stateDir, file });
      const batches = alone.batches.length > 0 ? alone.batches : [alone.cpu];
      results[name].push({ ...r, alone: alone.cpu, merged: alone.mergedCpu, health: alone.health, batchMax: Math.max(...batches), batchP99: pct(batches, 99), over50: batches.filter((c) => c > 50).length, batchMedian: median(batches), batchCount: batches.length });
      console.log(
        `run ${run + 1} ${name}: longest append waits ${[...r.waits].sort((a, b) => b - a).slice(0, 4).map(f1).join(', ')} ms over ${r.waits.length} appends, purge ${f1(r.purgeMs)} ms; alone: CPU ${alone.cpu} ms, ${batches.length} batches, CPU per batch median ${f1(median(batches))} ms, p99 ${f1(pct(batches, 99))}, max ${f1(Math.max(...batches))} ms, ${batches.filter((c) => c > 50).length} over 50 ms; ${alone.mergedCpu} ms with its index merges; index ${alone.health.segments} segments on ${alone.health.levels} levels, a search ${alone.health.searchMs.toFixed(2)} ms CPU`,
      );
    };
    await one(BEFORE_NAME, SATCHEL, { dist: builds.before.out, stateDir: copy(`b${run}`), purged: PURGED, appended: APPENDED });
    await one(AFTER_NAME, SATCHEL, { dist: builds.after.out, stateDir: copy(`a${run}`), purged: PURGED, appended: APPENDED });
    await one('bare SQLite, one statement', BARE, { file: path.join(copy(`o${run}`), 'satchel.db'), mode: 'one', purged: PURGED, appended: APPENDED, batch: BATCH });
    await one(`bare SQLite, batches of ${BATCH}`, BARE, { file: path.join(copy(`p${run}`), 'satchel.db'), mode: 'batches', purged: PURGED, appended: APPENDED, batch: BATCH });
  }
  console.log(
    '\n| purge of %d messages | purge CPU alone (/proc; with its index merges) | batches | CPU per batch, median / p99 / max (batches over 50 ms) | with appends alongside: longest append wait | append wait p99 / max, wall (over 50 ms) | the same, in the child process’s CPU time | median append wait | appends during the purge | purge wall | index segments after | CPU per search after |',
    MESSAGES,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  const floor = median(results['bare SQLite, one statement'].map((r) => r.alone));
  for (const [name, rs] of Object.entries(results)) {
    const cpu = median(rs.map((r) => r.alone));
    console.log(
      `| ${name} | ${cpu} ms (${median(rs.map((r) => r.merged))} ms; ${(cpu / floor).toFixed(2)}× the one-statement floor) | ${median(rs.map((r) => r.batchCount))} | ${f1(median(rs.map((r) => r.batchMedian)))} / ${f1(median(rs.map((r) => r.batchP99)))} / ${f1(median(rs.map((r) => r.batchMax)))} ms (${median(rs.map((r) => r.over50))}) | ${f1(median(rs.map((r) => Math.max(...r.waits))))} ms | ${rs.map((r) => waitsOf(r.waits)).join('; ')} | ${rs.map((r) => waitsOf(r.cpuWaits)).join('; ')} | ${f1(median(rs.map((r) => median(r.waits))))} ms | ${median(rs.map((r) => r.waits.length))} | ${f1(median(rs.map((r) => r.purgeMs)))} ms | ${median(rs.map((r) => r.health.segments))} | ${median(rs.map((r) => r.health.searchMs)).toFixed(2)} ms |`,
    );
  }
  if (!WAL_PART) return fs.rmSync(work, { recursive: true, force: true });
  console.log(`\n| WAL after importing ~${IMPORT_MIB} MiB of text (one insertAll) | right after | after ${IDLE_S} s idle | after the next write |`);
  console.log('|---|---|---|---|');
  for (const [name, build] of Object.entries(builds)) {
    const dir = path.join(work, `wal-${name}`);
    fs.mkdirSync(dir);
    const r = await child(WAL, { dist: build.out, stateDir: dir, mib: IMPORT_MIB, idleS: IDLE_S, history: new URL('./history.mjs', import.meta.url).href });
    console.log(`| Satchel ${name} (${build.commit}) | ${mib(r.after)} MiB | ${mib(r.idle)} MiB | ${mib(r.next)} MiB |`);
  }
  fs.rmSync(work, { recursive: true, force: true });
}

await main();
