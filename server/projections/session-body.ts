// A whole session's answer (`{"session": Session}`, GET /api/session and the other answers that carry one), kept
// between reads. Projecting, redacting and serializing a conversation of 10,000 messages took 0.3-0.7 s a read,
// every read, for the same bytes (issue 37, finding 1). What a row's projection depends on is the row alone
// (its versions summary reads the fork the row itself carries) and the known secrets the redactor masks: stored
// rows are frozen and a change replaces them (store/write-queue.ts sealRows), so a row's JSON is kept for as long
// as the same row object is at the same place, and the whole body for as long as the session object is the same
// (every change stores a new one); a body made after a change copies the bytes of the rows it shares with the
// one before. Both are made again when the known secrets change (redact/known.ts): a text
// redacted before a key was learnt may still hold it.
import { knownSecretsGeneration } from '../redact/index.js';
import type * as wire from '../core/wire.js';
import { publicMessage, publicSession, type SessionRecord } from './sessions.js';

/**
 * Conversations whose body is kept at most, the least recently read let go first. A person moves between a few
 * long conversations; a short one costs little to make again.
 */
export const MAX_KEPT_SESSION_BODIES = 8;
/**
 * And at most this many bytes of kept bodies (8 MiB for the 10,000-message conversation of the benchmark; each
 * body's gzip, made on first need, adds about a quarter; 16 bytes a row of offsets). A body alone larger than this
 * is answered, not kept. Each body also holds the rows it was made from (their text is never longer than their JSON).
 */
export const MAX_KEPT_SESSION_BODY_BYTES = 64 * 2 ** 20;

/**
 * Bodies kept once the server has been idle a while (core/idle-collect.ts): the last one read, so the conversation
 * the person comes back to answers at once; the others (and the rows each holds) are made again on their next read.
 */
export const IDLE_KEPT_SESSION_BODIES = 1;

/** Bounds of the bodies kept (tests make them small). */
export interface BodyLimits {
  sessions: number;
  bytes: number;
}

/** The UTF-8 bytes of JSON built only from projections (http/respond.ts PreparedJson takes them as they are). */
export type SerializedJsonBytes = Buffer & { readonly __serializedJsonBytes: unique symbol };

/** The indentation of a message inside `{"session": {"messages": [ … ]}}` in the 2-space form of sendJson. */
const ROW_INDENT = '\n      ';
/** The session's `messages` key as the 2-space form writes it with an empty list (the session's keys are at 4). */
const EMPTY_MESSAGES = '\n    "messages": []';
const FIRST_ROW = Buffer.from(ROW_INDENT);
const NEXT_ROW = Buffer.from(`,${ROW_INDENT}`);
const LAST_ROW = Buffer.from('\n    ');

interface Kept<T> {
  /** The session object this body is of: another object (a change) means another body. Held weakly. */
  session: WeakRef<SessionRecord>;
  secrets: number;
  /**
   * Its rows, held: the next body compares its rows with these, and the list a change replaced is let go of by the
   * store at once (held weakly it was often gone by the next read, and every row was projected again).
   */
  rows: readonly wire.Message[];
  body: SerializedJsonBytes;
  /** Where the header before the rows ends, and where what follows them (from the `]` of `messages`) begins. */
  headEnd: number;
  footStart: number;
  /** Where each row's JSON starts and ends in `body`: a later body copies the rows it shares from here. */
  starts: Float64Array;
  ends: Float64Array;
  prepared: T;
}

/** One row's projection in the 2-space form, indented to its place in the body. */
function rowJson(row: wire.Message): string {
  // JSON escapes a newline inside a string, so every newline here is the layout's own.
  return JSON.stringify(publicMessage(row), null, 2).replaceAll('\n', ROW_INDENT);
}

/** `{"session": …}` of `session` without its rows, cut where they go: before and from the `]` of `"messages": []`. */
function headOf(session: SessionRecord): [string, string] {
  const head = JSON.stringify({ session: publicSession({ ...session, messages: [] }) }, null, 2);
  // Keys are unique and no string holds a raw newline, so the first such line is the session's own key.
  const at = head.indexOf(EMPTY_MESSAGES);
  if (at === -1) throw new Error('session body: no messages key');
  const cut = at + EMPTY_MESSAGES.length - 1;
  return [head.slice(0, cut), head.slice(cut)];
}

/**
 * `{"session": publicSession(session)}` in sendJson's 2-space form, byte for byte, as UTF-8: the header projected
 * without the rows, and the rows put in at the place of its empty `messages`, each run of rows `reuse` holds at the
 * same places copied from its body in one piece.
 */
function build(session: SessionRecord, reuse: Omit<Kept<unknown>, 'prepared'> | undefined): Omit<Kept<unknown>, 'prepared' | 'secrets'> {
  const rows = session.messages;
  const n = rows.length;
  const [before, after] = headOf(session);
  const old = reuse?.rows;
  const chunks: Buffer[] = [];
  let length = 0;
  const push = (b: Buffer) => {
    chunks.push(b);
    length += b.length;
  };
  push(Buffer.from(before, 'utf8'));
  const headEnd = length;
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  for (let i = 0; i < n; ) {
    push(i === 0 ? FIRST_ROW : NEXT_ROW);
    if (reuse && old && old[i] === rows[i]) {
      let j = i;
      while (j + 1 < n && old[j + 1] === rows[j + 1]) j++;
      const shift = length - reuse.starts[i]!;
      push(reuse.body.subarray(reuse.starts[i], reuse.ends[j]));
      for (let m = i; m <= j; m++) {
        starts[m] = reuse.starts[m]! + shift;
        ends[m] = reuse.ends[m]! + shift;
      }
      i = j + 1;
    } else {
      starts[i] = length;
      push(Buffer.from(rowJson(rows[i]!), 'utf8'));
      ends[i] = length;
      i++;
    }
  }
  if (n > 0) push(LAST_ROW);
  const footStart = length;
  push(Buffer.from(after, 'utf8'));
  return { session: new WeakRef(session), rows, body: Buffer.concat(chunks, length) as SerializedJsonBytes, headEnd, footStart, starts, ends };
}

