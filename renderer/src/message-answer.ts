// A message kept without an agent comes back as the session's summary and the stored row alone (POST
// /api/session/message `answer: "summary"`, docs/API.md): this folds it into the session on screen, so sending
// in a conversation of 10,000 messages does not read them all again.
import type { MessageSummaryAnswer, Session } from './api.js';
import { offsetOf } from './session-pages.js';

/**
 * `held` with the answer's row at its index (every row after it gone: a new version replaces them) and the
 * summary's header; null when `held` cannot take it (another session, or a copy missing rows before the index,
 * which another window may have added): then the caller reads the session whole.
 */
export function foldMessage(held: Session | null, answer: MessageSummaryAnswer): Session | null {
  const { session: summary, message_index: index, message } = answer;
  if (!held || held.session_id !== summary.session_id) return null;
  // Where the row goes among those held (held from `offset` on when read tail first).
  const offset = offsetOf(held);
  const at = typeof index === 'number' ? index - offset : NaN;
  if (!Number.isInteger(at) || at < 0 || at > held.messages.length || summary.message_count !== (index as number) + 1) return null;
  const { title, workspace, profile, created_at, updated_at, pinned, archived } = summary;
  const count = held.message_count === undefined ? {} : { message_count: summary.message_count };
  return { ...held, title, workspace, profile, created_at, updated_at, pinned, archived, ...count, messages: [...held.messages.slice(0, at), message] };
}
