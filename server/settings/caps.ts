// Every cap on what Satchel keeps, in one table beside the settings table (table.ts): how many messages and
// uploads one conversation holds, how many versions one position keeps, how many files one turn carries. Each
// row is the number and the one sentence every caller refuses with (a 400, before anything is written);
// store/caps.ts enforces them, and every caller asks it, never a copy of the number.

/** Rows of one conversation: the shown ones, those waiting for a running turn, and the rows a running turn may still add. */
export const MAX_MESSAGES_PER_SESSION = 10_000;
/** Uploads one conversation records (its attachment folder, the chips' files). */
export const MAX_ATTACHMENTS_PER_SESSION = 10_000;
/**
 * Versions kept at one position. Each is a whole tail of the conversation, and a person regenerating the same
 * reply fifty times is already far past useful; the bound keeps one position from growing a session without end.
 */
export const MAX_VERSIONS_PER_MESSAGE = 50;
/** Files one turn (or one capture, which may start one) sends the agent: each is read into the turn's budget. */
export const MAX_TURN_ATTACHMENTS = 20;
/** Files one stored message names (POST /api/session/message), one draft keeps, one imported row carries. */
export const MAX_MESSAGE_ATTACHMENTS = 100;

export type CapKind = 'messages' | 'attachments' | 'versions' | 'turnAttachments' | 'messageAttachments';

const count = (n: number) => n.toLocaleString('en-US');

export const CAPS: Readonly<Record<CapKind, { readonly max: number; readonly refusal: string }>> = {
  messages: {
    max: MAX_MESSAGES_PER_SESSION,
    // "is full", not "has 10,000": a turn is refused a little earlier, keeping room for the rows it may store.
    refusal: `This conversation is full (Satchel keeps at most ${count(MAX_MESSAGES_PER_SESSION)} messages in one); start a new conversation to go on`,
  },
  attachments: {
    max: MAX_ATTACHMENTS_PER_SESSION,
    refusal: `This conversation already has ${count(MAX_ATTACHMENTS_PER_SESSION)} attachments, the most Satchel keeps; start a new conversation for more files`,
  },
  versions: {
    max: MAX_VERSIONS_PER_MESSAGE,
    refusal: `This message already has ${MAX_VERSIONS_PER_MESSAGE} versions, the most Satchel keeps`,
  },
  turnAttachments: {
    max: MAX_TURN_ATTACHMENTS,
    refusal: `Too many attachments (max ${MAX_TURN_ATTACHMENTS})`,
  },
  messageAttachments: {
    max: MAX_MESSAGE_ATTACHMENTS,
    refusal: `Too many attachments (max ${MAX_MESSAGE_ATTACHMENTS})`,
  },
};
