// Searches run on a connection of their own, read-only, beside the store's one (connection.ts). In WAL mode a
// reader never waits for the writer nor the writer for it: a search that takes long holds no save, no new
// conversation, no turn's rows (on the one connection, a 100,000-character `0 0 0 …` kept every write waiting
// 27 s). Each search has a deadline (SEARCH_DEADLINE_MS), after which SQLite's interrupt stops the statement it
// is in; the interrupt reaches every statement of its connection, so searches take the reader one at a time
// and none can cut another's short. A search whose client has gone is interrupted or never started, and
// close() interrupts the one running, so stopping the server never waits on a search.
import { Db, type Params, type PreparedStatement, type Queries } from './connection.js';

/**
 * How long one search may read before it is stopped: it answers what it has by then (search.ts). The page
 * asks as the person types and an answer a second late is one they have typed past; every search of the
 * benchmarks (docs/benchmarks.md, "Search") takes under a tenth of that, so only a pathological query (one
 * word in millions of places in rows of megabytes) meets it.
 */
export const SEARCH_DEADLINE_MS = 1_000;

/**
 * How often the interrupt is sent again while the statement it was meant for has not stopped: SQLite forgets an
 * interrupt that arrives while no statement steps (node-sqlite3 prepares on one trip to the thread pool and steps
 * on the next), so one sent between the two would be lost.
 */
export const INTERRUPT_RETRY_MS = 20;

/**
 * Statements the reader keeps prepared, the least recently run dropped past this: a search runs the same few (the
 * ranking, per kind of scope, and a row's head and slices), and its fallback's lookup of a varying number of ids
 * is one statement per count. Preparing the ranking and finalizing it on every search, on trips of their own to
 * the thread pool, cost more than running it when the words match little (issue 37, finding 7).
 */
export const MAX_KEPT_STATEMENTS = 16;

/** SQLite's "interrupted" (sqlite3_interrupt), as node-sqlite3 names it on the error. */
export function isInterrupted(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === 'SQLITE_INTERRUPT';
}

/** The search in progress, as the work sees it. */
export interface SearchRun {
  q: Queries;
  /** The deadline has passed (or the client left): what is left to do is only what is bounded without it. */
  readonly expired: boolean;
  /** The client left or the reader is closing: nothing more is worth reading. */
  readonly abandoned: boolean;
}

/** A search given up before it ran or while it ran: its client left, or the store closed. */
export class SearchAbandoned extends Error {
  constructor() {
    super('The search was stopped');
    this.name = 'SearchAbandoned';
  }
}

export class SearchReader {
  /** The tail of the queue: each search starts when the one before it has ended. */
  private queue: Promise<unknown> = Promise.resolve();
  private running: { stop(): void } | undefined;
  /** The statement under way (a search awaits each before the next). */
  private inFlight: Promise<unknown> | undefined;
  private closed = false;
  /** The reader's statements, each noted while it runs, so a stop knows what it must interrupt. */
  private readonly q: Queries;
  /** Prepared statements by their SQL, the least recently run first (MAX_KEPT_STATEMENTS). */
  private readonly kept = new Map<string, Promise<PreparedStatement>>();
  /** Dropped statements being finalized: close() waits for them too. */
  private readonly finalizing = new Set<Promise<void>>();

  private constructor(private readonly db: Db) {
    const track = <T>(p: Promise<T>): Promise<T> => {
      this.inFlight = p;
      const clear = (): void => {
        if (this.inFlight === p) this.inFlight = undefined;
      };
      p.then(clear, clear);
      return p;
    };
    // Reads run kept statements; a get is a run to the end whose first row is taken (search.ts's are by id).
    const all = <T>(sql: string, params?: Params): Promise<T[]> => this.statement(sql).then((stmt) => stmt.all<T>(params));
    this.q = {
      exec: (sql) => track(db.exec(sql)),
      run: (sql, params) => track(db.run(sql, params)),
      all: (sql, params) => track(all(sql, params)),
      get: <T>(sql: string, params?: Params) => track(all<T>(sql, params).then((rows) => rows[0])),
    };
  }

  /** `sql` prepared on the reader's connection, once while it is among the MAX_KEPT_STATEMENTS last run. */
  private statement(sql: string): Promise<PreparedStatement> {
    const known = this.kept.get(sql);
    if (known) {
      this.kept.delete(sql);
      this.kept.set(sql, known);
      return known;
    }
    const prepared = this.db.prepare(sql);
    this.kept.set(sql, prepared);
    // One that did not prepare (interrupted, or wrong) is not kept: the next search prepares it again.
    prepared.catch(() => {
      if (this.kept.get(sql) === prepared) this.kept.delete(sql);
    });
    if (this.kept.size > MAX_KEPT_STATEMENTS) {
      // Not the one running: the reader runs one statement at a time, and this one is about to.
      const [oldest, dropped] = this.kept.entries().next().value as [string, Promise<PreparedStatement>];
      this.kept.delete(oldest);
      const done = dropped.then((stmt) => stmt.finalize(), () => {});
      this.finalizing.add(done);
      void done.then(() => this.finalizing.delete(done));
    }
    return prepared;
  }

  /** Interrupt the statement under way until it has stopped; a statement started after this is not touched. */
  private interrupt(): void {
    const target = this.inFlight;
    if (!target) return;
    this.db.interrupt();
    const again = setInterval(() => this.db.interrupt(), INTERRUPT_RETRY_MS);
    const done = (): void => clearInterval(again);
    target.then(done, done);
  }

  /** A read-only connection to the database at `file` (the store opened it first: it exists, in WAL mode). */
  static async open(file: string): Promise<SearchReader> {
    return new SearchReader(await Db.openReadOnly(file));
  }

  /**
   * `work` alone on the reader. At `deadlineMs` (or when `signal` aborts) the statement under way is interrupted
   * (it rejects, isInterrupted) and `expired` turns true; `work` then decides what it answers. A `signal` already
   * aborted when the turn comes, or the reader closed: SearchAbandoned, nothing read.
   */
  run<T>(work: (run: SearchRun) => Promise<T>, signal?: AbortSignal, deadlineMs = SEARCH_DEADLINE_MS): Promise<T> {
    const go = async (): Promise<T> => {
      if (this.closed || signal?.aborted) throw new SearchAbandoned();
      const reader = this;
      const state = {
        q: this.q,
        expired: false,
        get abandoned(): boolean {
          return reader.closed || signal?.aborted === true;
        },
      };
      const stop = (): void => {
        if (state.expired) return;
        state.expired = true;
        this.interrupt();
      };
      const timer = setTimeout(stop, deadlineMs);
      signal?.addEventListener('abort', stop);
      this.running = { stop };
      try {
        const result = await work(state);
        if (state.abandoned) throw new SearchAbandoned();
        return result;
      } catch (err) {
        // Interrupted because its client left or the reader closed: given up, whatever the statement said.
        throw state.abandoned ? new SearchAbandoned() : err;
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', stop);
        this.running = undefined;
      }
    };
    const done = this.queue.then(go, go);
    // The tail keeps neither the answer nor the error: an idle reader would hold its last search's rows.
    this.queue = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  }

  /** Stop the search under way and those waiting, then close the connection. */
  async close(): Promise<void> {
    this.closed = true;
    this.running?.stop();
    await this.queue;
    // SQLite closes no connection with a statement left on it.
    const kept = [...this.kept.values()];
    this.kept.clear();
    await Promise.all([...kept.map((p) => p.then((stmt) => stmt.finalize(), () => {})), ...this.finalizing]);
    await this.db.close();
  }
}
