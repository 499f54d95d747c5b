// One SQLite database file in the state folder, through node-sqlite3 (an N-API binding: the same build loads
// under Node and inside Electron; docs/architecture.md says why this one). node-sqlite3 is callback-based and
// runs each statement on libuv's thread pool; this module wraps it in promises and owns the only transaction
// lock, so two sessions' writes never interleave their statements inside one connection's transaction.
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import type sqlite3Types from 'sqlite3';

// node-sqlite3 is CommonJS with a native addon; required, not imported, so the ES-module build needs no interop.
const sqlite3 = createRequire(import.meta.url)('sqlite3') as typeof sqlite3Types;

/**
 * How long a statement waits for a lock another connection holds before failing with SQLITE_BUSY. Satchel is
 * the only writer, but a test or a bench may read the file meanwhile (a reader in WAL mode blocks a writer
 * only at a checkpoint); 5 s is far past any such moment and still ends a wait that would otherwise hang.
 */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * synchronous=NORMAL in WAL mode: a commit is written to the WAL before it resolves, so a killed or crashed
 * process loses nothing (the migration's kill test SIGKILLs it 50 times), and the database is never corrupt; the
 * WAL is fsynced at each checkpoint, so a power cut may roll back the last commits before it. FULL (an fsync per
 * commit, as every session file write did) put an append's p95 at 6.6 ms in a 9,800-message conversation here,
 * against 2.6 ms with NORMAL (docs/benchmarks.md), over the 5 ms the issue sets.
 */
const SYNCHRONOUS = 'NORMAL';

/** The database file's mode: sessions hold what the person wrote; the state folder is 0700 too. */
const DB_FILE_MODE = 0o600;

export type Params = ReadonlyArray<string | number | null> | Record<string, string | number | null>;

export interface RunResult {
  changes: number;
  lastID: number;
}

/** A statement runner inside one transaction (or outside any, for reads). */
export interface Queries {
  /** Several statements, no parameters (a schema migration). */
  exec(sql: string): Promise<void>;
  run(sql: string, params?: Params): Promise<RunResult>;
  all<T>(sql: string, params?: Params): Promise<T[]>;
  get<T>(sql: string, params?: Params): Promise<T | undefined>;
}

export class Db implements Queries {
  /** The tail of the transaction queue: each transaction starts when the one before it has ended. */
  private lock: Promise<unknown> = Promise.resolve();

  private constructor(private readonly raw: sqlite3Types.Database) {}

  /** Open (creating it when absent, mode 0600) the database at `file`, in WAL mode with foreign keys on. */
  static async open(file: string): Promise<Db> {
    // Created here first so its mode is ours: SQLite would create it with the process umask (0644).
    await (await fs.open(file, 'a', DB_FILE_MODE)).close();
    const raw = await new Promise<sqlite3Types.Database>((resolve, reject) => {
      const db: sqlite3Types.Database = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (err) => (err ? reject(err) : resolve(db)));
    });
    const db = new Db(raw);
    raw.configure('busyTimeout', BUSY_TIMEOUT_MS);
    try {
      await db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${SYNCHRONOUS}; PRAGMA foreign_keys = ON;`);
    } catch (err) {
      await db.close().catch(() => {});
      throw err;
    }
    return db;
  }

  /** Open an existing database to read it alone (tests and benches checking what is on disk). */
  static async openReadOnly(file: string): Promise<Db> {
    const raw = await new Promise<sqlite3Types.Database>((resolve, reject) => {
      const db: sqlite3Types.Database = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (err) => (err ? reject(err) : resolve(db)));
    });
    raw.configure('busyTimeout', BUSY_TIMEOUT_MS);
    return new Db(raw);
  }

  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => this.raw.exec(sql, (err) => (err ? reject(err) : resolve())));
  }

  run(sql: string, params: Params = []): Promise<RunResult> {
    return new Promise((resolve, reject) =>
      this.raw.run(sql, params, function (this: sqlite3Types.RunResult, err: Error | null) {
        if (err) reject(err);
        else resolve({ changes: this.changes, lastID: this.lastID });
      }),
    );
  }

  all<T>(sql: string, params: Params = []): Promise<T[]> {
    return new Promise((resolve, reject) => this.raw.all(sql, params, (err, rows) => (err ? reject(err) : resolve(rows as T[]))));
  }

  get<T>(sql: string, params: Params = []): Promise<T | undefined> {
    return new Promise((resolve, reject) => this.raw.get(sql, params, (err, row) => (err ? reject(err) : resolve(row as T | undefined))));
  }

  /**
   * `work` inside one transaction: committed when it resolves, rolled back when it throws (the error goes on).
   * Transactions run one at a time, in the order asked. BEGIN IMMEDIATE takes the write lock at once, so a
   * transaction never fails halfway for want of it.
   */
  transaction<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      await this.exec('BEGIN IMMEDIATE');
      let result: T;
      try {
        result = await work(this);
        await this.exec('COMMIT');
      } catch (err) {
        // A failed COMMIT (a full disk) may already have rolled back; ROLLBACK then fails, and that is fine.
        await this.exec('ROLLBACK').catch(() => {});
        throw err;
      }
      return result;
    };
    const done = this.lock.then(run, run);
    this.lock = done.catch(() => {});
    return done;
  }

  /**
   * Stop the statement under way on this connection: it rejects with SQLITE_INTERRUPT (search-reader.ts, a
   * search's deadline). Nothing when none runs, or the connection is closing.
   */
  interrupt(): void {
    try {
      this.raw.interrupt();
    } catch {
      // Closing or closed: nothing runs that could be stopped.
    }
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => this.raw.close((err) => (err ? reject(err) : resolve())));
  }
}

/** SQLite's "disk or quota full" (SQLITE_FULL), as node-sqlite3 names it on the error. */
export function isDatabaseFull(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === 'SQLITE_FULL';
}
