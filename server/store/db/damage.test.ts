// A damaged conversation database, met at start by a real server (issue 33, finding 10): each case ends in one
// sentence (the page's GET /api/database and the log), the damaged file and its WAL are left byte for byte as
// they were, nothing more is written, and Export all never answers an archive that passes for a backup.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setLogSink } from '../../core/log.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { SESSION_DB_FILE, type SessionStore } from '../sessions.js';
import { Db } from './connection.js';
import { DATABASE_DAMAGED } from './damage.js';
import { openStore } from '../../testing/fresh-store.js';

const CONVERSATIONS = 30;

let tmp: string;
let stateDir: string;
let file: string;
let server: TestServer | undefined;
let logLines: string[];
let restoreLog: () => void;

beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-damage-'));
  stateDir = path.join(tmp, 'state');
  file = path.join(stateDir, SESSION_DB_FILE);
  logLines = [];
  restoreLog = setLogSink((line) => logLines.push(line));
});

afterEach(async () => {
  restoreLog();
  await server?.close();
  server = undefined;
  await fs.rm(tmp, { recursive: true, force: true });
});

/** A state folder holding `count` conversations of two messages each; the store left open when `keepOpen`. */
async function stateWithConversations(count = CONVERSATIONS, keepOpen = false): Promise<{ ids: string[]; store: SessionStore }> {
  await fs.mkdir(stateDir, { recursive: true, mode: 0o700 });
  const store = await openStore(stateDir);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const s = await store.create({ workspace: tmp, profile: 'default' });
    await store.rename(s.session_id, `Conversation ${i}`);
    await store.addMessage(s.session_id, `question ${i}`, []);
    await store.addMessage(s.session_id, `answer ${i}`, []);
    ids.push(s.session_id);
  }
  if (!keepOpen) await store.close();
  return { ids, store };
}

async function start(): Promise<TestServer> {
  server = await startTestServer({ stateDir, databaseCare: { firstCheckMs: 60_000, everyMs: 60_000 } });
  return server;
}

async function bytesOf(f: string): Promise<Buffer | undefined> {
  return fs.readFile(f).catch(() => undefined);
}

/** Whether `f` holds exactly `bytes` (compared whole: a diff of megabytes would take the test's time). */
async function sameBytes(f: string, bytes: Buffer): Promise<boolean> {
  return (await bytesOf(f))?.equals(bytes) ?? false;
}

async function databaseState(srv: TestServer): Promise<{ state: string; message?: string; unreadable: { session_id: string }[] }> {
  const res = await srv.api('/api/database');
  expect(res.status).toBe(200);
  return (await res.json()) as { state: string; message?: string; unreadable: { session_id: string }[] };
}

