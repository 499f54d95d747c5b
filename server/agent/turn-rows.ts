// What a turn writes into its session: rows appended, the pending turn cleared.
import type { AnsweredBy, StoppedBy } from '../core/wire.js';
import type { Message, Session } from '../store/sessions.js';
import { VERSIONS_FIELD } from '../store/versions.js';
import { storeQueued } from '../store/queued.js';
import { CANCELLED_TEXT, INTERRUPTED } from './turn-texts.js';
import { RETRY_HINT } from './upstream-errors.js';
import type { AgentConfig, AgentError } from './types.js';

/** Seconds since the epoch, as rows store their time. */
export function now(): number {
  return Date.now() / 1000;
}

/**
 * The turn is over (its rows pushed just before): the pending turn goes, and the rows written while it ran follow
 * its rows, in the order written (store/queued.ts).
 */
export function clearPending(s: Session): void {
  storeQueued(s);
  delete s._pending_versions;
  delete s.active_stream_id;
  delete s.pending_user_message;
  delete s.pending_attachments;
  delete s.pending_started_at;
}

export function pushRows(s: Session, rows: Message[]): void {
  // Within the cap: the turn reserved room for its rows when it started (store/caps.ts ROWS_PER_TURN).
  // A turn that made a new version: its first row carries the versions it replaced (store/versions.ts).
  const fork = s._pending_versions;
  const [first, ...rest] = rows;
  if (fork && first) s.messages.push({ ...first, [VERSIONS_FIELD]: fork }, ...rest);
  else s.messages.push(...rows);
}

/**
 * A failed turn's row: `content` as the original's clients read it (`**Error:** <what happened>`), and beside it
 * what to do and the button that does it, so a reload shows the failure as the live turn did.
 */
export function failureRow(failure: AgentError): Message {
  return {
    role: 'assistant',
    content: `**Error:** ${failure.message}`,
    timestamp: now(),
    _error: true,
    error_type: failure.type,
    error_hint: failure.hint ?? RETRY_HINT,
    ...(failure.action ? { error_action: failure.action } : {}),
  };
}

/** The row agent.md requires after a stop: shown as a quiet marker, never sent to the agent (input.ts). */
export function stopRow(by: StoppedBy): Message {
  return { role: 'assistant', content: `**Task cancelled:** ${CANCELLED_TEXT[by]}`, timestamp: now(), _error: true, error_type: 'cancelled', stopped_by: by };
}

/**
 * The partial reply of a turn found unfinished at start, from the text it had shown (store/streamed-text.ts): the
 * row a stop stores (`Reply.partialRows`), with the text as the person read it (already through the live redactor).
 */
export function shownPartialRow(shown: { content: string; reasoning: string }): Message {
  return { role: 'assistant', content: shown.content, timestamp: now(), ...(shown.reasoning ? { reasoning: shown.reasoning } : {}), _partial: true };
}

/** The row of a turn found unfinished at start. */
export function interruptedRow(): Message {
  return { role: 'assistant', content: `**Interrupted:** ${INTERRUPTED}`, timestamp: now(), _error: true, error_type: 'interrupted', error_hint: RETRY_HINT, error_action: 'retry' };
}

/**
 * Who a turn asked (issue 38, item 6): the saved connection and its name then, and the model it asked for. Kept on
 * the reply's rows, so a conversation switched between agents still says which wrote what after a reload or an
 * export. Undefined when there is nothing to say.
 */
export function answeredBy(config: AgentConfig, model: string | undefined): AnsweredBy | undefined {
  const out: AnsweredBy = {};
  if (config.connection) {
    out.connection = config.connection.id;
    out.agent = config.connection.name;
  }
  const asked = model || config.model;
  if (asked) out.model = asked;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** `rows` with `by` on each of the agent's (the reply, a partial reply, a failure): a stop's marker is Satchel's. */
export function signed(rows: Message[], by: AnsweredBy | undefined): Message[] {
  if (!by) return rows;
  return rows.map((r) => (r.role === 'assistant' && r.error_type !== 'cancelled' ? { ...r, answered_by: by } : r));
}
