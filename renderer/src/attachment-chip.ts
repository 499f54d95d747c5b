// The chip of a stored attachment in a sent message and in "Session attachments": a button that opens the
// file's preview, with the image itself as its thumbnail (the browser scales the stored bytes; no resizer).
import { agentViewLineFor } from './agent-view.js';
import type { Attachment } from './api.js';
import { shownName } from './attachment-name.js';
import { chipContextLine } from './context-chip.js';
import type { DocOrigin } from './context-report.js';
import { attachmentSource } from './file-preview.js';
import { h, icon, ICONS } from './dom.js';
import { formatBytes } from './format.js';
import { openAttachmentPreview } from './preview.js';

/** `origin`: a chip of the thread, which also says what the agent had of the file in the last turn (context-chip.ts). */
export function fileChip(a: Attachment, sessionId: string | undefined, origin?: DocOrigin): HTMLElement {
  const thumb =
    a.is_image && sessionId
      ? h('img', { class: 'chip-thumb', 'data-testid': 'attachment-thumb', src: attachmentSource(sessionId, a.filename).rawUrl, alt: '', loading: 'lazy' })
      : icon([...(a.is_image ? ICONS.file : ICONS.paperclip)]);
  const from = a.decompressed_from ? h('span', { class: 'muted small', 'data-testid': 'attachment-origin' }, `(from ${a.decompressed_from})`) : null;
  // Called by the person's name for it (issue 38, item 4); opened and asked about by its stored name.
  const name = shownName(a);
  const content = [thumb, h('span', { class: 'chip-name', title: name }, name), from, h('span', { class: 'muted small' }, formatBytes(a.size))];
  if (!sessionId) return h('li', { class: 'msg-attachment', 'data-testid': 'message-attachment', title: name }, ...content);
  // What the agent gets from it, beside the button: the button's name stays the file's, and describes itself by it.
  const agentView = agentViewLineFor(sessionId, a.filename, String(a.size));
  const context = origin ? chipContextLine([name], origin) : null;
  return h(
    'li',
    { class: 'msg-attachment', 'data-testid': 'message-attachment', title: name },
    h(
      'button',
      { class: 'chip-open', type: 'button', 'data-testid': 'attachment-open', 'data-open-key': `file:${a.filename}`, title: `Open ${name}`, 'aria-describedby': context ? `${agentView.el.id} ${context.id}` : agentView.el.id, onclick: () => void openAttachmentPreview(sessionId, a.filename, name) },
      ...content,
    ),
    agentView.el,
    context,
  );
}
