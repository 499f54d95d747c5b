// Issue 37, finding 4: the database's size against the text it holds, before and after schema 8, beside its floor
// (a bare FTS5 table of the same texts, content stored, same tokenizer: with the prefix indexes Satchel keeps and
// without), on a copy of a ready-made history (bench/history/generate.mjs; never the folder itself). Then the
// migration's time on that copy, and a search and an append before and after (CPU ms per operation of this
// process, which runs SQLite's statements on its thread pool, and wall ms: medians).
// Usage: node bench/db-size.mjs --history /tmp/yard-h20k [--before REV] [--after REV] [--work DIR] [--runs N] [--floor 0]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { arg, buildRevision, machine, median } from './lib.mjs';

const HISTORY = arg('--history', '/tmp/yard-h20k');
const BEFORE = arg('--before', '6a95358');
const AFTER = arg('--after', 'HEAD');
const RUNS = Number(arg('--runs', 30));
const FLOOR = arg('--floor', '1') !== '0';
const work = arg('--work', fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-db-size-')));
const SEARCHES = ['the', 'he', 's', 'stream', 'promise resolve', 'options for the', 'install', 'error handling', 'zzqx'];

const mib = (bytes) => bytes / 2 ** 20;
const fmt = (n, d = 1) => n.toFixed(d);
const history = JSON.parse(fs.readFileSync(path.join(HISTORY, 'history.json'), 'utf8'));
/** The longest conversation that still takes a message (one of 10,000 is full: store/caps.ts). */
const APPEND_TO = Math.max(...Object.keys(history.long).map(Number).filter((n) => n < 10_000));
const longest = history.long[String(APPEND_TO)];

const builds = { before: buildRevision(BEFORE, 'bench-dbsize'), after: buildRevision(AFTER, 'bench-dbsize') };
console.log(`# db-size: ${HISTORY} (${history.messages} messages, ${fmt(mib(history.text_bytes))} MiB of message text); ${machine()}`);
console.log(`before ${builds.before.commit}, after ${builds.after.commit}; work folder ${work}`);

/** A state folder holding a copy of the history's database (and its WAL, if any). */
function copyState(name) {
  const dir = path.join(work, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const f of ['satchel.db', 'satchel.db-wal']) if (fs.existsSync(path.join(HISTORY, f))) fs.copyFileSync(path.join(HISTORY, f), path.join(dir, f));
  return dir;
}

const load = (build, rel) => import(path.join(build.out, rel));

/** The file's size, its largest parts (dbstat), and the bytes of every text it indexes. */
async function sizes(build, file) {
  const { Db } = await load(build, 'server/store/db/connection.js');
  const db = await Db.openReadOnly(file);
  try {
    const parts = await db.all(`SELECT name, sum(pgsize) AS bytes, sum(unused) AS unused FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 6`);
    const hasView = await db.get(`SELECT 1 AS y FROM sqlite_schema WHERE name = 'search_texts'`);
    const text = await db.get(`SELECT sum(length(CAST(text AS BLOB))) AS bytes FROM ${hasView ? 'search_texts' : 'search_docs'}`);
    const page = await db.get('PRAGMA page_size');
    return { file: fs.statSync(file).size, parts, text: text.bytes, page: page.page_size };
  } finally {
    await db.close();
  }
}

function report(label, s, text) {
  const top = s.parts.map((p) => `${p.name} ${fmt(mib(p.bytes))} (${fmt(mib(p.unused))} unused)`).join(', ');
  console.log(`${label}: ${fmt(mib(s.file))} MiB, ${fmt(s.file / text, 2)}× the text; ${s.page} B pages; ${top}`);
}

/** The floor: every text in a bare FTS5 table (content stored), the tokenizer Satchel's, prefix indexes or none. */
async function floor(build, textsFrom, prefix) {
  const { Db } = await load(build, 'server/store/db/connection.js');
  const file = path.join(work, `floor-${prefix ? 'prefix' : 'plain'}.db`);
  fs.rmSync(file, { force: true });
  const db = await Db.open(file);
  try {
    await db.exec(`ATTACH DATABASE '${textsFrom}' AS src`);
    await db.exec(`CREATE VIRTUAL TABLE main.f USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2'${prefix ? ", prefix = '1 2 3'" : ''})`);
    await db.transaction((q) => q.run('INSERT INTO main.f (rowid, text) SELECT id, text FROM src.search_texts'));
    await db.exec('DETACH DATABASE src');
    await db.exec('VACUUM');
  } finally {
    await db.close();
  }
  return fs.statSync(file).size;
}

/** CPU and wall ms of `op` run `n` times: medians of each run. */
async function timed(n, op) {
  const cpu = [];
  const wall = [];
  for (let i = 0; i < n; i++) {
    const c = process.cpuUsage();
    const t = performance.now();
    await op(i);
    wall.push(performance.now() - t);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  }
  return { cpu: median(cpu), wall: median(wall) };
}

/** Searches and appends through the store of `build` on `stateDir`. */
async function speed(build, stateDir) {
  const { SessionStore } = await load(build, 'server/store/sessions.js');
  const store = new SessionStore(stateDir);
  await store.load();
  try {
    const search = {};
    for (const words of SEARCHES) {
      await store.search('default', words, 20);
      search[words] = await timed(RUNS, () => store.search('default', words, 20));
    }
    const append = await timed(RUNS, (i) => store.addMessage(longest, `appended message ${i}: the heron waded through the teal stream`, []));
    return { search, append };
  } finally {
    await store.close();
  }
}

// 1. Before: the history's database as it is (schema 7).
const beforeDir = copyState('before');
const before = await sizes(builds.before, path.join(beforeDir, 'satchel.db'));
report('before', before, before.text);

// 2. The migration (and the compaction after it) on a copy, by the store's own start, its log lines timed.
const afterDir = copyState('after');
const { setLogSink } = await load(builds.after, 'server/core/log.js');
const lines = [];
const restore = setLogSink((line) => lines.push(line));
const { SessionStore } = await load(builds.after, 'server/store/sessions.js');
const c0 = process.cpuUsage();
const t0 = performance.now();
const started = new SessionStore(afterDir);
await started.load();
const migrateWall = performance.now() - t0;
const migrateCpu = process.cpuUsage(c0);
await started.close();
restore();
console.log(`start that migrates (backup, schema 8, compaction): ${fmt(migrateWall / 1000)} s wall, ${fmt((migrateCpu.user + migrateCpu.system) / 1e6)} s CPU`);
for (const line of lines.filter((l) => /schema|compact|backup/i.test(l))) console.log(`  log: ${line}`);
const after = await sizes(builds.after, path.join(afterDir, 'satchel.db'));
report('after', after, before.text);
console.log(`text indexed: ${fmt(mib(before.text))} MiB before, ${fmt(mib(after.text))} MiB after (read through search_texts)`);

// 3. The floor, over the very same texts.
if (FLOOR) {
  for (const prefix of [true, false]) {
    const bytes = await floor(builds.after, path.join(afterDir, 'satchel.db'), prefix);
    console.log(`floor, bare FTS5 ${prefix ? "prefix '1 2 3'" : 'no prefix index'}: ${fmt(mib(bytes))} MiB, ${fmt(bytes / before.text, 2)}× the text; Satchel after ${fmt(after.file / bytes, 2)}× it`);
  }
}

// 4. Search and append, before and after, each on its own copy.
const speeds = { before: await speed(builds.before, beforeDir), after: await speed(builds.after, afterDir) };
console.log(`\nper operation, medians of ${RUNS} (CPU ms of this process / wall ms)`);
console.log('| operation | before CPU | after CPU | after/before | before wall | after wall |');
console.log('|---|---|---|---|---|---|');
const row = (name, b, a) => console.log(`| ${name} | ${fmt(b.cpu, 2)} | ${fmt(a.cpu, 2)} | ${fmt(a.cpu / b.cpu, 2)} | ${fmt(b.wall, 2)} | ${fmt(a.wall, 2)} |`);
for (const words of SEARCHES) row(`search "${words}"`, speeds.before.search[words], speeds.after.search[words]);
row(`append to the ${APPEND_TO}-message conversation`, speeds.before.append, speeds.after.append);
