// A turn cut off by a crash or a kill (turns.ts recorded it as pending before asking the agent): at the next
// start its question and what its reply had shown are kept, followed by a row saying it was interrupted.
import { log } from '../core/log.js';
import type { Message, SessionStore } from '../store/sessions.js';
import { clearPending, interruptedRow, now, pushRows, shownPartialRow } from './turn-rows.js';

/**
 * At start: a session still holding a pending turn was being answered when Satchel stopped without storing it
 * (a crash, a kill). What the person sent is kept as the user row, followed by an `_error` row saying so.
 */
export async function recoverInterruptedTurns(sessions: SessionStore): Promise<number> {
  const stale = sessions.list().filter((s) => typeof s.active_stream_id === 'string');
  for (const session of stale) {
    const shown = await sessions.streamedText(session.session_id, session.active_stream_id!).catch(() => ({ content: '', reasoning: '' }));
    await sessions
      .update(session.session_id, (s) => {
        const text = typeof s.pending_user_message === 'string' ? s.pending_user_message : '';
        const attachments = Array.isArray(s.pending_attachments) ? s.pending_attachments : [];
        const at = typeof s.pending_started_at === 'number' ? s.pending_started_at : now();
        const rows: Message[] = [];
        if (text || attachments.length > 0) rows.push({ role: 'user', content: text, timestamp: at, attachments });
        // What the reply had shown, as a stop keeps it: a partial reply before the marker.
        if (shown.content || shown.reasoning) rows.push(shownPartialRow(shown));
        rows.push(interruptedRow());
        pushRows(s, rows);
        clearPending(s);
      })
      .catch((err: unknown) => log.warn('could not mark an interrupted turn:', err));
  }
  // No turn runs yet: whatever text is kept belonged to a turn now stored (or to one stored before a crash).
  await sessions.removeStreamedText().catch((err: unknown) => log.warn('could not remove kept reply text:', err));
  return stale.length;
}