/** The end of every body: the session's last key closed, then the answer's (sendJson's 2-space form). */
const BODY_END = Buffer.from('\n  }\n}');

/**
 * The page of `kept`'s rows from `start` to `end`: its header, those rows' bytes in one piece, the rest of the
 * session, and the page's place put last in the session (so a key a stored session carries of the same name,
 * which projections pass on, cannot stand for it: JSON.parse keeps the last).
 */
function pageOf(kept: Omit<Kept<unknown>, 'prepared'>, start: number, end: number): SerializedJsonBytes {
  const n = kept.rows.length;
  if (!(Number.isInteger(start) && Number.isInteger(end) && 0 <= start && start <= end && end <= n)) throw new RangeError(`session page ${start}..${end} of ${n} rows`);
  const { body } = kept;
  if (!body.subarray(body.length - BODY_END.length).equals(BODY_END)) throw new Error('session body: unexpected end');
  const place = Buffer.from(`,\n    "messages_offset": ${start},\n    "message_count": ${n}`);
  const parts = [body.subarray(0, kept.headEnd)];
  if (end > start) parts.push(FIRST_ROW, body.subarray(kept.starts[start], kept.ends[end - 1]), LAST_ROW);
  parts.push(body.subarray(kept.footStart, body.length - BODY_END.length), place, BODY_END);
  return Buffer.concat(parts) as SerializedJsonBytes;
}

/** The body of `session` made whole, without anything kept (the tests' reference beside JSON.stringify). */
export function sessionBody(session: SessionRecord): SerializedJsonBytes {
  return build(session, undefined).body;
}

/** The kept bodies of one store's sessions; `prepare` turns a body into what is sent (its bytes and their gzip). */
export class SessionBodyCache<T> {
  /** The least recently read first (Map order). */
  private readonly kept = new Map<string, Kept<T>>();
  private total = 0;

  constructor(
    private readonly prepare: (json: SerializedJsonBytes) => T,
    private readonly limits: BodyLimits = { sessions: MAX_KEPT_SESSION_BODIES, bytes: MAX_KEPT_SESSION_BODY_BYTES },
  ) {}

  /** Bytes of bodies kept now (what MAX_KEPT_SESSION_BODY_BYTES bounds). */
  get bytes(): number {
    return this.total;
  }

  get count(): number {
    return this.kept.size;
  }

  /** The body of `session` as it is now: kept, or made from the rows of the one kept before and kept in turn. */
  body(session: SessionRecord): T {
    return this.current(session).prepared;
  }

  /**
   * `{"session": …}` with only the rows from `start` to `end` (stored indices, end excluded; 0 <= start <= end <=
   * the row count), their bytes copied from the kept body (nothing projected or redacted again), and after them
   * `"messages_offset": start, "message_count": rows` (docs/API.md, GET /api/session `limit`). Not kept: a copy
   * of a page's bytes costs less than the room it would take.
   */
  page(session: SessionRecord, start: number, end: number): T {
    return this.prepare(pageOf(this.current(session), start, end));
  }

  private current(session: SessionRecord): Kept<T> {
    const id = String(session.session_id);
    const secrets = knownSecretsGeneration();
    const before = this.kept.get(id);
    if (before) this.forget(id);
    if (before && before.session.deref() === session && before.secrets === secrets) return this.keep(id, before);
    // A change replaces rows from some place on and leaves those before it: their JSON is the same.
    const made = build(session, before && before.secrets === secrets ? before : undefined);
    const kept: Kept<T> = { ...made, secrets, prepared: this.prepare(made.body) };
    // Larger than all the room there is: answered, not kept.
    if (made.body.length > this.limits.bytes) return kept;
    return this.keep(id, kept);
  }

  /** Idle: the least recently read let go until IDLE_KEPT_SESSION_BODIES are kept, by keep()'s own rule. */
  releaseIdle(): void {
    this.evict({ sessions: IDLE_KEPT_SESSION_BODIES, bytes: this.limits.bytes });
  }

  private keep(id: string, kept: Kept<T>): Kept<T> {
    this.kept.set(id, kept);
    this.total += kept.body.length;
    this.evict(this.limits);
    return kept;
  }

  /** The least recently read go first until `limits` hold; never the most recent (the one just read fits on its own). */
  private evict(limits: BodyLimits): void {
    let room = this.kept.size - 1;
    for (const old of this.kept.keys()) {
      if (room-- <= 0 || (this.kept.size <= limits.sessions && this.total <= limits.bytes)) break;
      this.forget(old);
    }
  }

  private forget(id: string): void {
    const kept = this.kept.get(id);
    if (!kept) return;
    this.kept.delete(id);
    this.total -= kept.body.length;
  }
}
