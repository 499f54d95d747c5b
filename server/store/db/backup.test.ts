// Automatic backups (db/backup.ts, store/database-care.ts): daily when due, the newest BACKUPS_KEPT kept, each
// checked before it counts; a copy of a damaged database never counts and never pushes a good one out.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { backupIfDue, startDatabaseCare } from '../database-care.js';
import { SESSION_DB_FILE, type SessionStore } from '../sessions.js';
import { BACKUP_DIR, BACKUP_INTERVAL_MS, BACKUPS_KEPT, listBackups } from './backup.js';
import { Db } from './connection.js';
import { openStore } from '../../testing/fresh-store.js';

let tmp: string;
let store: SessionStore;

beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-backup-'));
  store = await openStore(tmp);
  const s = await store.create({ workspace: tmp, profile: 'default' });
  await store.addMessage(s.session_id, 'kept in every backup', []);
});

afterEach(async () => {
  await store.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const day = (n: number) => new Date(Date.UTC(2026, 10, 1) + n * BACKUP_INTERVAL_MS);

it('backs up once a day: due with none, not again within the interval, the newest BACKUPS_KEPT kept', async () => {
  expect(await backupIfDue(tmp, store, day(0))).toBeDefined();
  expect(await backupIfDue(tmp, store, new Date(day(1).getTime() - 1))).toBeUndefined();
  for (let n = 1; n <= BACKUPS_KEPT + 2; n++) expect(await backupIfDue(tmp, store, day(n))).toBeDefined();
  const kept = await listBackups(tmp);
  expect(kept.map((b) => b.created_at)).toEqual(Array.from({ length: BACKUPS_KEPT }, (_, i) => day(BACKUPS_KEPT + 2 - i).toISOString()));
  // Only checked backups in the folder: no partial, no WAL beside them.
  expect((await fs.readdir(path.join(tmp, BACKUP_DIR))).sort()).toEqual(kept.map((b) => b.name).sort());
  // Each is a whole database holding the conversation.
  const copy = await Db.openCopy(path.join(tmp, BACKUP_DIR, kept[0]!.name));
  expect((await copy.get<{ row: string }>('SELECT row FROM messages'))!.row).toContain('kept in every backup');
  expect(await copy.get('PRAGMA quick_check')).toEqual({ quick_check: 'ok' });
  await copy.close();
  expect((await fs.readdir(path.join(tmp, BACKUP_DIR))).sort()).toEqual(kept.map((b) => b.name).sort());
});

it('a copy of a damaged database does not count: no backup listed, none pushed out, the database reported damaged', async () => {
  for (let n = 0; n < BACKUPS_KEPT; n++) await backupIfDue(tmp, store, day(n));
  const good = await listBackups(tmp);
  expect(good).toHaveLength(BACKUPS_KEPT);
  await store.close();
  // The sessions index's first page overwritten, then the store opened again on it.
  const file = path.join(tmp, SESSION_DB_FILE);
  const ro = await Db.openReadOnly(file);
  const page = (await ro.get<{ pageno: number }>("SELECT pageno FROM dbstat WHERE name = 'sqlite_autoindex_sessions_1'"))!.pageno;
  const pageSize = (await ro.get<{ page_size: number }>('PRAGMA page_size'))!.page_size;
  await ro.close();
  const handle = await fs.open(file, 'r+');
  await handle.write(Buffer.alloc(pageSize / 2, 0xff), 0, pageSize / 2, (page - 1) * pageSize + pageSize / 2);
  await handle.close();
  store = await openStore(tmp);
  expect(store.damage).toBeUndefined();
  // The daily backup goes through its own store path (the damage is only found by the copy's check).
  await expect(store.backup('daily', day(BACKUPS_KEPT + 1))).rejects.toThrow(/Tree \d+ page \d+/);
  expect(await listBackups(tmp)).toEqual(good);
  expect((await fs.readdir(path.join(tmp, BACKUP_DIR))).sort()).toEqual(good.map((b) => b.name).sort());
  expect(await backupIfDue(tmp, store, day(BACKUPS_KEPT + 1))).toBeUndefined();
  expect(store.damage?.kind).toBe('backup-check');
  expect(await listBackups(tmp)).toEqual(good);
});

it('the care started with the server checks the database and makes the first backup without waiting a day', async () => {
  const care = startDatabaseCare(tmp, store, { firstCheckMs: 0, everyMs: 60_000 });
  await care.started;
  await care.stop();
  expect(store.damage).toBeUndefined();
  expect((await listBackups(tmp)).map((b) => b.reason)).toEqual(['daily']);
});
