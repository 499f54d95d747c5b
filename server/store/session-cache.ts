// The sessions the store keeps whole in memory, within two limits (how many, and how many characters of text),
// the least recently used let go first. Apart from the store so the bookkeeping (what a session's text counts, what
// a change adds to it, what may be let go) has one home and a test of its own; the store decides what is kept
// (only what is stored) and tells it which sessions must stay (a write under way, a turn running).
import type { Message } from './messages.js';
import type { Session } from './session-shapes.js';

/**
 * Whole sessions kept in memory at most, the least recently used let go first (a later `get` reads it again).
 * Reading a conversation of 20 messages again costs about a millisecond; keeping every one ever opened grew the
 * server by the size of the person's whole history. 200 covers every conversation a person moves between in a day.
 */
export const MAX_KEPT_SESSIONS = 200;
/**
 * And at most this many characters of message text kept (`keptChars`; about 2 bytes each in memory, more for the
 * objects around them). The 10,000-message conversation of the benchmark holds 16 million: it must fit, or every
 * message typed in it would read it all again (about 300 ms).
 */
export const MAX_KEPT_CHARS = 32 * 2 ** 20;

/**
 * What stays kept once the server has been idle a while (core/idle-collect.ts: no request for IDLE_COLLECT_MS): the
 * conversations last used, up to this many characters of text, and always the last one used, whatever its size, so
 * the conversation the person comes back to opens as fast as before. A busy day kept every conversation met, up to
 * MAX_KEPT_CHARS: 4.4 MiB of a 731-turn soak's 42 MiB live heap after idle (issue 37, finding 8). One let go is read
 * again on its next use (about a millisecond for 20 messages, 0.3 s for 10,000).
 */
export const IDLE_KEPT_CHARS = 1_000_000;
/** …and at most this many conversations. */
export const IDLE_KEPT_SESSIONS = 8;

/** Bounds of the sessions kept whole (tests make them small). */
export interface KeepLimits {
  sessions: number;
  chars: number;
}

/** The characters of text in `rows`: what MAX_KEPT_CHARS counts. */
function rowChars(rows: readonly Message[]): number {
  let chars = 0;
  for (const m of rows) {
    chars += typeof m.content === 'string' ? m.content.length : 0;
    if (typeof m.reasoning === 'string') chars += m.reasoning.length;
  }
  return chars;
}

/** The characters of text a session holds (every row: done when a session is read from the database). */
export function keptChars(session: Session): number {
  return rowChars(session.messages);
}

/**
 * `after`'s characters from `before`'s, walking only the rows after the last one both share at the same place.
 * Every change replaces a tail of the rows (an append, a turn, a new version), never one in the middle, so this
 * is exact for them and costs the tail, not the conversation (a walk of 10,000 rows took 0.2 ms per write).
 */
export function changedChars(before: { session: Session; chars: number }, after: Session): number {
  const old = before.session.messages;
  const now = after.messages;
  let common = Math.min(old.length, now.length);
  while (common > 0 && old[common - 1] !== now[common - 1]) common--;
  return before.chars - rowChars(old.slice(common)) + rowChars(now.slice(common));
}

export class SessionCache {
  /** The sessions kept, the least recently used first (Map order), each with its `keptChars`. */
  private readonly kept = new Map<string, { session: Session; chars: number }>();
  private total = 0;

  /** `mustStay` names a session that may not be let go now (its write reads its base from here, its turn writes). */
  constructor(
    private readonly limits: KeepLimits,
    private readonly mustStay: (id: string, session: Session) => boolean,
  ) {}

  /** The characters of text kept now (what MAX_KEPT_CHARS bounds). */
  get chars(): number {
    return this.total;
  }

  /** How many sessions are kept now. */
  get count(): number {
    return this.kept.size;
  }

  has(id: string): boolean {
    return this.kept.has(id);
  }

  /** The kept session, left where it is in the order of use. */
  peek(id: string): Session | undefined {
    return this.kept.get(id)?.session;
  }

  /** The kept session, which becomes the most recently used. */
  use(id: string): Session | undefined {
    const kept = this.kept.get(id);
    if (!kept) return undefined;
    this.kept.delete(id);
    this.kept.set(id, kept);
    return kept.session;
  }

  /** Keep `session` as the most recently used, then let go of the least recently used beyond the limits. */
  hold(session: Session): void {
    const id = session.session_id;
    const previous = this.kept.get(id);
    const chars = previous ? changedChars(previous, session) : keptChars(session);
    this.forget(id);
    this.kept.set(id, { session, chars });
    this.total += chars;
    this.evict();
  }

  forget(id: string): void {
    const kept = this.kept.get(id);
    if (!kept) return;
    this.kept.delete(id);
    this.total -= kept.chars;
  }

  clear(): void {
    this.kept.clear();
    this.total = 0;
  }

  /** Idle: the least recently used let go until IDLE_KEPT_SESSIONS and IDLE_KEPT_CHARS hold, by evict()'s rules. */
  releaseIdle(limits: KeepLimits = { sessions: IDLE_KEPT_SESSIONS, chars: IDLE_KEPT_CHARS }): void {
    this.evict(limits);
  }

  private within(limits: KeepLimits): boolean {
    return this.kept.size <= limits.sessions && this.total <= limits.chars;
  }

  /**
   * Let go of the least recently used sessions until `limits` hold. Never the most recent (the one just read
   * or written), nor one that must stay. A request that got a session before it was let go keeps its own
   * reference: only the cache's goes, and a later `get` reads the session again from the database.
   */
  private evict(limits: KeepLimits = this.limits): void {
    if (this.within(limits)) return;
    let room = this.kept.size - 1;
    for (const [id, { session }] of this.kept) {
      if (room-- <= 0 || this.within(limits)) break;
      if (this.mustStay(id, session)) continue;
      this.forget(id);
    }
  }
}
