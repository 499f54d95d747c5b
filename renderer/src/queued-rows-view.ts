// Messages written while the turn runs (session.queued_messages: a note, quick capture, an arrival), drawn after
// the reply being written, where they will be stored when it ends (server/store/queued.ts). A view of its own,
// apart from thread-view.ts, which only places its element last in the thread.
import type { Session } from './api.js';
import { arrivalMessage } from './arrival-view.js';
import { h } from './dom.js';
import { normalizeMessage } from './message-rows.js';
import { attachmentChip, userMessage } from './messages.js';

export class QueuedRowsView {
  readonly el = h('div', { class: 'queued-rows', 'data-testid': 'queued-rows', hidden: true });
  /** The list last drawn: rebuilt only when the session's list is another one. */
  private drawnFrom: unknown = undefined;

  /** Draw `session`'s waiting messages; true when they changed (came, went, or are another list). */
  update(session: Session | null): boolean {
    const queued = session?.queued_messages;
    if (queued === this.drawnFrom) return false;
    this.drawnFrom = queued;
    const rows = Array.isArray(queued) ? queued : [];
    const sessionId = session?.session_id ?? '';
    const drawn = rows.map((m, i) => {
      const r = normalizeMessage(m, -1 - i);
      const el = r.arrival ? arrivalMessage(r, r.arrival, (a) => attachmentChip(a, sessionId)) : userMessage(r.text, r.attachments, r.time, sessionId);
      el.classList.add('msg-queued');
      el.querySelector('.msg-head')?.appendChild(h('span', { class: 'badge', 'data-testid': 'queued-badge', title: 'Written while the reply was being written: stored after it, and sent with your next message' }, 'After this reply'));
      return el;
    });
    this.el.replaceChildren(...drawn);
    const was = !this.el.hidden;
    this.el.hidden = drawn.length === 0;
    return drawn.length > 0 || was;
  }
}
