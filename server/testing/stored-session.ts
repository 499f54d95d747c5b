// What the session database holds, read (or changed) from outside the server the way a test checks "what is
// on disk": through a connection of its own to the state folder's database file, never through the store.
import fs from 'node:fs/promises';
import path from 'node:path';
import { Db } from '../store/db/connection.js';
import { deleteSession, readSession, writeSession } from '../store/db/session-rows.js';
import { SESSION_DB_FILE, type Session } from '../store/sessions.js';

const dbFile = (stateDir: string) => path.join(stateDir, SESSION_DB_FILE);

/** `work` on a read-write connection of the test's own to the state folder's database: what is on disk, not what a store remembers. */
export async function withDatabase<T>(stateDir: string, work: (db: Db) => Promise<T>): Promise<T> {
  const db = await Db.open(dbFile(stateDir));
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** The session as stored (undefined when it is not), read with a read-only connection. */
export async function storedSession(stateDir: string, id: string): Promise<Session | undefined> {
  const db = await Db.openReadOnly(dbFile(stateDir));
  try {
    return await readSession(db, id);
  } finally {
    await db.close();
  }
}

/** The stored session as JSON text (the shape a session file had), for "the stored bytes hold X" checks. */
export async function storedSessionText(stateDir: string, id: string): Promise<string> {
  const session = await storedSession(stateDir, id);
  if (!session) throw new Error(`session ${id} is not stored`);
  return JSON.stringify(session, null, 2);
}

/**
 * Every byte of the database files (the database, its write-ahead log), as text: for "never stored anywhere"
 * checks, which then cover the search index and every other session too.
 */
export async function databaseBytes(stateDir: string): Promise<string> {
  const parts = await Promise.all(['', '-wal'].map((suffix) => fs.readFile(dbFile(stateDir) + suffix).catch(() => Buffer.alloc(0))));
  return Buffer.concat(parts).toString('utf8');
}

/** Change a stored session while no server has it open (a state an older or killed Satchel left). */
export async function editStoredSession(stateDir: string, id: string, edit: (session: Session) => void): Promise<void> {
  const db = await Db.open(dbFile(stateDir));
  try {
    await db.transaction(async (q) => {
      const session = await readSession(q, id);
      if (!session) throw new Error(`session ${id} is not stored`);
      edit(session);
      await deleteSession(q, id);
      await writeSession(q, undefined, session);
    });
  } finally {
    await db.close();
  }
}

/** Make every later new row of `table` for session `id` fail inside the server's transaction (a write that cannot be stored). */
export async function blockWrites(stateDir: string, table: 'messages' | 'attachments', id: string): Promise<void> {
  if (!/^[0-9a-f]{12}$/.test(id)) throw new Error(`not a session id: ${id}`);
  const db = await Db.open(dbFile(stateDir));
  try {
    await db.exec(`CREATE TRIGGER block_${table}_${id} BEFORE INSERT ON ${table} WHEN new.session_id = '${id}' BEGIN SELECT RAISE(ABORT, 'blocked by a test'); END;`);
  } finally {
    await db.close();
  }
}

/** The stored session parsed from its JSON text, untyped as a session file read by a test always was. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function storedJson(stateDir: string, id: string): Promise<any> {
  return JSON.parse(await storedSessionText(stateDir, id));
}

/** The ids of every stored session (deleted ones not yet purged included), sorted. */
export async function storedSessionIds(stateDir: string): Promise<string[]> {
  const db = await Db.openReadOnly(dbFile(stateDir));
  try {
    return (await db.all<{ id: string }>('SELECT id FROM sessions ORDER BY id')).map((r) => r.id);
  } finally {
    await db.close();
  }
}
