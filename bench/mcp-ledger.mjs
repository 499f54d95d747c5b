// The MCP ledger (issue 39): recording one read as mcp/ledger.ts does (the SHA-256 of 4 KiB served, then
// SessionStore.appendLedger: the batched writer, one prepared statement committed on its own), beside the way
// session 14 wrote it (recordLedger in a transaction of its own) and 8 reads recorded at once (one batch) and a page of the ledger by key and by conversation over a full ledger
// (MAX_LEDGER_ENTRIES rows), beside a floor measured in the same run: a message append (SessionStore.addMessage,
// one transaction) for the write, and `SELECT 1` through the same connection for the query.
// Usage: node bench/mcp-ledger.mjs [--rows N] [--runs N] [--record-only]  (after `npx tsc -p tsconfig.json`, or `npm run build`).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { arg, machine, median, pct } from './lib.mjs';

const dist = (p) => import(pathToFileURL(path.resolve('dist/server', p)).href);
const { SessionStore } = await dist('store/sessions.js');
const { recordLedger, queryLedger, MAX_LEDGER_ENTRIES } = await dist('store/mcp-ledger.js');
const { ledgerRecorder, servedOf } = await dist('mcp/ledger.js');

const ROWS = Number(arg('--rows', MAX_LEDGER_ENTRIES));
const RUNS = Number(arg('--runs', 500));
// Only the recording, nothing else written or read between two (the other figures come out empty).
const RECORD_ONLY = process.argv.includes('--record-only');
const KEYS = 8;
const SESSIONS = 2_000;

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-bench-ledger-'));
const store = new SessionStore(dir);
await store.load();
const t0 = Date.now();
// A full ledger, written by SQL in one statement per 100,000 rows (what a year of reading leaves).
for (let done = 0; done < ROWS; done += 100_000) {
  const n = Math.min(100_000, ROWS - done);
  await store.transaction((q) =>
    q.run(
      `WITH RECURSIVE c(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM c WHERE i < ?)
       INSERT INTO mcp_ledger (key_id, at, op, outcome, session_id, kind, name, range, query, bytes, sha256)
       SELECT 'key-' || (i % ${KEYS}), 1767225600000 + i * 1000, 'read_session', 'ok', printf('%012x', i % ${SESSIONS}), 'conversation', '', 'messages 0-199', '', 4096, hex(randomblob(32)) FROM c`,
      [done, done + n - 1],
    ),
  );
}
console.log(`generated ${ROWS} ledger rows in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

const sessionId = 'abcdef000001';
const at = new Date().toISOString();
await store.insertAll([{ session_id: sessionId, title: 'bench', workspace: dir, profile: 'default', created_at: at, updated_at: at, messages: [], attachments: [] }]);
await store.get(sessionId);
const time = async (f) => {
  const t = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - t) / 1e6;
};

const record = [];
const before = [];
const eight = [];
const append = [];
const served = [{ text: 'x'.repeat(4096) }];
const recorders = Array.from({ length: KEYS }, (_, k) => ledgerRecorder({ sessions: store }, `key-${k}`));
const what = { session_id: '000000000001', kind: 'conversation', range: 'messages 0-199' };
const byKey = [];
const bySession = [];
const floor = [];
for (let r = 0; r < RUNS; r++) {
  // The new and the old way alternate which goes first: the first write after the others' pays for the pages
  // they left cold.
  const recordNew = async () => record.push(await time(() => recorders[r % KEYS]('read_session', what, 'ok', servedOf(served))));
  const recordOld = async () =>
    before.push(
      await time(() =>
        store.transaction((q) =>
          recordLedger(q, { key_id: `key-${r % KEYS}`, op: 'read_session', outcome: 'ok', session_id: '000000000001', kind: 'conversation', name: '', range: 'messages 0-199', query: '', bytes: 4096, sha256: 'ab'.repeat(32) }),
        ),
      ),
    );
  if (r % 2 === 0) (await recordNew(), await recordOld());
  else (await recordOld(), await recordNew());
  // Eight agents' reads arriving together: the time per read of the whole.
  eight.push((await time(() => Promise.all(recorders.map((rec) => rec('read_session', what, 'ok', servedOf(served)))))) / KEYS);
  if (!RECORD_ONLY) append.push(await time(() => store.addMessage(sessionId, `message ${r}`, [])));
  if (!RECORD_ONLY) byKey.push(await time(() => store.transaction((q) => queryLedger(q, { key_id: `key-${r % KEYS}`, limit: 100 }))));
  if (!RECORD_ONLY) bySession.push(await time(() => store.transaction((q) => queryLedger(q, { session_id: (r % SESSIONS).toString(16).padStart(12, '0'), limit: 100 }))));
  floor.push(await time(() => store.transaction((q) => q.get('SELECT 1'))));
}
const ms = (x) => x.toFixed(3);
console.log(machine());
console.log(`record a read (session 14: recordLedger in its own transaction): p50 ${ms(median(before))} ms, p95 ${ms(pct(before, 95))} ms`);
console.log(`record 8 reads at once, per read: p50 ${ms(median(eight))} ms, p95 ${ms(pct(eight, 95))} ms`);
console.log(`record a read: p50 ${ms(median(record))} ms, p95 ${ms(pct(record, 95))} ms${append.length ? `; floor (append a message) p50 ${ms(median(append))} ms, ratio ${(median(record) / median(append)).toFixed(2)}` : ''}`);
if (!RECORD_ONLY) console.log(`page of 100 by key: p50 ${ms(median(byKey))} ms, p95 ${ms(pct(byKey, 95))} ms`);
if (!RECORD_ONLY) console.log(`page of 100 by conversation: p50 ${ms(median(bySession))} ms, p95 ${ms(pct(bySession, 95))} ms`);
console.log(`floor (SELECT 1 in a transaction): p50 ${ms(median(floor))} ms, p95 ${ms(pct(floor, 95))} ms`);
await store.close();
await fs.rm(dir, { recursive: true, force: true });
