// The snippets of a search's returned rows, two builds side by side in one process: each row's first 8 KiB (what
// the search reads of it, store/search.ts SNIPPET_FIRST_READ_CHARS) for the words of the two short kinds of query
// bench/search.mjs asks (two words of rank 100-5,000; the second typed halfway), the 21 best rows of each query that
// finds any, from the yardstick's database (bench/history/). Checks that both builds make the same snippet of
// every row, then reports CPU ms per search (21 rows) of `snippetOf` and of `redactedSnippet` (the snippet and its
// redaction check), alternating the builds, pinned to one core. Issue 37 finding 7: what a search's snippets cost.
// Usage: npm run build && taskset -c 1 node bench/search-snippet.mjs --state DIR --before <a build's dist> [--dist dist] [--queries 150] [--rounds 8]
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { arg, machine } from './lib.mjs';
import { pickWords } from './search-words.mjs';

const STATE = arg('--state', undefined);
if (!STATE || !fs.existsSync(path.join(STATE, 'satchel.db'))) throw new Error('--state DIR: a history built by bench/history/generate.mjs');
const BEFORE = arg('--before', undefined);
if (!BEFORE) throw new Error('--before DIR: the dist of the build to compare with');
const DIST = path.resolve(arg('--dist', 'dist'));
const QUERIES = Number(arg('--queries', 150));
const ROUNDS = Number(arg('--rounds', 8));
/** What the search reads of a returned row first (store/search.ts SNIPPET_FIRST_READ_CHARS), and the rows it reads. */
const HEAD_CHARS = 8_192;
const ROWS = 21;

const load = async (dist) => ({
  snippet: await import(path.join(path.resolve(dist), 'server', 'store', 'db', 'search-snippet.js')),
  window: await import(path.join(path.resolve(dist), 'server', 'store', 'search-window.js')),
});
const builds = { before: await load(BEFORE), after: await load(DIST) };
const { ftsQuery } = await import(path.join(DIST, 'server', 'store', 'db', 'search-query.js'));

const kinds = pickWords(37, ['two words, rank 100-5,000', 'two words, the second typed halfway']);

const sqlite3 = createRequire(import.meta.url)(path.resolve('node_modules', 'sqlite3'));
const db = new sqlite3.Database(path.join(STATE, 'satchel.db'), sqlite3.OPEN_READONLY);
const all = (sql, params) => new Promise((resolve, reject) => db.all(sql, params, (err, rows) => (err ? reject(err) : resolve(rows))));
const sets = {};
for (const [label, make] of Object.entries(kinds)) {
  sets[label] = [];
  // Queries that find nothing have no snippet to make: only those that find rows.
  for (let tries = 0; sets[label].length < QUERIES && tries < QUERIES * 50; tries++) {
    const q = make();
    const rows = await all(`SELECT substr(text, 1, ${HEAD_CHARS + 1}) AS head FROM search WHERE search MATCH ? ORDER BY rank LIMIT ${ROWS}`, [ftsQuery(q)]);
    if (rows.length === 0) continue;
    sets[label].push({
      q,
      phrases: { before: builds.before.snippet.queryPhrases(q), after: builds.after.snippet.queryPhrases(q) },
      rows: rows.map((r) => ({ head: r.head.slice(0, HEAD_CHARS), cut: r.head.length > HEAD_CHARS })),
    });
  }
}
db.close();

let same = 0;
for (const set of Object.values(sets))
  for (const s of set)
    for (const r of s.rows) {
      const a = JSON.stringify(builds.before.snippet.snippetOf(r.head, s.phrases.before, r.cut));
      const b = JSON.stringify(builds.after.snippet.snippetOf(r.head, s.phrases.after, r.cut));
      if (a !== b) throw new Error(`not the same snippet: ${a} / ${b}`);
      same++;
    }

const cpu = (fn) => {
  const t0 = process.cpuUsage();
  fn();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
};
console.log(`machine: ${machine()}`);
console.log(`${same} rows, the same snippet from both builds; CPU ms per search (its phrases and its up to ${ROWS} rows), ${ROUNDS} rounds alternating\n`);
console.log('| query | searches | snippetOf before | after | after / before | redactedSnippet before | after | after / before |');
console.log('|---|---|---|---|---|---|---|---|');
for (const [label, set] of Object.entries(sets)) {
  const t = { sb: 0, sa: 0, wb: 0, wa: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 === 0 ? ['before', 'after'] : ['after', 'before']) {
      const b = builds[side];
      // The phrases made anew for each search, as the server does (what a build keeps per phrases is paid per search).
      const ms = cpu(() => {
        for (const s of set) {
          const phrases = b.snippet.queryPhrases(s.q);
          for (const r of s.rows) b.snippet.snippetOf(r.head, phrases, r.cut);
        }
      });
      const wms = cpu(() => {
        for (const s of set) {
          const phrases = b.snippet.queryPhrases(s.q);
          for (const r of s.rows) b.window.redactedSnippet(r.head, r.cut, phrases);
        }
      });
      if (side === 'before') (t.sb += ms), (t.wb += wms);
      else (t.sa += ms), (t.wa += wms);
    }
  }
  const n = ROUNDS * set.length;
  const f = (x) => (x / n).toFixed(3);
  console.log(`| ${label} | ${set.length} | ${f(t.sb)} | ${f(t.sa)} | ${(t.sa / t.sb).toFixed(2)} | ${f(t.wb)} | ${f(t.wa)} | ${(t.wa / t.wb).toFixed(2)} |`);
}
