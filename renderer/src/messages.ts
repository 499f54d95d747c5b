// The rows of the conversation: messages with their attachments (both stored row shapes, see message-rows.ts),
// the assistant's replies as Markdown, stopped and failed turns marked. thread-view.ts places them.
import type { SentAttachment, Session } from './api.js';
import { agentViewLineFor } from './agent-view.js';
import { fileChip } from './attachment-chip.js';
import { chipContextLine } from './context-chip.js';
import type { DocOrigin } from './context-report.js';
import { copyButton } from './copy-button.js';
import { byId, clear, h, icon, ICONS } from './dom.js';
import { failureBox, stopMarker } from './error-row.js';
import { extractedInto } from './extract-paths.js';
import { formatTime } from './format.js';
import { renderMarkdown } from './markdown-dom.js';
import { isExtraction, type MessageRow } from './message-rows.js';
import { openFolderPreview } from './preview.js';
import { activityView, usageView } from './reply-activity.js';
import { readAloudButton } from './read-aloud.js';

/**
 * `sessionId`: the chip opens the attachment's preview (and an image shows itself); without it, a plain chip.
 * `origin`: a chip of the thread's, which also says what the agent had of it in the last turn.
 */
export function attachmentChip(a: SentAttachment, sessionId: string | undefined, origin?: DocOrigin): HTMLElement {
  if (isExtraction(a)) {
    // An extracted archive a conversation turn referred to: its folder, no size of its own.
    const said = extractedInto(a.name, a.file_count);
    const content = [icon([...ICONS.archive]), h('span', { class: 'chip-name' }, said)];
    if (!sessionId) return h('li', { class: 'msg-attachment', 'data-testid': 'message-attachment', title: said }, ...content);
    // The folder it was extracted into sits directly in the session's attachment folder: its name there.
    const folder = a.path.split(/[\\/]/).filter(Boolean).pop() ?? '';
    const agentView = agentViewLineFor(sessionId, folder, a.path);
    const context = origin ? chipContextLine([a.name, folder], origin) : null;
    const describedBy = context ? `${agentView.el.id} ${context.id}` : agentView.el.id;
    return h(
      'li',
      { class: 'msg-attachment', 'data-testid': 'message-attachment', title: said },
      h('button', { class: 'chip-open', type: 'button', 'data-testid': 'folder-open', 'data-open-key': `folder:${folder}`, title: `Open ${said}`, 'aria-describedby': describedBy, onclick: () => void openFolderPreview(sessionId, folder, a.name) }, ...content),
      agentView.el,
      context,
    );
  }
  return fileChip(a, sessionId, origin);
}

/** A message the person sent: plain text (never Markdown: it is shown as typed). */
export function userMessage(text: string, attachments: readonly SentAttachment[], time: string | number | undefined, sessionId: string | undefined, ...extra: (HTMLElement | null)[]): HTMLElement {
  return h(
    'article',
    { class: 'msg msg-user', 'data-testid': 'message', 'data-role': 'user' },
    h(
      'header',
      { class: 'msg-head' },
      h('span', { class: 'msg-role' }, 'You'),
      h('time', { class: 'muted small' }, formatTime(time)),
      ...extra,
      // The text as typed (a message with only attachments has none to copy).
      text ? copyButton('Copy message', 'copy-message', () => text) : null,
    ),
    text ? h('p', { class: 'msg-text', 'data-testid': 'message-text' }, text) : null,
    attachments.length ? h('ul', { class: 'msg-attachments' }, attachments.map((a) => attachmentChip(a, sessionId, 'attachment'))) : null,
  );
}

/** What the thread offers around the last turn, and how the last failure is explained. */
export interface ThreadOptions {
  /** A turn is running in this session: no Regenerate or Edit until it ends. */
  busy?: boolean;
  regenerate?(): void;
  /** "Regenerate with…" another agent or model (regenerate-with.ts), offered beside Regenerate. */
  regenerateWith?(): void;
  edit?(): void;
  /** The last turn's usage line, shown under the last reply. */
  lastUsage?: string;
  /** ‹ 1/2 › of a Regenerate: the versions of the reply (version-switcher.ts). */
  switcher?: HTMLElement | null;
}

