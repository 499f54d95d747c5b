// A whole session's answer (`{"session": Session}`, GET /api/session and the other answers that carry one), kept
// between reads. Projecting, redacting and serializing a conversation of 10,000 messages took 0.3-0.7 s a read,
// every read, for the same bytes (issue 37, finding 1). What a row's projection depends on is the row alone
// (its versions summary reads the fork the row itself carries) and the known secrets the redactor masks: stored
// rows are frozen and a change replaces them (store/write-queue.ts sealRows), so a row's JSON is kept for as long
// as the same row object is at the same place, and the whole body for as long as the session object is the same
// (every change stores a new one). Both are made again when the known secrets change (redact/known.ts): a text
// redacted before a key was learnt may still hold it.
import { knownSecretsGeneration } from '../redact/index.js';
import type * as wire from '../core/wire.js';
import type { SerializedJson } from './session-list.js';
import { publicMessage, publicSession, type SessionRecord } from './sessions.js';

/**
 * Conversations whose body is kept at most, the least recently read let go first. A person moves between a few
 * long conversations; a short one costs little to make again.
 */
export const MAX_KEPT_SESSION_BODIES = 8;
/**
 * And at most this many characters of kept JSON (each kept conversation holds its rows' JSON and its body, about
 * twice its serialized size: 16 Mi for the 10,000-message conversation of the benchmark). A conversation whose
 * JSON alone is larger is answered without being kept.
 */
export const MAX_KEPT_SESSION_BODY_CHARS = 64 * 2 ** 20;

/** Bounds of the bodies kept (tests make them small). */
export interface BodyLimits {
  sessions: number;
  chars: number;
}

/** The indentation of a message inside `{"session": {"messages": [ … ]}}` in the 2-space form of sendJson. */
const ROW_INDENT = '\n      ';
/** The session's `messages` key as the 2-space form writes it with an empty list (the session's keys are at 4). */
const EMPTY_MESSAGES = '\n    "messages": []';

interface Kept<T> {
  /** The session object this body is of: another object (a change) means another body. */
  session: SessionRecord;
  secrets: number;
  rows: readonly wire.Message[];
  /** Each row's JSON, indented as in the body. */
  parts: string[];
  chars: number;
  body: T;
}

/** One row's projection in the 2-space form, indented to its place in the body. */
function rowJson(row: wire.Message): string {
  // JSON escapes a newline inside a string, so every newline here is the layout's own.
  return JSON.stringify(publicMessage(row), null, 2).replaceAll('\n', ROW_INDENT);
}

/**
 * `{"session": publicSession(session)}` in sendJson's 2-space form, byte for byte, from the rows' JSON: the
 * header is projected without the rows and the rows are put in at the place of its empty `messages`.
 */
export function sessionBodyJson(session: SessionRecord, parts: readonly string[]): SerializedJson {
  const head = JSON.stringify({ session: publicSession({ ...session, messages: [] }) }, null, 2);
  if (parts.length === 0) return head as SerializedJson;
  // Keys are unique and no string holds a raw newline, so the first such line is the session's own key.
  const at = head.indexOf(EMPTY_MESSAGES);
  if (at === -1) throw new Error('session body: no messages key');
  const cut = at + EMPTY_MESSAGES.length - 1;
  return `${head.slice(0, cut)}${ROW_INDENT}${parts.join(`,${ROW_INDENT}`)}\n    ]${head.slice(cut + 1)}` as SerializedJson;
}

/** The kept bodies of one store's sessions; `prepare` turns a body into what is sent (its bytes, their gzip). */
export class SessionBodyCache<T> {
  /** The least recently read first (Map order). */
  private readonly kept = new Map<string, Kept<T>>();
  private total = 0;

  constructor(
    private readonly prepare: (json: SerializedJson) => T,
    private readonly limits: BodyLimits = { sessions: MAX_KEPT_SESSION_BODIES, chars: MAX_KEPT_SESSION_BODY_CHARS },
  ) {}

  /** Characters of JSON kept now (what MAX_KEPT_SESSION_BODY_CHARS bounds). */
  get chars(): number {
    return this.total;
  }

  get count(): number {
    return this.kept.size;
  }

  /** The body of `session` as it is now: kept, or made from the rows whose JSON is kept and kept in turn. */
  body(session: SessionRecord): T {
    const id = String(session.session_id);
    const secrets = knownSecretsGeneration();
    const before = this.kept.get(id);
    if (before) this.forget(id);
    if (before && before.session === session && before.secrets === secrets) return this.keep(id, before);
    // A change replaces rows from some place on and leaves those before it: their JSON is the same.
    const reuse = before && before.secrets === secrets ? before : undefined;
    const rows = session.messages;
    const parts = rows.map((row, i) => (reuse && reuse.rows[i] === row ? reuse.parts[i]! : rowJson(row)));
    const json = sessionBodyJson(session, parts);
    let chars = json.length;
    for (const p of parts) chars += p.length;
    const kept: Kept<T> = { session, secrets, rows, parts, chars, body: this.prepare(json) };
    // Larger than all the room there is: answered, not kept.
    if (chars > this.limits.chars) return kept.body;
    return this.keep(id, kept);
  }

  private keep(id: string, kept: Kept<T>): T {
    this.kept.set(id, kept);
    this.total += kept.chars;
    // The least recently read go first; never the one just read (it fits on its own).
    for (const old of this.kept.keys()) {
      if (this.kept.size <= this.limits.sessions && this.total <= this.limits.chars) break;
      if (old === id) break;
      this.forget(old);
    }
    return kept.body;
  }

  private forget(id: string): void {
    const kept = this.kept.get(id);
    if (!kept) return;
    this.kept.delete(id);
    this.total -= kept.chars;
  }
}
