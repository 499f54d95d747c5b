// Rows written into a conversation while a turn of its runs (issue 34): a note stored with POST
// /api/session/message or quick capture, an Inbox or "Open with" arrival. The one rule, for every path: such a row
// waits in the session's `queued_messages` and is stored AFTER the turn's rows, in the order written, when the turn
// ends whatever its outcome (answered, failed, stopped, or found interrupted at the next start). So the
// conversation reads in the order things happened (a note jotted while the agent answers "m1" comes after that
// answer, never above "m1"), and the next turn sends it: for Hermes' gateway the rows it never received put the
// conversation out of step (agent/hermes-continuity.ts) and the whole history is sent.
//
// Why a field of the session and not rows of `messages`: every reader of `messages` (the agent's history, Regenerate's
// last exchange, Hermes' check, the versions) must not see a row before the turn's own rows are there. The field is
// in the session's header, written in the same transaction as the answer the client gets (200 means on disk), so
// a restart or a kill mid-turn loses nothing: the start's recovery stores the interrupted turn, then these.
import { HttpError } from '../core/errors.js';
import type { Message } from './messages.js';

/**
 * Rows that may wait for one turn. A person jots a few notes while an answer streams; the queue lives in the
 * session's header, which every write of the turn copies, so it stays small.
 */
export const MAX_QUEUED_MESSAGES = 20;
/** And at most this many characters of text waiting (one message's maximum, store/sessions.ts MAX_MESSAGE_CHARS). */
export const MAX_QUEUED_CHARS = 100_000;

export const QUEUE_FULL = `A reply is being written in this conversation and ${MAX_QUEUED_MESSAGES} messages (or ${MAX_QUEUED_CHARS.toLocaleString('en-US')} characters) already wait for it: wait for the reply to finish, then send this one`;

/** The session's fields this rule reads and writes. */
export interface QueueHolder {
  messages: Message[];
  active_stream_id?: string;
  queued_messages?: Message[];
}

/** A turn of the session is running: a row written now waits for its end. */
export function turnRunning(s: QueueHolder): boolean {
  return typeof s.active_stream_id === 'string';
}

function queuedChars(rows: readonly Message[]): number {
  let n = 0;
  for (const r of rows) n += typeof r.content === 'string' ? r.content.length : 0;
  return n;
}

/** The rows waiting, as stored (a malformed field counts as none). */
export function queuedRows(s: QueueHolder): Message[] {
  return Array.isArray(s.queued_messages) ? s.queued_messages : [];
}

/**
 * The list a row written now goes at the end of: `messages`, or while a turn runs the queue (made here when there is
 * none). A caller may append to it or replace its last row (an arrival joining the row before it), never an
 * earlier one: rows stored before the turn began are the turn's history and stay as they were sent.
 */
export function writableRows(s: QueueHolder): Message[] {
  if (!turnRunning(s)) return s.messages;
  // A new array: the draft's header is a copy, but the store compares rows, so the list is the draft's own.
  s.queued_messages = queuedRows(s).slice();
  return s.queued_messages;
}

/**
 * Append a row written now: to `messages`, or while a turn runs to the queue. 409 with a sentence when the queue
 * is full (then nothing is stored, and the client keeps what it sent).
 */
export function appendWritten(s: QueueHolder, row: Message): 'stored' | 'queued' {
  if (!turnRunning(s)) {
    s.messages.push(row);
    return 'stored';
  }
  const rows = queuedRows(s);
  if (rows.length >= MAX_QUEUED_MESSAGES || queuedChars(rows) + (typeof row.content === 'string' ? row.content.length : 0) > MAX_QUEUED_CHARS) {
    throw new HttpError(409, QUEUE_FULL, { active_stream_id: s.active_stream_id });
  }
  writableRows(s).push(row);
  return 'queued';
}

/** Whether the queue may take another row (arrivals check before making a new row; joining one needs no room). */
export function queueHasRoom(s: QueueHolder): boolean {
  return !turnRunning(s) || queuedRows(s).length < MAX_QUEUED_MESSAGES;
}

/** At a turn's end, after its rows: the waiting rows are stored, in the order written, and the queue is gone. */
export function storeQueued(s: QueueHolder): void {
  const rows = queuedRows(s);
  delete s.queued_messages;
  s.messages.push(...rows);
}
