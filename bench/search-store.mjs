// The store's part of a search without HTTP: searchSessions (store/search.ts: the ranking statement on the search
// reader, the snippets, their redaction check) called in this process beside the bare FTS5 query bench/search.mjs
// uses as its floor (`SELECT rowid, substr(text, 1, 8192) FROM search WHERE search MATCH ? ORDER BY rank LIMIT 21`,
// the same `sqlite3` binding, a connection of its own, the same MATCH expression), alternating, one query at a
// time; CPU per search from process.cpuUsage() (every thread: the binding runs SQLite on libuv's pool). Pin it
// (`taskset -c 0`) and run it on a COPY of a history from bench/history (it only reads, but never on the original).
//   npm run build && taskset -c 0 node bench/search-store.mjs --state DIR [--searches 300] [--dist dist]
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { arg, machine } from './lib.mjs';
import { pickWords } from './search-words.mjs';

const STATE = arg('--state', undefined);
if (!STATE || !fs.existsSync(path.join(STATE, 'satchel.db'))) throw new Error('--state DIR: a copy of a history built by bench/history/generate.mjs');
const SEARCHES = Number(arg('--searches', 300));
const DIST = path.resolve(arg('--dist', 'dist'));
const LIMIT = 20;
/** Searches before measuring (JIT, SQLite's page cache) on both sides. */
const WARMUP = 20;

const sqlite3 = createRequire(import.meta.url)(path.resolve('node_modules', 'sqlite3'));
const { SearchReader } = await import(path.join(DIST, 'server', 'store', 'db', 'search-reader.js'));
const { searchSessions } = await import(path.join(DIST, 'server', 'store', 'search.js'));
const { ftsQuery } = await import(path.join(DIST, 'server', 'store', 'db', 'search-query.js'));
const file = path.join(path.resolve(STATE), 'satchel.db');
const reader = await SearchReader.open(file);
const raw = new sqlite3.Database(file, sqlite3.OPEN_READONLY);
const floor = (match) =>
  new Promise((resolve, reject) =>
    raw.all(`SELECT rowid, substr(text, 1, 8192) AS head FROM search WHERE search MATCH ? ORDER BY rank LIMIT ${LIMIT + 1}`, [match], (err, rows) => (err ? reject(err) : resolve(rows))),
  );

const kinds = pickWords(37, ['two words, rank 100-5,000', 'two words, the second typed halfway']);

// Every session is listed: the store's in-memory listing is not what is measured.
const listing = (id) => ({ session_id: id, title: '', updated_at: '' });
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const search = (q) => searchSessions(null, reader, listing, q, { profile: 'default', limit: LIMIT });
for (let i = 0; i < WARMUP; i++) {
  const q = kinds['two words, rank 100-5,000']();
  await floor(ftsQuery(q));
  await search(q);
}
console.log(`machine: ${machine()}; ${SEARCHES} searches per kind; ${path.relative(process.cwd(), DIST) || DIST}\n`);
console.log('| query | store CPU ms/search | floor CPU ms/search | ratio | matching nothing: store / floor (n) | results (mean) |');
console.log('|---|---|---|---|---|---|');
for (const [label, make] of Object.entries(kinds)) {
  const all = { store: 0, floor: 0, results: 0 };
  const none = { store: 0, floor: 0, n: 0 };
  for (let i = 0; i < SEARCHES; i++) {
    const q = make();
    let c = cpu();
    await floor(ftsQuery(q));
    const f = cpu() - c;
    c = cpu();
    const found = await search(q);
    const s = cpu() - c;
    all.store += s;
    all.floor += f;
    all.results += found.hits.length;
    if (found.hits.length === 0) (none.store += s), (none.floor += f), none.n++;
  }
  const n = SEARCHES;
  console.log(
    `| ${label} | ${(all.store / n).toFixed(2)} | ${(all.floor / n).toFixed(2)} | ${(all.store / all.floor).toFixed(2)} | ${none.n ? `${(none.store / none.n).toFixed(2)} / ${(none.floor / none.n).toFixed(2)} (${none.n})` : '-'} | ${(all.results / n).toFixed(1)} |`,
  );
}
await reader.close();
raw.close();
