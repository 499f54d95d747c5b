// How changes to a session are written: one write of a session at a time, and the changes that arrive while one is
// under way grouped into the next (32 concurrent uploads cost two commits, not 32). A change works on a draft that
// shares the stored rows, which are frozen, so a change that throws leaves nothing of itself behind. Apart from the
// store so the batching and the drafts can be tested without a database; the store supplies the write itself.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Queries } from './db/connection.js';
import { headerOf } from './db/session-rows.js';
import type { Session } from './session-shapes.js';

/** A change waiting for the next write of its session, with the caller's promise. */
export interface PendingChange {
  change: (session: Session) => void;
  resolve: (session: Session) => void;
  reject: (err: unknown) => void;
  touch: boolean;
  also?: (q: Queries) => Promise<void>;
}

/** Freeze a stored row and everything in it: the store compares rows by identity (db/session-rows.ts). */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * `session` as the store keeps it: each message and attachment a frozen object no one else holds. Rows already
 * frozen are stored ones and are kept as they are; a new one (made by a change) is copied first, so its maker
 * may go on changing its own object without reaching into the store.
 */
export function sealRows(session: Session): Session {
  const seal = <T>(row: T): T => (Object.isFrozen(row) ? row : deepFreeze(structuredClone(row)));
  session.messages = session.messages.map(seal);
  session.attachments = session.attachments.map(seal);
  return session;
}

/**
 * Rows sealed between two turns of the event loop by sealRowsYielding: copying and freezing a row costs ~11 µs
 * (an "Export all" of 20,000 messages sealed at once held the event loop 222 ms, issue 37 finding 3), so 500
 * rows, or rows of 256 Ki characters, are a few milliseconds.
 */
export const SEAL_ROWS_PER_TURN = 500;
export const SEAL_CHARS_PER_TURN = 256 * 1024;

/** A row's text, what its copy costs beyond its fields. */
function rowChars(row: unknown): number {
  const content = (row as { content?: unknown } | null)?.content;
  return typeof content === 'string' ? content.length : 0;
}

/**
 * sealRows for many sessions at once (an import), the event loop let go every SEAL_ROWS_PER_TURN rows or
 * SEAL_CHARS_PER_TURN characters, so other requests are answered while it copies. `sessions` are the caller's
 * own (their row lists are replaced).
 */
export async function sealRowsYielding(sessions: readonly Session[]): Promise<Session[]> {
  let rows = 0;
  let chars = 0;
  const seal = async <T>(list: readonly T[]): Promise<T[]> => {
    const out: T[] = [];
    for (const row of list) {
      if (rows >= SEAL_ROWS_PER_TURN || chars >= SEAL_CHARS_PER_TURN) {
        rows = 0;
        chars = 0;
        await nextTurn();
      }
      out.push(Object.isFrozen(row) ? row : deepFreeze(structuredClone(row)));
      rows++;
      chars += rowChars(row);
    }
    return out;
  };
  const sealed: Session[] = [];
  for (const session of sessions) {
    session.messages = await seal(session.messages);
    session.attachments = await seal(session.attachments);
    sealed.push(session);
  }
  return sealed;
}

/**
 * A draft of `base` for a change: its header a deep copy, its message and attachment lists new arrays of the
 * same (frozen) rows. A copy of every row cost 15-50 ms at 10,000 messages; this costs a pointer per row. A
 * change replaces a row to change it (assigning into a frozen row throws, and the change is rejected alone).
 */
function draftOf(base: Session): Session {
  return { ...structuredClone(headerOf(base)), messages: base.messages.slice(), attachments: base.attachments.slice() };
}

/**
 * The batch applied to a copy of `base`. One copy per batch, not per change: a copy is as large as the session,
 * and 32 uploads into a session of 1,000 attachments copied it 32 times. A change that throws halfway may leave
 * part of itself in a shared copy, so then the batch is applied again with a copy per change, and the change
 * that throws (it does so again, on the same session) is rejected alone.
 */
export function applyChanges(base: Session, batch: PendingChange[]): { draft: Session; carried: PendingChange[] } {
  const shared = draftOf(base);
  try {
    for (const item of batch) item.change(shared);
    return { draft: shared, carried: batch };
  } catch {
    // Below, change by change.
  }
  let draft = base;
  const carried: PendingChange[] = [];
  for (const item of batch) {
    const next = draftOf(draft);
    try {
      item.change(next);
    } catch (err) {
      item.reject(err);
      continue;
    }
    draft = next;
    carried.push(item);
  }
  return { draft, carried };
}

/** Per session: the changes waiting, and the write loop that takes them a batch at a time. */
export class WriteQueue {
  /** Changes that arrived while a write of their session was under way; the next write takes them all. */
  private readonly pending = new Map<string, PendingChange[]>();
  private readonly writing = new Set<string>();
  /** The write loop of a session while one runs: a removal waits for it before the rows go, a close for all. */
  private readonly draining = new Map<string, Promise<void>>();

  /** `write` stores one batch and settles each of its changes' promises; it never throws. */
  constructor(private readonly write: (id: string, batch: PendingChange[]) => Promise<void>) {}

  /** Queue `change` for the session's next write; the promise settles once that write has. */
  add(id: string, change: Pick<PendingChange, 'change' | 'touch' | 'also'>): Promise<Session> {
    return new Promise<Session>((resolve, reject) => {
      const queue = this.pending.get(id) ?? [];
      queue.push({ ...change, resolve, reject });
      this.pending.set(id, queue);
      if (!this.writing.has(id)) void this.drain(id);
    });
  }

  /** Whether the session is being written or has changes waiting (its kept copy must stay: the write's base). */
  busy(id: string): boolean {
    return this.writing.has(id) || this.pending.has(id);
  }

  /** Reject every change waiting for the session with `failure()`, then wait for the write under way to end. */
  async cancel(id: string, failure: () => unknown): Promise<void> {
    this.pending.get(id)?.forEach((item) => item.reject(failure()));
    this.pending.delete(id);
    await this.draining.get(id);
  }

  /** Resolves once no write is under way (a write that ends may have started another batch: waited for too). */
  async settled(): Promise<void> {
    while (this.draining.size > 0) await Promise.allSettled([...this.draining.values()]);
  }

  private drain(id: string): Promise<void> {
    this.writing.add(id);
    const run = (async () => {
      try {
        for (let batch = this.take(id); batch.length > 0; batch = this.take(id)) await this.write(id, batch);
      } finally {
        this.writing.delete(id);
        this.draining.delete(id);
      }
    })();
    // Set after the loop's first step, but before its end: an await always comes between them.
    this.draining.set(id, run);
    return run;
  }

  private take(id: string): PendingChange[] {
    const batch = this.pending.get(id) ?? [];
    this.pending.delete(id);
    return batch;
  }
}
