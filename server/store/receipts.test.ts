// The receipts table through the store: coalescing within the window, the bound per conversation, the cascade
// when a conversation is purged, and nothing of it in the search index. Times are given, not waited for.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withDatabase } from '../testing/stored-session.js';
import { Db } from './db/connection.js';
import { migrateSchema, SCHEMA_VERSION } from './db/schema.js';
import { clientLabel, ledgerReceipts, MAX_RECEIPT_LEDGER_ROWS, MAX_RECEIPTS_PER_SESSION, RECEIPT_COALESCE_MS } from './receipts.js';
import type { SessionStore } from './sessions.js';
import type { LedgerInput } from './mcp-ledger.js';
import { freshStore, removeStore } from '../testing/fresh-store.js';

let dir: string;
let store: SessionStore;
beforeEach(async () => ({ dir, store } = await freshStore('satchel-receipts-')));
afterEach(() => removeStore({ dir, store }));

const T0 = Date.parse('2026-11-26T10:42:00Z');
const noKeys = (): string => 'no key';
const NAMES: Record<string, string> = { k1: 'Claude Code', k2: 'Codex', k3: 'Cursor' };
const keyName = (id: string): string => NAMES[id] ?? 'An MCP client';
const read = (key_id: string, session_id: string | null, kind: string, name = '', outcome: LedgerInput['outcome'] = 'ok'): LedgerInput => ({
  key_id,
  op: 'x',
  outcome,
  session_id,
  kind,
  name,
  range: '',
  query: '',
  bytes: 1,
  sha256: null,
});

describe('receipts read from the ledger', () => {
  it('names each agent by its key, coalesces as the table did, counts a search as the conversation, and skips failures and lists', async () => {
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    await store.appendLedger([read('k1', id, 'attachment', 'report.docx')], T0);
    await store.appendLedger([read('k1', id, 'attachment', 'report.docx')], T0 + RECEIPT_COALESCE_MS - 1);
    await store.appendLedger([read('k1', id, 'attachment', 'report.docx')], T0 + RECEIPT_COALESCE_MS + 5_000);
    await store.appendLedger([read('k2', id, 'search')], T0 + 1_000);
    await store.appendLedger([read('k2', id, 'attachment', 'secret.txt', 'not_found'), read('k2', null, 'list'), read('k2', 'other', 'conversation')], T0 + 2_000);
    await store.appendLedger([read('k9', id, 'workspace', 'plan.md')], T0 + 3_000);
    expect((await store.receipts(id, keyName)).map((r) => [r.client, r.kind, r.name, r.count, r.first_at - T0, r.last_at - T0])).toEqual([
      ['Claude Code', 'attachment', 'report.docx', 1, RECEIPT_COALESCE_MS + 5_000, RECEIPT_COALESCE_MS + 5_000],
      ['Claude Code', 'attachment', 'report.docx', 2, 0, RECEIPT_COALESCE_MS - 1],
      ['An MCP client', 'workspace', 'plan.md', 1, 3_000, 3_000],
      ['Codex', 'conversation', '', 1, 1_000, 1_000],
    ]);
  });

  it("one key's receipts of one kind (what a read announces) are the whole list's, past MAX_RECEIPT_LEDGER_ROWS reads too", async () => {
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    let seed = 39;
    const rand = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000) * n);
    const keys = ['k1', 'k2', 'k3'];
    const kinds = ['conversation', 'attachment', 'workspace', 'search', 'list'];
    // k3's 400 reads first, then more of the others' than the window holds (a third of them no receipt's: a list,
    // a failure, another conversation): k3's are then before the window and count in neither answer.
    let at = T0;
    const batch: LedgerInput[] = [];
    for (let i = 0; i < 400 + 2 * MAX_RECEIPT_LEDGER_ROWS; i++) {
      const key = i < 400 ? 'k3' : keys[rand(2)]!;
      batch.push(read(key, rand(10) === 0 ? 'other' : id, kinds[rand(kinds.length)]!, ['a.txt', 'b.md', ''][rand(3)], rand(12) === 0 ? 'not_found' : 'ok'));
      if (batch.length === 50) {
        await store.appendLedger(batch.splice(0), (at += rand(3) * RECEIPT_COALESCE_MS / 2));
      }
    }
    await store.appendLedger(batch.splice(0), (at += 1_000));
    await store.appendLedger([read('k3', id, 'search')], (at += 1_000));
    const all = await store.query((q) => ledgerReceipts(q, id, keyName));
    let compared = 0;
    for (const keyId of keys) {
      for (const kind of ['conversation', 'attachment', 'workspace'] as const) {
        const of = await store.query((q) => ledgerReceipts(q, id, keyName, { keyId, kind }));
        expect(of, `${keyId} ${kind}`).toEqual(all.filter((r) => r.client === keyName(keyId) && r.kind === kind));
        compared += of.length;
      }
    }
    expect(compared).toBe(all.length);
    // k3's 400 reads before the window are left out: only its last search is a receipt.
    expect(await store.query((q) => ledgerReceipts(q, id, keyName, { keyId: 'k3', kind: 'conversation' }))).toMatchObject([{ kind: 'conversation', count: 1 }]);
  });

  it('still lists the receipts stored before the ledger, beside its own, the latest first', async () => {
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    await store.recordReceipt(id, { client: 'Cursor', clientVersion: '0.4', kind: 'attachment', name: 'old.txt' }, T0);
    await store.appendLedger([read('k1', id, 'conversation')], T0 + 60_000);
    await store.recordReceipt(id, { client: 'Hermes', kind: 'workspace', name: 'notes.md' }, T0 + 120_000);
    expect((await store.receipts(id, keyName)).map((r) => [r.client, r.client_version, r.kind, r.name])).toEqual([
      ['Hermes', null, 'workspace', 'notes.md'],
      ['Claude Code', null, 'conversation', ''],
      ['Cursor', '0.4', 'attachment', 'old.txt'],
    ]);
  });
});

