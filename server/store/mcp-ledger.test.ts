// The ledger's bounds (issue 39): the newest MAX_LEDGER_ENTRIES rows (here a small max), none older than a year,
// enforced every LEDGER_PRUNE_EVERY rows written; pages newest first by key and by conversation.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { SessionStore } from './sessions.js';
import { LEDGER_MAX_AGE_MS, LEDGER_PRUNE_EVERY, MAX_LEDGER_TEXT_CHARS, pruneLedger, queryLedger, recordLedger, type LedgerInput } from './mcp-ledger.js';
import { freshStore, removeStore } from '../testing/fresh-store.js';

let dir: string;
let store: SessionStore;

beforeEach(async () => ({ dir, store } = await freshStore('satchel-ledger-')));

afterEach(() => removeStore({ dir, store }));

const row = (i: number, extra: Partial<LedgerInput> = {}): LedgerInput => ({
  key_id: `k${i % 2}`,
  op: 'read_session',
  outcome: 'ok',
  session_id: `s${i % 3}`,
  kind: 'conversation',
  name: '',
  range: '',
  query: '',
  bytes: i,
  sha256: null,
  ...extra,
});

it('keeps the newest rows and none older than a year', async () => {
  const now = Date.UTC(2027, 0, 1);
  await store.transaction(async (q) => {
    await recordLedger(q, row(0), now - LEDGER_MAX_AGE_MS - 1);
    for (let i = 1; i <= 20; i++) await recordLedger(q, row(i), now);
  });
  await store.transaction((q) => pruneLedger(q, now, 10));
  const left = await store.transaction((q) => queryLedger(q, { limit: 100 }));
  expect(left.map((r) => r.bytes)).toEqual([20, 19, 18, 17, 16, 15, 14, 13, 12, 11]);
  await store.transaction((q) => pruneLedger(q, now + LEDGER_MAX_AGE_MS + 1));
  expect(await store.transaction((q) => queryLedger(q, { limit: 100 }))).toEqual([]);
});

it('prunes as it writes, every LEDGER_PRUNE_EVERY rows', async () => {
  const now = Date.now();
  await store.transaction(async (q) => {
    await recordLedger(q, row(0), now - LEDGER_MAX_AGE_MS - 1);
    for (let i = 1; i < LEDGER_PRUNE_EVERY; i++) await recordLedger(q, row(i), now);
  });
  const all = await store.transaction((q) => queryLedger(q, { limit: 2 * LEDGER_PRUNE_EVERY }));
  expect(all).toHaveLength(LEDGER_PRUNE_EVERY - 1);
  expect(all.some((r) => r.bytes === 0)).toBe(false);
});

it('pages newest first by key and by conversation, and cuts long texts', async () => {
  await store.transaction(async (q) => {
    for (let i = 0; i < 12; i++) await recordLedger(q, row(i, { name: 'n'.repeat(MAX_LEDGER_TEXT_CHARS + 10) }));
  });
  const byKey = await store.transaction((q) => queryLedger(q, { key_id: 'k1', limit: 3 }));
  expect(byKey.map((r) => r.bytes)).toEqual([11, 9, 7]);
  const next = await store.transaction((q) => queryLedger(q, { key_id: 'k1', before: byKey[2]!.id, limit: 3 }));
  expect(next.map((r) => r.bytes)).toEqual([5, 3, 1]);
  const bySession = await store.transaction((q) => queryLedger(q, { session_id: 's0', key_id: 'k0', limit: 10 }));
  expect(bySession.map((r) => r.bytes)).toEqual([6, 0]);
  expect(byKey[0]!.name).toHaveLength(MAX_LEDGER_TEXT_CHARS);
});
