// The ledger's writer (store/mcp-ledger.ts LedgerWriter): reads asked for together are written as one batch, each
// answered only once its batch is committed; a batch that fails refuses every read in it and keeps none of its
// rows; the bounds are still kept (the prune runs after a batch crossing a multiple of LEDGER_PRUNE_EVERY).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { waitUntil } from '../testing/harness.js';
import type { SessionStore } from './sessions.js';
import { LEDGER_MAX_AGE_MS, LEDGER_PRUNE_EVERY, queryLedger, type LedgerInput } from './mcp-ledger.js';
import { freshStore, openStore, removeStore } from '../testing/fresh-store.js';

let dir: string;
let store: SessionStore;

beforeEach(async () => ({ dir, store } = await freshStore('satchel-ledger-writer-')));

afterEach(() => removeStore({ dir, store }));

const row = (i: number, extra: Partial<LedgerInput> = {}): LedgerInput => ({
  key_id: `k${i % 3}`,
  op: 'read_session',
  outcome: 'ok',
  session_id: `s${i}`,
  kind: 'conversation',
  name: `n${i}`,
  range: 'messages 0-199',
  query: '',
  bytes: i,
  sha256: 'ab'.repeat(32),
  ...extra,
});

const all = () => store.transaction((q) => queryLedger(q, { limit: 500 }));

it('writes reads asked for at once, every row in the order asked, each answered once it is on disk', async () => {
  const answered: number[] = [];
  await Promise.all(Array.from({ length: 50 }, (_, i) => store.appendLedger([row(i)]).then(() => answered.push(i))));
  expect(answered).toHaveLength(50);
  const rows = (await all()).reverse();
  expect(rows.map((r) => [r.session_id, r.key_id, r.name, r.bytes, r.range, r.sha256])).toEqual(
    Array.from({ length: 50 }, (_, i) => [`s${i}`, `k${i % 3}`, `n${i}`, i, 'messages 0-199', 'ab'.repeat(32)]),
  );
  // On disk, not only in this connection: a second connection reads them.
  await store.close();
  store = await openStore(dir);
  expect(await all()).toHaveLength(50);
});

it('refuses every read of a batch that cannot be written, and keeps none of its rows', async () => {
  await store.appendLedger([row(0)]);
  // Three reads queued behind a write in progress go as one batch; one of them holds a row the table refuses
  // (its CHECK on the outcome), so the whole statement fails.
  const first = store.appendLedger([row(1)]);
  const batch = [store.appendLedger([row(2)]), store.appendLedger([row(3, { outcome: 'bogus' as LedgerInput['outcome'] })]), store.appendLedger([row(4)])];
  await first;
  const settled = await Promise.allSettled(batch);
  expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
  expect((await all()).map((r) => r.session_id).reverse()).toEqual(['s0', 's1']);
  // The writer goes on: the next read is recorded.
  await store.appendLedger([row(5)]);
  expect((await all()).map((r) => r.session_id).reverse()).toEqual(['s0', 's1', 's5']);
});

it('writes the rows of one call all or none (a search showing several conversations)', async () => {
  await expect(store.appendLedger([row(1), row(2, { outcome: 'bogus' as LedgerInput['outcome'] })])).rejects.toThrow(/CHECK/);
  await store.appendLedger([row(3), row(4)]);
  expect((await all()).map((r) => r.session_id).reverse()).toEqual(['s3', 's4']);
});

it('prunes rows older than a year once the ids cross a multiple of LEDGER_PRUNE_EVERY, no read waiting for it', async () => {
  const now = Date.now();
  await store.appendLedger([row(0)], now - LEDGER_MAX_AGE_MS - 60_000);
  await store.appendLedger(Array.from({ length: LEDGER_PRUNE_EVERY - 2 }, (_, i) => row(i + 1)), now);
  expect(await store.transaction((q) => q.get<{ n: number }>('SELECT count(*) AS n FROM mcp_ledger'))).toEqual({ n: LEDGER_PRUNE_EVERY - 1 });
  await store.appendLedger([row(LEDGER_PRUNE_EVERY)], now);
  await waitUntil(async () => (await store.transaction((q) => q.get<{ n: number }>('SELECT count(*) AS n FROM mcp_ledger')))?.n === LEDGER_PRUNE_EVERY - 1, 'the prune');
  expect(await store.transaction((q) => q.get('SELECT count(*) AS n FROM mcp_ledger WHERE session_id = ?', ['s0']))).toEqual({ n: 0 });
});
