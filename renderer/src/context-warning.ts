// The composer's warning (issue 36): one sentence above Send when the turn being written would no longer give the
// agent whole a document the last turn gave it whole ("“report.pdf” will no longer be sent whole: the agent gets
// the passages that match your message."). Not a modal and never in the way: Send works as ever, and Dismiss
// hides it until another document would be left out. Asked through context-preview.ts.
import { api, type ChatContextPreview } from './api.js';
import { sentAttachments } from './composer-chips.js';
import { lastReport } from './context-report.js';
import { leftOutSentence, PreviewRequests, type Ask, type PreviewInput } from './context-preview.js';
import { byId, h, icon, ICONS } from './dom.js';
import type { AppState } from './store.js';

const WARN_ICON = ['M12 2L2 20h20z', 'M12 9v5', 'M12 17v.5'];

/**
 * What to ask the server about, or null when no warning can be due: no session or agent, an empty draft, an Edit
 * (a new version from an earlier message, which the preview does not describe), or no document whole last turn.
 */
export function previewInput(state: Pick<AppState, 'session' | 'turn' | 'draft' | 'editing' | 'agentReady'>): PreviewInput | null {
  const session = state.session;
  if (!session || !state.agentReady || state.editing || state.draft.owner !== session.session_id) return null;
  if (!lastReport(state)?.documents.some((d) => d.state === 'whole')) return null;
  const text = state.draft.text.trim();
  const attachments = state.draft.chips.filter((c) => c.status === 'done' && c.result).flatMap(sentAttachments);
  if (!text && attachments.length === 0) return null;
  return { sessionId: session.session_id, text, attachments };
}

/** The documents a warning is about, as one key: dismissing it holds until another set would be left out. */
const leftOutKey = (sessionId: string, preview: ChatContextPreview): string => JSON.stringify([sessionId, [...preview.left_out].sort()]);

export class ContextWarningView {
  readonly el = byId('context-warning');
  private readonly text = h('span', { class: 'context-warning-text', 'data-testid': 'context-warning-text' });
  private readonly requests: PreviewRequests;
  private sessionId: string | null = null;
  private preview: ChatContextPreview | null = null;
  private dismissed: string | null = null;
  private reportFrom: unknown[] = [];

  constructor(ask: Ask = (i) => api.chatContext(i.sessionId, i.text, i.attachments)) {
    this.requests = new PreviewRequests(ask, (preview) => this.show(preview));
    const dismiss = h('button', { class: 'icon-btn context-warning-dismiss', type: 'button', 'data-testid': 'context-warning-dismiss', 'aria-label': 'Dismiss this warning', title: 'Dismiss' }, icon([...ICONS.x]));
    dismiss.addEventListener('click', () => {
      if (this.preview && this.sessionId) this.dismissed = leftOutKey(this.sessionId, this.preview);
      this.draw();
    });
    this.el.append(icon(WARN_ICON), this.text, dismiss);
    this.el.hidden = true;
  }

  update(state: Pick<AppState, 'session' | 'turn' | 'draft' | 'editing' | 'agentReady'>): void {
    const id = state.session?.session_id ?? null;
    if (id !== this.sessionId) {
      this.sessionId = id;
      this.dismissed = null;
    }
    // A turn reported since: what was answered for a draft compared it with the turn before.
    const from = [id, state.session?.messages, state.turn?.context];
    if (from.some((v, i) => v !== this.reportFrom[i])) {
      this.reportFrom = from;
      this.requests.forget();
    }
    this.requests.want(previewInput(state));
  }

  private show(preview: ChatContextPreview | null): void {
    this.preview = preview;
    this.draw();
  }

  private draw(): void {
    const sentence = leftOutSentence(this.preview);
    const hide = !sentence || !this.sessionId || (this.preview !== null && this.dismissed === leftOutKey(this.sessionId, this.preview));
    this.el.hidden = hide;
    this.text.textContent = hide ? '' : sentence;
  }
}