async function waitDamaged(srv: TestServer): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const s = await databaseState(srv);
    if (s.state === 'damaged') return s.message!;
    if (Date.now() > deadline) throw new Error(`never reported damaged: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Writes are refused with the damage's sentence, and the archive of everything is no empty 200. */
async function expectNothingWritten(srv: TestServer): Promise<void> {
  const created = await srv.json('/api/session/new', {});
  expect(created.status).toBe(503);
  expect(await created.json()).toEqual({ error: DATABASE_DAMAGED });
}

describe('a damaged database at start', () => {
  it('a 0-byte satchel.db beside a WAL holding the recent commits is damaged, not new: the WAL is kept, one sentence says what to do', async () => {
    const { store } = await stateWithConversations(CONVERSATIONS, true);
    // The WAL while the commits are still only there (no checkpoint yet), then the database emptied.
    const wal = await fs.readFile(`${file}-wal`);
    expect(wal.length).toBeGreaterThan(32);
    await store.close();
    await fs.writeFile(file, '');
    await fs.writeFile(`${file}-wal`, wal);

    const srv = await start();
    const message = await waitDamaged(srv);
    expect(message).toBe(
      `Satchel's conversation database ${file} is damaged (it is empty, yet its journal satchel.db-wal holds ${wal.length} bytes of recent changes); it is left exactly as it was and nothing more is written to it, and there is no backup yet: export what can still be read, then quit Satchel and move the file (with any satchel.db-wal beside it) out of ${stateDir} to start with an empty database.`,
    );
    expect(logLines.some((l) => l.includes(' ERROR ') && l.includes(message))).toBe(true);
    await expectNothingWritten(srv);
    const exported = await srv.api('/api/sessions/export');
    expect(exported.status).toBe(503);
    expect(((await exported.json()) as { error: string }).error).toMatch(/^The conversation database is damaged and no conversation in it can be read/);
    await srv.close();
    server = undefined;
    expect((await fs.stat(file)).size).toBe(0);
    expect(await sameBytes(`${file}-wal`, wal)).toBe(true);
  });

  it('a page of the sessions index overwritten: reported at start instead of "Session not found", nothing written, no empty archive', async () => {
    const { ids } = await stateWithConversations();
    const ro = await Db.openReadOnly(file);
    const pages = await ro.all<{ pageno: number }>("SELECT pageno FROM dbstat WHERE name = 'sqlite_autoindex_sessions_1'");
    const pageSize = (await ro.get<{ page_size: number }>('PRAGMA page_size'))!.page_size;
    await ro.close();
    expect(pages.length).toBeGreaterThan(0);
    // The cell area of the index's first page overwritten, as a bad sector or a stray write would.
    const handle = await fs.open(file, 'r+');
    await handle.write(Buffer.alloc(pageSize / 2, 0xff), 0, pageSize / 2, (pages[0]!.pageno - 1) * pageSize + pageSize / 2);
    await handle.close();
    const damaged = await fs.readFile(file);

    const srv = await start();
    const message = await waitDamaged(srv);
    expect(message).toMatch(new RegExp(`^Satchel's conversation database ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged \\(SQLite's check of it found: .+\\); it is left exactly as it was and nothing more is written to it, and there is no backup yet: .+\\.$`));
    expect(logLines.some((l) => l.includes(' ERROR ') && l.includes(message))).toBe(true);
    // Listed (the table is whole), but opening one says why it cannot be read, not that it does not exist.
    const list = (await (await srv.api('/api/sessions')).json()) as { sessions: unknown[] };
    expect(list.sessions).toHaveLength(CONVERSATIONS);
    const opened = await srv.api(`/api/session?session_id=${ids[0]}`);
    expect(opened.status).toBe(503);
    expect(await opened.json()).toEqual({ error: DATABASE_DAMAGED });
    const renamed = await srv.json('/api/session/rename', { session_id: ids[1], title: 'x' });
    expect(renamed.status).toBe(503);
    await expectNothingWritten(srv);
    const exported = await srv.api('/api/sessions/export');
    expect(exported.status).toBe(503);
    await srv.close();
    server = undefined;
    expect(await sameBytes(file, damaged)).toBe(true);
    // Reading in WAL mode makes an empty WAL beside the file; nothing was written into it.
    expect((await bytesOf(`${file}-wal`))?.length ?? 0).toBe(0);
  });

  it('a session header that is not JSON sets that one conversation aside, named in the log; the others open and take writes', async () => {
    const { ids } = await stateWithConversations(3);
    const db = await Db.open(file);
    await db.run('UPDATE sessions SET header = ? WHERE id = ?', ['{bad', ids[1]!]);
    await db.close();

    const srv = await start();
    const state = await databaseState(srv);
    expect(state.state).toBe('ok');
    expect(state.unreadable).toEqual([{ session_id: ids[1], reason: expect.stringMatching(/^its header is not JSON: /) }]);
    expect(logLines.some((l) => l.includes(`Conversation ${ids[1]} in ${file} could not be read (its header is not JSON: `) && l.includes('it is set aside: left in the database as it is and not listed'))).toBe(true);
    const list = (await (await srv.api('/api/sessions')).json()) as { sessions: { session_id: string }[] };
    expect(list.sessions.map((s) => s.session_id).sort()).toEqual([ids[0], ids[2]].sort());
    expect((await srv.api(`/api/session?session_id=${ids[0]}`)).status).toBe(200);
    expect((await srv.json('/api/session/rename', { session_id: ids[2], title: 'still writable' })).status).toBe(200);
    await srv.close();
    server = undefined;
    // The row set aside is still there as it was.
    const ro = await Db.openReadOnly(file);
    expect((await ro.get<{ header: string }>('SELECT header FROM sessions WHERE id = ?', [ids[1]!]))?.header).toBe('{bad');
    await ro.close();
  });

  for (const [name, spoil] of [
    ['garbage in place of the database', async () => fs.writeFile(file, randomBytes(64 * 1024))],
    [
      'a zeroed header',
      async () => {
        const handle = await fs.open(file, 'r+');
        await handle.write(Buffer.alloc(100), 0, 100, 0);
        await handle.close();
      },
    ],
  ] as const) {
    it(`${name}: the server starts and says so in one sentence instead of exiting with SQLITE_NOTADB`, async () => {
      await stateWithConversations(3);
      await spoil();
      const before = await fs.readFile(file);
      const srv = await start();
      const message = await waitDamaged(srv);
      expect(message).toBe(
        `Satchel's conversation database ${file} is damaged (it does not begin as an SQLite database does: its first bytes were overwritten); it is left exactly as it was and nothing more is written to it, and there is no backup yet: export what can still be read, then quit Satchel and move the file (with any satchel.db-wal beside it) out of ${stateDir} to start with an empty database.`,
      );
      expect(logLines.some((l) => l.includes(message))).toBe(true);
      await expectNothingWritten(srv);
      expect((await srv.api('/api/sessions/export')).status).toBe(503);
      await srv.close();
      server = undefined;
      expect(await sameBytes(file, before)).toBe(true);
    });
  }
});

