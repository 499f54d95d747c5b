// How the caps of settings/caps.ts are enforced, one way for every caller (issue 35): a refusal, a 400 with the
// table's sentence, before anything is written. The store asks again inside the transaction that would pass a
// cap (so two writers racing at it cannot both get in), and the handlers ask before they write anything (an
// upload's file, a capture's moves, a turn's pending row), so a full conversation is refused with a sentence and
// nothing is left behind, never accepted and then silently dropped or stored past its cap.
import { ValueError } from '../core/errors.js';
import { CAPS, type CapKind } from '../settings/caps.js';
import { queuedRows, turnRunning, type QueueHolder } from './queued.js';

export { MAX_ATTACHMENTS_PER_SESSION, MAX_MESSAGE_ATTACHMENTS, MAX_MESSAGES_PER_SESSION, MAX_TURN_ATTACHMENTS, MAX_VERSIONS_PER_MESSAGE, type CapKind } from '../settings/caps.js';

/**
 * The rows one turn may store: the person's row, a partial reply, and its end (the answer, a failure or the stop
 * marker). Reserved when the turn starts, so the turn always stores them within the cap.
 */
export const ROWS_PER_TURN = 3;

/** The sentence a full conversation (or message, or turn) is refused with. */
export function capRefusal(kind: CapKind): string {
  return CAPS[kind].refusal;
}

/** Would `adding` more on top of `count` pass the cap? */
export function passesCap(kind: CapKind, count: number, adding = 1): boolean {
  return count + adding > CAPS[kind].max;
}

/** A refusal at a cap: a 400 (the specification's status for a request the server will not take, http-and-uploads.md 7). */
export class CapReached extends ValueError {
  constructor(readonly kind: CapKind) {
    super(CAPS[kind].refusal);
    this.name = 'CapReached';
  }
}

/** Throws CapReached when `adding` more on top of `count` would pass the cap of `kind`. */
export function refuseOverCap(kind: CapKind, count: number, adding = 1): void {
  if (passesCap(kind, count, adding)) throw new CapReached(kind);
}

/**
 * The rows a conversation holds against the message cap: the stored ones, those waiting for the running turn,
 * and the rows that turn has reserved. Every writer of rows counts the same way.
 */
export function heldRows(s: QueueHolder): number {
  return s.messages.length + queuedRows(s).length + (turnRunning(s) ? ROWS_PER_TURN : 0);
}

/** Throws CapReached('messages') when `adding` rows more would pass the conversation's cap. */
export function refuseFullConversation(s: QueueHolder, adding = 1): void {
  refuseOverCap('messages', heldRows(s), adding);
}