describe('MCP read receipts stored before the ledger (the table)', () => {
  it('names well-known clients as people know them and keeps others as given', () => {
    expect(['claude-code', 'Codex', 'codex-mcp-client', 'cursor-vscode', 'hermes-agent', 'my-tool'].map(clientLabel)).toEqual([
      'Claude Code',
      'Codex',
      'Codex',
      'Cursor',
      'Hermes',
      'my-tool',
    ]);
    expect(clientLabel(undefined)).toBe('An MCP client');
  });

  it('coalesces reads of one thing by one client within the window, and starts a new receipt after it', async () => {
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    const read = { client: 'Claude Code', kind: 'attachment' as const, name: 'report.docx' };
    await store.recordReceipt(id, read, T0);
    await store.recordReceipt(id, read, T0 + RECEIPT_COALESCE_MS - 1);
    await store.recordReceipt(id, read, T0 + RECEIPT_COALESCE_MS + 5_000);
    expect((await store.receipts(id, noKeys)).map((r) => [r.count, r.first_at - T0, r.last_at - T0])).toEqual([
      [1, RECEIPT_COALESCE_MS + 5_000, RECEIPT_COALESCE_MS + 5_000],
      [2, 0, RECEIPT_COALESCE_MS - 1],
    ]);
  });

  it(`keeps at most ${MAX_RECEIPTS_PER_SESSION} per conversation, the oldest dropped, and never indexes them`, async () => {
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    for (let i = 0; i < MAX_RECEIPTS_PER_SESSION + 5; i++) await store.recordReceipt(id, { client: 'Codex', kind: 'attachment', name: `zebrafile${i}.txt` }, T0 + i);
    const kept = await store.receipts(id, noKeys);
    expect(kept).toHaveLength(MAX_RECEIPTS_PER_SESSION);
    expect(kept[0]!.name).toBe(`zebrafile${MAX_RECEIPTS_PER_SESSION + 4}.txt`);
    expect(kept.at(-1)!.name).toBe('zebrafile5.txt');
    expect((await store.search('default', 'zebrafile', 10)).hits).toEqual([]);
  });

  it('are added to a database an earlier Satchel wrote (schema 2) by migration 3', async () => {
    const db = await Db.open(path.join(dir, 'old.db'));
    try {
      await migrateSchema(db, 2);
      expect(await db.all("SELECT name FROM sqlite_master WHERE name = 'mcp_receipts'")).toEqual([]);
      await migrateSchema(db);
      expect(await db.all("SELECT name FROM sqlite_master WHERE name = 'mcp_receipts'")).toEqual([{ name: 'mcp_receipts' }]);
      expect(await db.all('SELECT version FROM schema_version')).toEqual([{ version: SCHEMA_VERSION }]);
    } finally {
      await db.close();
    }
  });

  it('removes them with the conversation when it is purged', async () => {
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    await store.recordReceipt(id, { client: 'Cursor', kind: 'conversation', name: '' }, T0);
    await store.markDeleted(id);
    await store.remove(id);
    await store.close();
    const left = await withDatabase(dir, (db) => db.all('SELECT * FROM mcp_receipts'));
    expect(left).toEqual([]);
    await store.load();
  });
});
