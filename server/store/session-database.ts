// The session store's database connection through its life: opened (migrated, older JSON moved in, listings read),
// found damaged (then every write refused and said once in the log), backed up, and closed, where a damaged one is
// let go but never closed. Apart from the store (sessions.ts), which keeps the sessions, so the rules of a
// connection's end, subtle and written for issue 33, sit in one short file.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { HttpError } from '../core/errors.js';
import { log } from '../core/log.js';
import { listBackups, makeBackup, type BackupInfo, type BackupReason } from './db/backup.js';
import type { Db } from './db/connection.js';
import { corruptDamage, DATABASE_DAMAGED, damageSentence, type DatabaseDamage, type UnreadableSession } from './db/damage.js';
import { DATABASE_REPLACING, openSessionDatabase } from './db/open.js';
import { SearchReader } from './db/search-reader.js';
import type { SessionListing } from './db/session-rows.js';
import { guardLockedFile } from './never-open.js';
import { SESSION_DB_FILE } from './session-shapes.js';

/** Connections to a damaged database, let go but never closed (SessionDatabase.close). */
const LET_GO: Db[] = [];

export class SessionDatabase {
  private db: Db | undefined;
  /** Searches' own read-only connection (db/search-reader.ts): a search never holds a write. */
  private reader: SearchReader | undefined;
  /** Set once the database is found damaged (db/damage.ts): nothing is written from then on. */
  damage: DatabaseDamage | undefined;
  /** Conversations whose header could not be read at load: left in the database, not listed (db/damage.ts). */
  unreadable: UnreadableSession[] = [];
  /** Ends the database file's guard (store/never-open.ts) once the connection is closed. */
  private unguard: (() => void) | undefined;

  /** `idleCheckpointMs`: how long without a write before the WAL is emptied (db/wal.ts; tests shorten it). */
  constructor(
    private readonly stateDir: string,
    private readonly idleCheckpointMs?: number,
  ) {}

  /** The database file. */
  get file(): string {
    return path.join(this.stateDir, SESSION_DB_FILE);
  }

  /**
   * Open the database (created on first start), bring its schema up to date, move in any JSON session files an
   * older Satchel left (db/import-json.ts); the listing of every session is the answer: no message is read here.
   */
  async open(): Promise<SessionListing[]> {
    // A damaged database (db/damage.ts) still loads: what can be read is listed, nothing is written.
    const opened = await openSessionDatabase(this.stateDir, this.file, (err) => this.damaged(corruptDamage(this.file, err)), this.idleCheckpointMs);
    this.unreadable = opened.unreadable;
    this.db = opened.db;
    if (opened.damage) this.damaged(opened.damage);
    // SQLite's locks on the file go with any close of it in this process: nothing else here may open it.
    this.unguard = await fsp.stat(this.file).then(guardLockedFile, () => undefined);
    // Searches read on a connection of their own (db/search-reader.ts); a damaged file may refuse one, and then
    // a search answers as every other read of a damaged database does.
    this.reader = await SearchReader.open(this.file).catch((err: unknown) => {
      if (this.damage) return undefined;
      throw err;
    });
    return opened.listings;
  }

  /** Found damaged (db/damage.ts), the first time: every write refused from now on, and said once in the log. */
  damaged(found: DatabaseDamage): void {
    if (this.damage) return;
    this.damage = found;
    this.db?.refuseWrites(new HttpError(503, DATABASE_DAMAGED));
    void listBackups(this.stateDir)
      .catch(() => [])
      .then((backups) => log.error(damageSentence(found, backups[0]?.created_at)));
  }

  /**
   * Close the connection once `writesEnded` resolves (the store's writes under way finish first: a stopping turn
   * stores its rows). A damaged one is let go, not closed (below). False when none was open.
   */
  async close(writesEnded: () => Promise<void>): Promise<boolean> {
    const db = this.db;
    if (!db) return false;
    // A search under way is stopped at once: stopping never waits on one.
    const reader = this.reader;
    this.reader = undefined;
    await reader?.close();
    await writesEnded();
    this.db = undefined;
    // Closing checkpoints the WAL into the file: a damaged file and its WAL are left exactly as they were found.
    // A connection let go stays referenced for the life of the process: node-sqlite3 closes a collected one, and
    // that close would checkpoint into the damaged file and remove `-wal`/`-shm` by name, which after a restore
    // are the restored database's.
    // (A let-go connection keeps its locks, so its file stays guarded.)
    if (this.damage) LET_GO.push(db);
    else {
      await db.close();
      this.unguard?.();
    }
    this.unguard = undefined;
    return true;
  }

  /** Another database is about to be put in place (a restore): writes stop now. */
  replacing(): void {
    this.db?.refuseWrites(new HttpError(503, DATABASE_REPLACING));
  }

  /** Forget the damage of the database that was closed, before the one put in its place opens. */
  reset(): void {
    this.damage = undefined;
  }

  /** A checked backup of the database in backups/ (db/backup.ts). */
  backup(reason: BackupReason, now?: Date): Promise<BackupInfo> {
    return makeBackup(this.opened(), this.stateDir, reason, now);
  }

  /** The connection, or the reason there is none. */
  opened(): Db {
    if (!this.db) throw this.notOpen();
    return this.db;
  }

  /** The searches' connection, or the reason there is none. */
  searchReader(): SearchReader {
    if (!this.reader) throw this.notOpen();
    return this.reader;
  }

  private notOpen(): Error {
    return this.damage ? new HttpError(503, DATABASE_DAMAGED) : new Error('the session store is not open');
  }
}
