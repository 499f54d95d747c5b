import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withDatabase } from '../../testing/stored-session.js';
import { DISK_FULL_SESSION, SESSION_DB_FILE, SessionStore } from '../sessions.js';
import { Db } from './connection.js';
import { SCHEMA_VERSION } from './schema.js';
import { freshStore, openStore, removeStore } from '../../testing/fresh-store.js';

let dir: string;
let store: SessionStore;
beforeEach(async () => ({ dir, store } = await freshStore('satchel-db-')));
afterEach(() => removeStore({ dir, store }));

const withDb = <T>(work: (db: Db) => Promise<T>): Promise<T> => withDatabase(dir, work);

/** The ids of sessions whose indexed text matches `query` (FTS5 syntax), with the kind of row matched. */
const found = (query: string) =>
  withDb((db) =>
    db.all<{ session_id: string; kind: string; position: number }>(
      'SELECT d.session_id, d.kind, d.position FROM search JOIN search_docs d ON d.id = search.rowid WHERE search MATCH ? ORDER BY d.session_id, d.kind, d.position',
      [query],
    ),
  );

describe('the session database', () => {
  it('is one file in the state folder, mode 0600, in WAL mode with foreign keys, at the current schema version', async () => {
    const file = path.join(dir, SESSION_DB_FILE);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    await withDb(async (db) => {
      expect(await db.get('PRAGMA journal_mode')).toEqual({ journal_mode: 'wal' });
      expect(await db.get('PRAGMA foreign_keys')).toEqual({ foreign_keys: 1 });
      expect(await db.all('SELECT version FROM schema_version')).toEqual([{ version: SCHEMA_VERSION }]);
    });
    // A second start applies nothing twice.
    await store.close();
    store = await openStore(dir);
    await withDb(async (db) => expect(await db.all('SELECT version FROM schema_version')).toEqual([{ version: SCHEMA_VERSION }]));
  });

  it('refuses a database of a newer Satchel rather than misreading it', async () => {
    await store.close();
    await withDb((db) => db.run('UPDATE schema_version SET version = ?', [SCHEMA_VERSION + 1]));
    store = new SessionStore(dir);
    await expect(store.load()).rejects.toThrow(`the session database is of a newer Satchel (schema ${SCHEMA_VERSION + 1}, this one knows ${SCHEMA_VERSION})`);
    store = new SessionStore(path.join(dir, 'other'));
    await fs.mkdir(path.join(dir, 'other'));
    await store.load();
  });

  it('keeps the search index in step with titles, messages and attachment names, through appends, rewrites and renames', async () => {
    const s = await store.create({ workspace: '/w', profile: 'default' });
    const id = s.session_id;
    await store.addMessage(id, 'The quick brown fox', []);
    await store.addMessage(id, 'jumps over the lazy dog', []);
    await store.addAttachment(id, { filename: 'invoice-march.pdf', path: '/p/invoice-march.pdf', size: 1, mime: 'application/pdf', is_image: false });
    await store.rename(id, 'Zebra crossing');
    expect(await found('fox')).toEqual([{ session_id: id, kind: 'message', position: 0 }]);
    expect(await found('lazy')).toEqual([{ session_id: id, kind: 'message', position: 1 }]);
    expect(await found('invoice')).toEqual([{ session_id: id, kind: 'attachment', position: 0 }]);
    expect(await found('zebra')).toEqual([{ session_id: id, kind: 'title', position: 0 }]);
    // A rewrite from row 0 on (the first row replaced): the old text leaves the index, the new one is in it.
    await store.update(id, (d) => {
      d.messages[0] = { ...d.messages[0]!, content: 'A slow green turtle' };
    });
    expect(await found('fox')).toEqual([]);
    expect(await found('turtle')).toEqual([{ session_id: id, kind: 'message', position: 0 }]);
    expect(await found('lazy')).toEqual([{ session_id: id, kind: 'message', position: 1 }]);
    await store.rename(id, 'Giraffe');
    expect(await found('zebra')).toEqual([]);
    expect(await found('giraffe')).toEqual([{ session_id: id, kind: 'title', position: 0 }]);
    // Rows dropped (Regenerate keeps the rows before the exchange): gone from the index as well.
    await store.update(id, (d) => {
      d.messages = d.messages.slice(0, 1);
    });
    expect(await found('lazy')).toEqual([]);
    await withDb(async (db) => {
      // FTS5's own check that the index and its content table agree.
      await db.run("INSERT INTO search (search) VALUES ('integrity-check')");
      expect(await db.all('SELECT position FROM messages WHERE session_id = ?', [id])).toEqual([{ position: 0 }]);
    });
  });

  it('stores an appended message as one new row, leaving the stored rows untouched', async () => {
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    for (let i = 0; i < 5; i++) await store.addMessage(id, `message ${i}`, []);
    // A marker only a rewrite would erase: appends never touch rows already stored.
    await withDb((db) => db.run("UPDATE messages SET row = json_set(row, '$.marker', 1) WHERE session_id = ?", [id]));
    await store.addMessage(id, 'message 5', []);
    const rows = await withDb((db) => db.all<{ position: number; row: string }>('SELECT position, row FROM messages WHERE session_id = ? ORDER BY position', [id]));
    expect(rows.map((r) => [r.position, JSON.parse(r.row).content, JSON.parse(r.row).marker])).toEqual([
      [0, 'message 0', 1],
      [1, 'message 1', 1],
      [2, 'message 2', 1],
      [3, 'message 3', 1],
      [4, 'message 4', 1],
      [5, 'message 5', undefined],
    ]);
  });

  it('rejects a change that assigns into a stored row, keeping the row as stored', async () => {
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    await store.addMessage(id, 'original', []);
    await expect(
      store.update(id, (d) => {
        d.messages[0]!.content = 'changed in place';
      }),
    ).rejects.toThrow(TypeError);
    expect((await store.get(id))!.messages[0]!.content).toBe('original');
    // A row the change made itself stays the change's own: changing it afterwards does not reach the store.
    const mine = { role: 'user' as const, content: 'mine', timestamp: 1 };
    await store.update(id, (d) => {
      d.messages.push(mine);
    });
    mine.content = 'changed later';
    expect((await store.get(id))!.messages[1]!.content).toBe('mine');
  });

  it('answers a full disk with 507 and its text, leaving the session as it was', async () => {
    const { session_id: id } = await store.create({ workspace: '/w', profile: 'default' });
    await store.addMessage(id, 'kept', []);
    // SQLite's own "database or disk is full" (SQLITE_FULL): the store's connection may not grow the file past
    // the pages it has (max_page_count holds per connection, so it is set on the store's own).
    const { page_count } = (await withDb((db) => db.get<{ page_count: number }>('PRAGMA page_count')))!;
    await store.query((q) => q.exec(`PRAGMA max_page_count = ${page_count}`));
    const big = 'x'.repeat(90_000);
    const err = await store.addMessage(id, big, []).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ status: 507, message: DISK_FULL_SESSION });
    expect((await store.get(id))!.messages.map((m) => m.content)).toEqual(['kept']);
    const stored = await withDb((db) => db.all<{ row: string }>('SELECT row FROM messages WHERE session_id = ?', [id]));
    expect(stored.map((r) => JSON.parse(r.row).content)).toEqual(['kept']);
  });
});