export function actionButton(testid: string, label: string, paths: readonly string[], onclick: () => void): HTMLButtonElement {
  return h('button', { class: 'icon-btn msg-action', type: 'button', 'data-testid': testid, 'aria-label': label, title: label, onclick }, icon([...paths]));
}

export function assistantMessage(r: MessageRow, last: boolean, opts: ThreadOptions, sessionId: string | undefined): HTMLElement {
  const body = r.failure
    ? failureBox(r.failure, opts.regenerate)
    : r.text
      ? h('div', { class: 'msg-text md', 'data-testid': 'assistant-text' }, renderMarkdown(r.text))
      : null;
  const regenerate = last && !opts.busy && opts.regenerate ? actionButton('regenerate', 'Regenerate the reply', ICONS.refresh, opts.regenerate) : null;
  const regenerateWith = regenerate && opts.regenerateWith ? actionButton('regenerate-with', 'Regenerate with another agent or model…', ICONS.sliders, opts.regenerateWith) : null;
  if (r.stoppedBy) return stopMarker(r.stoppedBy, r.time, regenerate);
  return h(
    'article',
    {
      class: `msg msg-other${r.error ? ' msg-error' : ''}${r.partial ? ' msg-partial' : ''}`,
      'data-testid': r.error ? 'error-row' : 'message',
      'data-role': r.role,
    },
    h(
      'header',
      { class: 'msg-head' },
      h('span', { class: 'msg-role' }, r.role),
      answeredByView(r.answeredBy),
      h('time', { class: 'muted small' }, formatTime(r.time)),
      r.partial ? h('span', { class: 'badge', 'data-testid': 'stopped-badge' }, 'Stopped') : null,
      opts.switcher ?? null,
      // The reply as the agent wrote it: its Markdown source, not the rendered text.
      r.text && !r.failure ? copyButton('Copy reply', 'copy-message', () => r.text) : null,
      // A reply with words can be read aloud (hidden where the system has no voices: read-aloud.ts).
      r.role === 'assistant' && r.text && !r.error ? readAloudButton(r.text) : null,
      regenerate,
      regenerateWith,
    ),
    r.reasoning ? h('details', { class: 'reasoning', 'data-testid': 'reasoning' }, h('summary', {}, 'Reasoning'), h('pre', { class: 'reasoning-text' }, r.reasoning)) : null,
    r.tools.length ? h('ul', { class: 'tool-cards' }, r.tools.map((name) => h('li', { class: 'tool-card tool-done', 'data-testid': 'tool-call' }, h('span', { class: 'tool-name' }, name)))) : null,
    activityView(r.activity),
    body,
    r.error ? null : usageView(r.activity, last ? opts.lastUsage : undefined),
    r.attachments.length ? h('ul', { class: 'msg-attachments' }, r.attachments.map((a) => attachmentChip(a, sessionId))) : null,
  );
}

/** Who wrote a reply, small beside its role (issue 38, item 6): "Work box · model-b"; cut with "…", whole on hover. */
export function answeredByView(by: MessageRow['answeredBy']): HTMLElement | null {
  if (!by) return null;
  const text = [by.agent, by.model].filter(Boolean).join(' · ');
  const said = by.agent && by.model ? `Written by ${by.agent}, model ${by.model}` : by.agent ? `Written by ${by.agent}` : `Written by the model ${by.model}`;
  return h('span', { class: 'msg-by muted small', 'data-testid': 'answered-by', title: said, 'aria-label': said }, text);
}

/** "Session attachments": every file the session stored, redrawn only when that list changes. */
export class SessionAttachmentsView {
  readonly el = byId('session-attachments');
  private drawn: string | null = null;

  update(state: { session: Session | null }): void {
    const session = state.session;
    const list = session?.attachments ?? [];
    const key = JSON.stringify([session?.session_id, list]);
    if (key === this.drawn) return;
    this.drawn = key;
    clear(this.el);
    if (list.length === 0) this.el.appendChild(h('li', { class: 'muted small' }, 'None yet.'));
    for (const a of list) this.el.appendChild(attachmentChip(a, session?.session_id));
  }
}