describe('damage met at run time', () => {
  it('the first SQLITE_CORRUPT on a read marks the store damaged: the read and every write answer the sentence, the file is left as it was', async () => {
    const { ids } = await stateWithConversations(3);
    // Long messages, so the messages table has leaf pages of its own to damage.
    const store0 = await openStore(stateDir);
    for (const id of ids) await store0.addMessage(id, 'x'.repeat(3000), []);
    await store0.close();
    const ro = await Db.openReadOnly(file);
    const leaf = (await ro.get<{ pageno: number }>("SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1"))!.pageno;
    const pageSize = (await ro.get<{ page_size: number }>('PRAGMA page_size'))!.page_size;
    await ro.close();

    const store = await openStore(stateDir);
    expect(store.damage).toBeUndefined();
    // Damaged under the running store (only listings were read: no message page is in its cache).
    const handle = await fs.open(file, 'r+');
    await handle.write(Buffer.alloc(8, 0xff), 0, 8, (leaf - 1) * pageSize);
    await handle.close();
    const damaged = await fs.readFile(file);
    const results = await Promise.allSettled(ids.map((id) => store.get(id)));
    expect(results.some((r) => r.status === 'rejected' && (r.reason as { status?: number; message: string }).status === 503 && (r.reason as Error).message === DATABASE_DAMAGED)).toBe(true);
    expect(store.damage?.kind).toBe('corrupt');
    await expect(store.create({ workspace: tmp, profile: 'default' })).rejects.toMatchObject({ status: 503, message: DATABASE_DAMAGED });
    await new Promise((r) => setTimeout(r, 100));
    expect(logLines.some((l) => l.includes(' ERROR ') && l.includes(`Satchel's conversation database ${file} is damaged (SQLite reports "database disk image is malformed")`))).toBe(true);
    await store.close();
    expect(await sameBytes(file, damaged)).toBe(true);
  });

  it('a conversation listed but no longer found by its id is damage, not "Session not found"', async () => {
    const { ids } = await stateWithConversations(2);
    const store = await openStore(stateDir);
    // Another writer (or a damaged index) takes the row away under the listing.
    const other = await Db.open(file);
    await other.run('DELETE FROM sessions WHERE id = ?', [ids[0]!]);
    await other.close();
    await expect(store.get(ids[0])).rejects.toMatchObject({ status: 503, message: DATABASE_DAMAGED });
    expect(store.damage).toMatchObject({ kind: 'missing-row', what: `conversation ${ids[0]} is listed in it but cannot be read back` });
    await expect(store.rename(ids[1]!, 'no more writes')).rejects.toMatchObject({ status: 503 });
    await store.close();
  });

  it('Export all, once a conversation cannot be read, holds the others and names it in NOT EXPORTED.txt', async () => {
    const { ids } = await stateWithConversations(2);
    const srv = await start();
    // The row of the first goes from under the running server (a damaged page, another writer).
    const other = await Db.open(file);
    await other.run('DELETE FROM sessions WHERE id = ?', [ids[0]!]);
    await other.close();
    const res = await srv.api('/api/sessions/export');
    expect(res.status).toBe(200);
    const zip = path.join(tmp, 'all.zip');
    await fs.writeFile(zip, Buffer.from(await res.arrayBuffer()));
    const members = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n');
    expect(members).toContain('NOT EXPORTED.txt');
    expect(members.some((m) => m.includes(ids[1]!) && m.endsWith('/conversation.json'))).toBe(true);
    expect(members.some((m) => m.includes(ids[0]!))).toBe(false);
    const note = execFileSync('unzip', ['-p', zip, 'NOT EXPORTED.txt'], { encoding: 'utf8' });
    expect(note).toBe(`These conversations could not be read from the damaged database and are not in this archive (Settings → Backups may bring them back):\n\n${ids[0]}  Conversation 0\n`);
    expect((await databaseState(srv)).state).toBe('damaged');
  });
});
