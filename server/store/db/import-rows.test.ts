// An import's transactions only write (issue 37, finding 3): the JSON and the index text (a redaction) of its rows
// are made between transactions, where other writes can go first, and its rows are copied and frozen a slice at a
// time with the event loop let go between slices. What the import stores is what it stored before: the same rows,
// the same index texts (a secret in an imported message is masked in the index as ever).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Db as DbType, Queries } from './connection.js';

/** Texts the redactor was given while one of the connection's transactions was open, and in all. */
const seen = vi.hoisted(() => ({ inTransaction: [] as string[], all: [] as string[], open: false, headers: [] as number[], failNext: false }));

vi.mock('../../redact/index.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../redact/index.js')>();
  return {
    ...actual,
    redact: (text: string, ...rest: unknown[]) => {
      seen.all.push(text);
      if (seen.open) seen.inTransaction.push(text);
      return (actual.redact as (t: string, ...r: unknown[]) => string)(text, ...rest);
    },
  };
});

const { longConversation } = await import('../../testing/purge-fixtures.js');
const { SESSION_DB_FILE } = await import('../sessions.js');
const { openStore } = await import('../../testing/fresh-store.js');
const { Db } = await import('./connection.js');
const { SEAL_ROWS_PER_TURN } = await import('../write-queue.js');
const { IMPORT_SHOWN_PER_BATCH } = await import('./import-rows.js');

let dir: string;
const execOf = Db.prototype.exec;
const transactionOf = Db.prototype.transaction;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-import-rows-'));
  seen.inTransaction.length = 0;
  seen.all.length = 0;
  seen.open = false;
  seen.headers.length = 0;
  seen.failNext = false;
  // While a transaction's work runs (the store's writes; the index merges' own steps are not asked through here).
  vi.spyOn(Db.prototype, 'transaction').mockImplementation(function <T>(this: DbType, work: (q: Queries) => Promise<T>) {
    return transactionOf.call(this, async (q: Queries) => {
      seen.open = true;
      // The conversations' headers this transaction writes (each a record's insert or rewrite).
      let headers = 0;
      const counted = new Proxy(q, {
        get(target, key) {
          const value = Reflect.get(target, key) as unknown;
          if (typeof value !== 'function') return value;
          return (sql: unknown, ...rest: unknown[]) => {
            if (typeof sql === 'string' && /^\s*(INSERT INTO sessions|UPDATE sessions SET)\b/.test(sql)) headers++;
            return (value as (...a: unknown[]) => unknown).call(target, sql, ...rest);
          };
        },
      });
      try {
        if (seen.failNext) {
          seen.failNext = false;
          throw Object.assign(new Error('SQLITE_FULL: database or disk is full'), { code: 'SQLITE_FULL' });
        }
        return await work(counted);
      } finally {
        seen.open = false;
        seen.headers.push(headers);
      }
    }) as Promise<T>;
  });
});

afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('an import (insertAll)', () => {
  it("redacts its messages for the index between its transactions, never inside one, and stores the same index texts", async () => {
    const store = await openStore(dir);
    const imported = [longConversation('00000000000c', 300, 'importable'), longConversation('00000000000d', 40, 'alsoimported')];
    // A secret the redactor masks, in one imported message: the index holds its mask, not the key.
    const key = `sk-proj-${'A1b2C3d4E5'.repeat(5)}`;
    imported[0]!.messages[7] = { role: 'user', content: `my key is ${key} keep it`, timestamp: 1_700_000_007 };
    await store.insertAll(imported);
    const contents = new Set(imported.flatMap((s) => s.messages.map((m) => m.content as string)));
    // Every message's text went through the redactor once, outside every transaction.
    expect(seen.all.filter((t) => contents.has(t))).toHaveLength(340);
    expect(seen.inTransaction.filter((t) => contents.has(t))).toEqual([]);
    await store.close();

    const db = await Db.openReadOnly(path.join(dir, SESSION_DB_FILE));
    const doc = await db.get<{ text: string | null; indexed: string }>(
      `SELECT d.text, t.text AS indexed FROM search_docs d JOIN search_texts t ON t.id = d.id WHERE d.session_id = ? AND d.kind = 'message' AND d.position = 7`,
      ['00000000000c'],
    );
    expect(doc!.indexed).not.toContain(key);
    expect(doc!.indexed.startsWith('my key is ')).toBe(true);
    // A message the redactor leaves alone is read from its row, not stored twice (schema 8), as before.
    const plain = await db.get<{ text: string | null; indexed: string }>(
      `SELECT d.text, t.text AS indexed FROM search_docs d JOIN search_texts t ON t.id = d.id WHERE d.session_id = ? AND d.kind = 'message' AND d.position = 8`,
      ['00000000000c'],
    );
    expect(plain).toEqual({ text: null, indexed: imported[0]!.messages[8]!.content });
    const counts = await db.get<{ messages: number; docs: number }>(
      `SELECT (SELECT count(*) FROM messages) AS messages, (SELECT count(*) FROM search_docs WHERE kind = 'message') AS docs`,
    );
    expect(counts).toEqual({ messages: 340, docs: 340 });
    await db.close();

    const reloaded = await openStore(dir);
    expect((await reloaded.get('00000000000c'))!.messages).toEqual(imported[0]!.messages);
    expect((await reloaded.search('default', 'alsoimported', 5)).hits.length).toBeGreaterThan(0);
    await reloaded.close();
  }, 60_000);

  it('lets the event loop turn while it copies a large import, before its first transaction', async () => {
    const store = await openStore(dir);
    const events: string[] = [];
    vi.spyOn(Db.prototype, 'exec').mockImplementation(async function (this: DbType, sql: string) {
      if (sql === 'BEGIN IMMEDIATE') events.push('begin');
      return execOf.call(this, sql);
    });
    const rows = 3 * SEAL_ROWS_PER_TURN;
    const turns = (function count(): { n: number } {
      const c = { n: 0 };
      const tick = (): void => {
        if (events.includes('begin')) return;
        c.n++;
        events.push('turn');
        setImmediate(tick);
      };
      setImmediate(tick);
      return c;
    })();
    await store.insertAll([longConversation('00000000000e', rows, 'sliced')]);
    // Copying 1,500 rows is three slices: the event loop turned between them, before anything was written.
    expect(events[0]).toBe('turn');
    expect(turns.n).toBeGreaterThanOrEqual(2);
    expect((await store.get('00000000000e'))!.messages).toHaveLength(rows);
    expect(Object.isFrozen((await store.get('00000000000e'))!.messages[rows - 1])).toBe(true);
    await store.close();
  }, 60_000);

  it('shows an Export all of many conversations a bounded slice at a time, other writes going between', async () => {
    const store = await openStore(dir);
    const other = await store.create({ workspace: '/w', profile: 'default' });
    const count = 4 * IMPORT_SHOWN_PER_BATCH + 7;
    const imported = Array.from({ length: count }, (_, i) => longConversation(`0000000020${i.toString(16).padStart(2, '0')}`, 2, 'manyshown'));
    seen.headers.length = 0;
    let appended: Promise<unknown> | undefined;
    const order: string[] = [];
    await store.insertAll(imported, (phase) => {
      // An append to another conversation, asked once the first conversations are shown: it is stored before the
      // import ends, not after one transaction that shows them all.
      if (phase === 'shown' && !appended) appended = store.addMessage(other.session_id, 'while the import is shown', []).then(() => order.push('append'));
    });
    order.push('import');
    await appended;
    expect(order).toEqual(['append', 'import']);
    // No transaction of the import writes more conversation headers than a slice (it was one of 107 at the end).
    expect(Math.max(...seen.headers)).toBeLessThanOrEqual(IMPORT_SHOWN_PER_BATCH);
    expect(store.list()).toHaveLength(count + 1);
    for (const s of imported) expect((await store.get(s.session_id))!.messages).toEqual(s.messages);
    expect((await store.search('default', 'manyshown', 5)).hits.length).toBeGreaterThan(0);
    await store.close();
  }, 60_000);

  it('failing after some of its conversations are shown, leaves none of them, now or at the next start', async () => {
    const store = await openStore(dir);
    const count = 2 * IMPORT_SHOWN_PER_BATCH + 3;
    const imported = Array.from({ length: count }, (_, i) => longConversation(`0000000030${i.toString(16).padStart(2, '0')}`, 2, 'failedshown'));
    let shown = 0;
    // The second transaction that shows conversations fails (the first committed the import).
    const failed = store.insertAll(imported, (phase) => {
      if (phase === 'shown' && ++shown === 1) seen.failNext = true;
    });
    await expect(failed).rejects.toThrow();
    expect(shown).toBe(1);
    expect(store.list()).toEqual([]);
    for (const s of imported) expect(await store.get(s.session_id)).toBeUndefined();
    await store.close();
    const db = await Db.openReadOnly(path.join(dir, SESSION_DB_FILE));
    expect(await db.get('SELECT (SELECT count(*) FROM sessions) AS sessions, (SELECT count(*) FROM messages) AS messages, (SELECT count(*) FROM search_docs) AS docs')).toEqual({ sessions: 0, messages: 0, docs: 0 });
    await db.close();
    const reloaded = await openStore(dir);
    expect(reloaded.list()).toEqual([]);
    await reloaded.close();
  }, 60_000);
});
