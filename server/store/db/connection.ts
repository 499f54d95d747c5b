// One SQLite database file in the state folder, through node-sqlite3 (an N-API binding: the same build loads
// under Node and inside Electron; docs/architecture.md says why this one). node-sqlite3 is callback-based and
// runs each statement on libuv's thread pool; this module wraps it in promises and owns the only transaction
// lock, so two sessions' writes never interleave their statements inside one connection's transaction.
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import type sqlite3Types from 'sqlite3';
import { IndexMerges, mergeStep } from './index-merge.js';
import { IDLE_CHECKPOINT_BUSY_MS, IDLE_CHECKPOINT_MS, IdleCheckpoint, WAL_PRAGMAS } from './wal.js';

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

/**
 * The page size of a database made from now on (issue 37, finding 4); older files are rewritten to it once
 * (schema.ts compactDatabase). Messages are JSON rows of a few hundred bytes to a few KiB: in 4 KiB pages the
 * rows that do not fit a page's end left 15 % of the table unused, in 16 KiB pages 6 % (docs/benchmarks.md).
 * It must be set before the file is put in WAL mode, which fixes it.
 */
export const DB_PAGE_SIZE = 16_384;
/**
 * The page cache of the server's connection, in KiB (SQLite's own default, now a named bound): each connection keeps
 * up to this of pages read, and `PRAGMA shrink_memory` gives it back once the store is idle (issue 37 finding 8: a
 * day's reads must not stay resident). A read of a long conversation touches its pages once; more cache would not
 * make a second read cheaper than the kept session it comes from (session-cache.ts).
 */
export const CACHE_SIZE_KIB = 2_048;

/** The database file's mode: sessions hold what the person wrote; the state folder is 0700 too. */
const DB_FILE_MODE = 0o600;

/** node-sqlite3's Backup object (its typings leave it out). */
interface BackupHandle {
  step(pages: number, done: (err: Error | null) => void): void;
  finish(done: (err: Error | null) => void): void;
  readonly completed: boolean;
  readonly failed: boolean;
}

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

/** Pages copied per step of an online backup: about 1 MiB at 4 KiB pages, so statements of the server's own
 * requests run between two steps instead of waiting for a whole large database to be copied. */
export const BACKUP_PAGES_PER_STEP = 256;
/** A step that met the server's own write lock is tried again after this long… */
export const BACKUP_BUSY_RETRY_MS = 20;
/** …this many times in a row at most (2 s of writes without a pause: it fails, the next hourly look tries again). */
export const BACKUP_BUSY_RETRIES = 100;

export class Db implements Queries {
  /** The tail of the transaction queue: each transaction starts when the one before it has ended. */
  private lock: Promise<unknown> = Promise.resolve();
  /** Told of the first SQLITE_CORRUPT / SQLITE_NOTADB a statement meets (db/damage.ts). */
  onCorrupt: ((err: Error) => void) | undefined;
  /** Set once the file is found damaged: every transaction is refused with it, so nothing more is written. */
  private refusal: Error | undefined;
  /** Empties the WAL once writes have paused (wal.ts); only on the server's read-write connection. */
  private idle: IdleCheckpoint | undefined;
  /** Merges the search index in bounded steps after writes (index-merge.ts); once the schema has the index. */
  private merges: IndexMerges | undefined;

  private constructor(private readonly raw: sqlite3Types.Database) {}

  /** From now on refuse every transaction with `err` (reads go on: what can still be read can be exported). */
  refuseWrites(err: Error): void {
    this.refusal ??= err;
  }

  private seen<E extends Error | null>(err: E): E {
    if (err && isDatabaseCorrupt(err)) this.onCorrupt?.(err);
    return err;
  }

