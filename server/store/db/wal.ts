// The write-ahead log kept small (issue 37 finding 4: it stayed at ~100 MiB after an import until Satchel quit).
// SQLite checkpoints the WAL into the database by itself once it holds WAL_AUTOCHECKPOINT_PAGES, but a
// checkpoint only starts the log over; it never makes the file smaller. journal_size_limit cuts the file back to
// WAL_SIZE_LIMIT_BYTES each time the log starts over, and once the store has been idle IDLE_CHECKPOINT_MS a
// TRUNCATE checkpoint empties it. That checkpoint is queued as a transaction (connection.ts), so it never runs
// inside one, and a write asking meanwhile waits for it: after the automatic checkpoints there is little left to
// copy, and a search holding the log open makes it give up (IDLE_CHECKPOINT_BUSY_MS) rather than wait.

/** Pages in the WAL before a commit checkpoints it (SQLite's default 1000: 4 MiB at 4 KiB pages). */
export const WAL_AUTOCHECKPOINT_PAGES = 1_000;

/** The size the WAL file is cut back to whenever it starts over (the bound for it after large writes). */
export const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

/** How long the store is without a write before the WAL is emptied: past a burst of writes, not inside one. */
export const IDLE_CHECKPOINT_MS = 30_000;

/**
 * How long the idle checkpoint waits for a search reading the log to finish before giving up until the next idle
 * moment; the busy timeout of the connection (5 s) is meant for writes, and a write must not wait behind it.
 */
export const IDLE_CHECKPOINT_BUSY_MS = 50;

/** The pragmas every read-write connection of the server's database starts with. */
export const WAL_PRAGMAS = `PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}; PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT_BYTES};`;

/** Runs `checkpoint` once no write has come for `idleMs` after the last one; one timer, never holding the process. */
export class IdleCheckpoint {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly checkpoint: () => Promise<unknown>,
    private readonly idleMs = IDLE_CHECKPOINT_MS,
  ) {}

  /** A write ended: the idle wait starts again from now. */
  wrote(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A failure (a search held the log, the connection closing) is left for the next idle moment.
      void this.checkpoint().catch(() => {});
    }, this.idleMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
