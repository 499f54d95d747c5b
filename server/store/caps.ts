// How much one conversation holds, written once (issue 33, finding 9). The store enforces each cap inside the
// transaction that would pass it (so two writers racing at the cap cannot both get in), and the handlers ask the
// same rule before they write anything (an upload's file, a turn's pending row), so a full conversation is
// refused with a sentence and nothing is left behind, never accepted and then silently dropped.
import { ValueError } from '../core/errors.js';

/** Rows of one conversation (the version shown). A turn's own answer rows may still follow its accepted question. */
export const MAX_MESSAGES_PER_SESSION = 10_000;
/** Uploads one conversation records (its attachment folder, the chips' files). */
export const MAX_ATTACHMENTS_PER_SESSION = 10_000;
/**
 * Versions kept at one position. Each is a whole tail of the conversation, and a person regenerating the same
 * reply fifty times is already far past useful; the bound keeps one position from growing a session without end.
 */
export const MAX_VERSIONS_PER_MESSAGE = 50;

export type CapKind = 'messages' | 'attachments' | 'versions';

const CAPS: Record<CapKind, { max: number; refusal: string }> = {
  messages: {
    max: MAX_MESSAGES_PER_SESSION,
    refusal: `This conversation already has ${MAX_MESSAGES_PER_SESSION.toLocaleString('en-US')} messages, the most Satchel keeps; start a new conversation to go on`,
  },
  attachments: {
    max: MAX_ATTACHMENTS_PER_SESSION,
    refusal: `This conversation already has ${MAX_ATTACHMENTS_PER_SESSION.toLocaleString('en-US')} attachments, the most Satchel keeps; start a new conversation for more files`,
  },
  versions: {
    max: MAX_VERSIONS_PER_MESSAGE,
    refusal: `This message already has ${MAX_VERSIONS_PER_MESSAGE} versions, the most Satchel keeps`,
  },
};

/** The sentence a full conversation (or message) is refused with. */
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
