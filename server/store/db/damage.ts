// A damaged conversation database is never met with silence (issue 33, finding 10). Before SQLite is let near
// the file, its bytes are looked at: SQLite itself treats a 0-byte database as a new one and deletes the WAL
// beside it (the recent commits gone), and answers a file that is not a database with a bare SQLITE_NOTADB.
// A file SQLite can open is then read as usual; damage it meets there or later (SQLITE_CORRUPT, a conversation
// listed but not found by its id) makes the store refuse every write from then on, so the file and its WAL stay
// exactly as they were found, and one sentence says what happened and what to do.
import fs from 'node:fs/promises';
import path from 'node:path';
import { log } from '../../core/log.js';
import type { SessionListing } from './session-rows.js';

/** The first 16 bytes of every SQLite 3 database file (sqlite.org/fileformat.html, "The Database Header"). */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');
/** A WAL's own header; a WAL shorter than it holds no commit. */
const WAL_HEADER_BYTES = 32;

export type DamageKind = 'empty-beside-journal' | 'not-a-database' | 'corrupt' | 'missing-row' | 'check' | 'backup-check';

/** What was found wrong with the database file, and when. */
export interface DatabaseDamage {
  kind: DamageKind;
  /** The database file, as the sentence names it. */
  file: string;
  /** What was wrong, in words (no SQLite code alone). */
  what: string;
  /** ISO time it was found. */
  found_at: string;
}

/** A conversation whose header could not be read: left in the database as it is, left out of the list. */
export interface UnreadableSession {
  session_id: string;
  reason: string;
}

/** The answer to every write once the database is damaged (503): nothing more is written into the file. */
export const DATABASE_DAMAGED = 'The conversation database is damaged, so nothing more is saved to it: open Settings → Backups to restore a backup';

/** One sentence: what happened and what to do, given the newest verified backup (its ISO time) if any. */
export function damageSentence(damage: DatabaseDamage, latestBackup: string | undefined): string {
  const left = `Satchel's conversation database ${damage.file} is damaged (${damage.what}); it is left exactly as it was and nothing more is written to it`;
  if (latestBackup) return `${left}: open Settings → Backups and restore the backup of ${latestBackup} (the damaged file is kept aside), or export what can still be read first.`;
  return `${left}, and there is no backup yet: export what can still be read, then quit Satchel and move the file (with any ${path.basename(damage.file)}-wal beside it) out of ${path.dirname(damage.file)} to start with an empty database.`;
}

function damage(kind: DamageKind, file: string, what: string): DatabaseDamage {
  return { kind, file, what, found_at: new Date().toISOString() };
}

async function sizeOf(file: string): Promise<number | undefined> {
  try {
    return (await fs.lstat(file)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Damage visible in the files alone, before SQLite opens them (SQLite would then delete the WAL or fail with a
 * code): a missing or empty database beside its WAL or shared-memory file is a damaged one, not a new one
 * (SQLite writes the first page as soon as it makes a database, so no crash leaves an empty one with a WAL
 * behind); a file that does not begin with SQLite's header (garbage, a zeroed header) is not a database.
 */
export async function inspectDatabaseFiles(file: string): Promise<DatabaseDamage | undefined> {
  const [size, walSize, shmSize] = await Promise.all([sizeOf(file), sizeOf(`${file}-wal`), sizeOf(`${file}-shm`)]);
  if (!size) {
    if (walSize === undefined && shmSize === undefined) return undefined;
    const journal = walSize !== undefined && walSize >= WAL_HEADER_BYTES ? `its journal ${path.basename(file)}-wal holds ${walSize} bytes of recent changes` : `its journal files are still beside it`;
    return damage('empty-beside-journal', file, `it is ${size === undefined ? 'missing' : 'empty'}, yet ${journal}`);
  }
  const head = Buffer.alloc(SQLITE_HEADER.length);
  const handle = await fs.open(file, 'r');
  try {
    await handle.read(head, 0, head.length, 0);
  } finally {
    await handle.close();
  }
  if (!head.equals(SQLITE_HEADER)) return damage('not-a-database', file, 'it does not begin as an SQLite database does: its first bytes were overwritten');
  return undefined;
}

/** Damage SQLite reported on a statement. */
export function corruptDamage(file: string, err: Error): DatabaseDamage {
  return damage('corrupt', file, `SQLite reports "${err.message.replace(/^SQLITE_\w+: /, '')}"`);
}

/** A conversation the list holds (read from the table) but the database cannot find by its id: an index is damaged. */
export function missingRowDamage(file: string, id: string): DatabaseDamage {
  return damage('missing-row', file, `conversation ${id} is listed in it but cannot be read back`);
}

/** SQLite's own check of the file (PRAGMA quick_check) found problems. */
export function checkDamage(file: string, problem: string): DatabaseDamage {
  return damage('check', file, `SQLite's check of it found: ${problem}`);
}

/** A fresh backup copy failed SQLite's check: the pages it copied are damaged where they came from. */
export function backupCheckDamage(file: string, problem: string): DatabaseDamage {
  return damage('backup-check', file, `a copy of it failed SQLite's check: ${problem}`);
}

/** Log a header that is not a conversation's: named, so the person (or support) can find it in the file. */
export function logUnreadable(file: string, unreadable: UnreadableSession): void {
  log.error(`Conversation ${unreadable.session_id} in ${file} could not be read (${unreadable.reason}); it is set aside: left in the database as it is and not listed`);
}

/** A sessions row as readListings reads it. */
export interface ListingRow {
  id: string;
  header: string;
  message_count: number;
  attachment_count: number;
}

/**
 * A sessions row as a listing, or why it is not one: its header must be JSON, an object, naming the row's own
 * id. One row that is not makes that conversation unreadable, never the others.
 */
export function listingOfRow(row: ListingRow): SessionListing | UnreadableSession {
  let header: unknown;
  try {
    header = JSON.parse(row.header);
  } catch (err) {
    return { session_id: row.id, reason: `its header is not JSON: ${(err as Error).message}` };
  }
  if (!header || typeof header !== 'object' || Array.isArray(header) || (header as { session_id?: unknown }).session_id !== row.id) {
    return { session_id: row.id, reason: 'its header is not a conversation header for this id' };
  }
  return { ...(header as SessionListing), message_count: row.message_count, attachment_count: row.attachment_count };
}