  /**
   * Open (creating it when absent, mode 0600) the database at `file`, in WAL mode with foreign keys on, its WAL
   * kept small (wal.ts): cut back after checkpoints, and emptied once no transaction has come for `idleCheckpointMs`.
   */
  static async open(file: string, idleCheckpointMs = IDLE_CHECKPOINT_MS): Promise<Db> {
    // Created here first so its mode is ours: SQLite would create it with the process umask (0644).
    await (await fs.open(file, 'a', DB_FILE_MODE)).close();
    const raw = await new Promise<sqlite3Types.Database>((resolve, reject) => {
      const db: sqlite3Types.Database = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (err) => (err ? reject(err) : resolve(db)));
    });
    const db = new Db(raw);
    raw.configure('busyTimeout', BUSY_TIMEOUT_MS);
    try {
      await db.exec(`PRAGMA page_size = ${DB_PAGE_SIZE}; PRAGMA journal_mode = WAL; PRAGMA synchronous = ${SYNCHRONOUS}; PRAGMA foreign_keys = ON; PRAGMA cache_size = -${CACHE_SIZE_KIB}; ${WAL_PRAGMAS}`);
    } catch (err) {
      await db.close().catch(() => {});
      throw err;
    }
    // Idle: the WAL emptied, then the page cache and other memory SQLite can free given back (shrink_memory).
    db.idle = new IdleCheckpoint(async () => {
      await db.checkpoint();
      await db.releaseMemory();
    }, idleCheckpointMs);
    return db;
  }

  /**
   * Empty the WAL into the database (a TRUNCATE checkpoint), queued as a transaction so it never runs inside one.
   * It waits at most IDLE_CHECKPOINT_BUSY_MS for a search reading the log; then it is left undone (false). Never on
   * a database refused writes: a damaged file and its WAL stay as they were found.
   */
  checkpoint(): Promise<boolean> {
    const run = async (): Promise<boolean> => {
      if (this.refusal) return false;
      this.raw.configure('busyTimeout', IDLE_CHECKPOINT_BUSY_MS);
      try {
        const row = await this.get<{ busy: number }>('PRAGMA wal_checkpoint(TRUNCATE)');
        return row?.busy === 0;
      } finally {
        this.raw.configure('busyTimeout', BUSY_TIMEOUT_MS);
      }
    };
    const done = this.lock.then(run, run);
    this.lock = done.catch(() => {});
    return done;
  }

  /** SQLite's memory this connection can free (its page cache) given back: `PRAGMA shrink_memory`, queued as a
   *  transaction like the checkpoint, so it never runs inside one. */
  releaseMemory(): Promise<void> {
    const run = async (): Promise<void> => {
      if (this.refusal) return;
      await this.exec('PRAGMA shrink_memory');
    };
    const done = this.lock.then(run, run);
    this.lock = done.catch(() => {});
    return done;
  }

  /**
   * Open an existing database file of Satchel's own that no server uses (a backup copy) read-write in rollback
   * mode: no WAL or shared-memory file is left beside it, and checks that write scratch data (FTS5's) can run.
   */
  static async openCopy(file: string): Promise<Db> {
    const raw = await new Promise<sqlite3Types.Database>((resolve, reject) => {
      const db: sqlite3Types.Database = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (err) => (err ? reject(err) : resolve(db)));
    });
    raw.configure('busyTimeout', BUSY_TIMEOUT_MS);
    const db = new Db(raw);
    try {
      await db.exec('PRAGMA journal_mode = DELETE');
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
    return new Promise((resolve, reject) => this.raw.exec(sql, (err) => (err ? reject(this.seen(err)) : resolve())));
  }

  run(sql: string, params: Params = []): Promise<RunResult> {
    const seen = (err: Error) => this.seen(err);
    return new Promise((resolve, reject) =>
      this.raw.run(sql, params, function (this: sqlite3Types.RunResult, err: Error | null) {
        if (err) reject(seen(err));
        else resolve({ changes: this.changes, lastID: this.lastID });
      }),
    );
  }

  all<T>(sql: string, params: Params = []): Promise<T[]> {
    return new Promise((resolve, reject) => this.raw.all(sql, params, (err, rows) => (err ? reject(this.seen(err)) : resolve(rows as T[]))));
  }

  get<T>(sql: string, params: Params = []): Promise<T | undefined> {
    return new Promise((resolve, reject) => this.raw.get(sql, params, (err, row) => (err ? reject(this.seen(err)) : resolve(row as T | undefined))));
  }

  /**
   * Copy the database page by page into `file` (SQLite's online backup, a new file), BACKUP_PAGES_PER_STEP at a
   * time; this connection's own writes meanwhile reach the copy too. The copy is not checked here (backup.ts).
   */
  backupTo(file: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const backup: BackupHandle = (this.raw as unknown as { backup(file: string, done: (err: Error | null) => void): BackupHandle }).backup(file, (err: Error | null) => {
        if (err) return reject(err);
        let busy = 0;
        const step = (): void => {
          backup.step(BACKUP_PAGES_PER_STEP, (stepErr: Error | null) => {
            // A transaction of the server's own holds the lock this step wanted (SQLITE_BUSY): not a failure
            // (node-sqlite3 leaves the backup usable), so the step is tried again shortly, a bounded number of
            // times in a row.
            const code = (stepErr as { code?: string } | null)?.code;
            if (stepErr && !backup.failed && (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') && busy++ < BACKUP_BUSY_RETRIES) {
              setTimeout(step, BACKUP_BUSY_RETRY_MS);
              return;
            }
            if (stepErr) return backup.finish(() => reject(this.seen(stepErr)));
            busy = 0;
            if (backup.completed) return backup.finish((e: Error | null) => (e ? reject(e) : resolve()));
            if (backup.failed) return backup.finish(() => reject(new Error('the backup could not be completed')));
            setImmediate(step);
          });
        };
        step();
      });
    });
  }

  /**
   * `work` inside one transaction: committed when it resolves, rolled back when it throws (the error goes on).
   * Transactions run one at a time, in the order asked. BEGIN IMMEDIATE takes the write lock at once, so a
   * transaction never fails halfway for want of it.
   */
  transaction<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    return this.queued(work, true);
  }

  /**
   * From now on, merge the search index in bounded steps after writes (index-merge.ts), each step a transaction of
   * the queue; the index's automerge must be off (applyIndexMergePolicy), or FTS5 merges inside the writes too.
   */
  mergeIndexAfterWrites(): void {
    this.merges ??= new IndexMerges(() => this.queued((q) => mergeStep(q), false));
  }

  /** Whether index merges are under way (tests wait for them). */
  get merging(): boolean {
    return this.merges?.busy ?? false;
  }

  /**
   * One statement as a transaction of its own (SQLite's autocommit: the statement is atomic and committed when it
   * returns), in the queue's order like any transaction: one trip to the thread pool where `transaction` takes
   * three (BEGIN, the statement, COMMIT) and Db.run three more (prepare, run, finalize). Its statement is prepared
   * once and kept until close(): for a write made on every request that never touches the search index (the MCP
   * ledger, store/mcp-ledger.ts), so it does not count toward the index's merge steps.
   */
  runAlone(sql: string, params: Params): Promise<RunResult> {
    return this.queued(async () => {
      let stmt = this.kept.get(sql);
      if (!stmt) {
        stmt = this.prepare(sql);
        this.kept.set(sql, stmt);
        stmt.catch(() => this.kept.delete(sql));
      }
      return (await stmt).run(params);
      // Not counted for the index merges: a statement run alone here writes no search index (the ledger).
    }, false, false);
  }

  /** Statements runAlone keeps prepared (a handful of fixed texts), finalized by close(). */
  private kept = new Map<string, Promise<PreparedStatement>>();

  /** A transaction in the queue; `counted`: a write the index merges count (not one of their own steps);
   *  `wrapped`: false for one statement that commits by itself (runAlone). */
  private queued<T>(work: (q: Queries) => Promise<T>, counted: boolean, wrapped = true): Promise<T> {
    const run = async (): Promise<T> => {
      if (this.refusal) throw this.refusal;
      if (!wrapped) return work(this);
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
    // Counted from the end of the last one queued: a burst of writes is one busy stretch.
    const ended = (): void => {
      this.idle?.wrote();
      if (counted) this.merges?.wrote();
    };
    void done.then(ended, ended);
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

  /**
   * `sql` prepared once, to be run many times (search-reader.ts keeps the search's statements): each run is then
   * one trip to the thread pool, where Db.all is three steps (prepare, run, finalize) and SQLite plans the
   * statement again every time. Finalize it before close(), which fails while a statement is left.
   */
  prepare(sql: string): Promise<PreparedStatement> {
    const seen = (err: Error): Error => this.seen(err);
    return new Promise((resolve, reject) => {
      const stmt: sqlite3Types.Statement = this.raw.prepare(sql, (err: Error | null) => (err ? reject(seen(err)) : resolve(new PreparedStatement(stmt, seen))));
    });
  }

  async close(): Promise<void> {
    this.idle?.stop();
    this.merges?.stop();
    // A merge step under way ends first (they start only after a write, so the queue is otherwise what it was).
    if (this.merges) await this.lock;
    // A statement kept by runAlone would make close() fail (SQLITE_BUSY); a queued one ends first.
    if (this.kept.size > 0) {
      await this.lock;
      const kept = [...this.kept.values()];
      this.kept.clear();
      for (const stmt of kept) await stmt.then((s) => s.finalize(), () => {});
    }
    return new Promise((resolve, reject) => this.raw.close((err) => (err ? reject(err) : resolve())));
  }
}

/** A statement Db.prepare made: run with its parameters bound anew each time. */
export class PreparedStatement {
  constructor(
    private readonly stmt: sqlite3Types.Statement,
    private readonly seen: (err: Error) => Error,
  ) {}

  /**
   * Every row, the statement run to its end: a statement stepped only partway (node-sqlite3's get) would keep
   * its read snapshot open, and with it the WAL, until it is reset.
   */
  all<T>(params: Params = []): Promise<T[]> {
    return new Promise((resolve, reject) => this.stmt.all(params, (err: Error | null, rows: unknown[]) => (err ? reject(this.seen(err)) : resolve(rows as T[]))));
  }

  /** Run to its end for what it changed (an INSERT, an UPDATE). */
  run(params: Params = []): Promise<RunResult> {
    const seen = this.seen;
    return new Promise((resolve, reject) =>
      this.stmt.run(params, function (this: sqlite3Types.RunResult, err: Error | null) {
        if (err) reject(seen(err));
        else resolve({ changes: this.changes, lastID: this.lastID });
      }),
    );
  }

  finalize(): Promise<void> {
    return new Promise((resolve) => this.stmt.finalize(() => resolve()));
  }
}

/** SQLite found the file damaged (SQLITE_CORRUPT) or not a database at all (SQLITE_NOTADB). */
export function isDatabaseCorrupt(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB';
}

/** SQLite's "disk or quota full" (SQLITE_FULL), as node-sqlite3 names it on the error. */
export function isDatabaseFull(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === 'SQLITE_FULL';
}
