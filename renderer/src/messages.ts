// The conversation: messages with their attachments, and the header's title and workspace line.
import type { Attachment, Session } from './api.js';
import { byId, clear, h, icon, ICONS } from './dom.js';
import { formatBytes, formatTime } from './format.js';

function attachmentChip(a: Attachment): HTMLElement {
  return h(
    'li',
    { class: 'msg-attachment', 'data-testid': 'message-attachment', title: a.filename },
    icon([...(a.is_image ? ICONS.file : ICONS.paperclip)]),
    h('span', { class: 'chip-name' }, a.filename),
    h('span', { class: 'muted small' }, formatBytes(a.size)),
  );
}

export function renderMessages(session: Session | null): void {
  const box = byId('messages');
  const empty = byId('empty-state');
  clear(box);
  const messages = session?.messages ?? [];
  empty.hidden = messages.length > 0;
  for (const m of messages) {
    box.appendChild(
      h(
        'article',
        { class: `msg msg-${m.role === 'user' ? 'user' : 'other'}`, 'data-testid': 'message' },
        h('header', { class: 'msg-head' }, h('span', { class: 'msg-role' }, m.role === 'user' ? 'You' : m.role), h('time', { class: 'muted small' }, formatTime(m.created_at))),
        m.text ? h('p', { class: 'msg-text', 'data-testid': 'message-text' }, m.text) : null,
        m.attachments?.length ? h('ul', { class: 'msg-attachments' }, m.attachments.map(attachmentChip)) : null,
      ),
    );
  }
  box.scrollTop = box.scrollHeight;
}

export function renderSessionAttachments(session: Session | null): void {
  const ul = byId('session-attachments');
  clear(ul);
  const list = session?.attachments ?? [];
  if (list.length === 0) ul.appendChild(h('li', { class: 'muted small' }, 'None yet.'));
  for (const a of list) ul.appendChild(attachmentChip(a));
}
