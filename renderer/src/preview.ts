// File preview dialog: Markdown (Office sidecars, notes) rendered as DOM, anything else as plain text.
import { api } from './api.js';
import { byId, clear, h, icon, ICONS } from './dom.js';
import { isMarkdownName } from './format.js';
import { renderMarkdown } from './markdown-dom.js';

let closeIconAdded = false;

/** `hidden`: the workspace panel shows hidden files, so a file inside a dot-folder may be previewed too. */
export async function openPreview(sessionId: string, path: string, title?: string, opts: { hidden?: boolean } = {}): Promise<void> {
  const dialog = byId<HTMLDialogElement>('preview-dialog');
  const body = byId('preview-body');
  const close = byId('preview-close');
  if (!closeIconAdded) {
    close.appendChild(icon([...ICONS.x]));
    closeIconAdded = true;
  }
  byId('preview-heading').textContent = title ?? path;
  clear(body);
  body.dataset.state = 'loading';
  body.appendChild(h('p', { class: 'muted' }, 'Loading…'));
  if (!dialog.open) dialog.showModal();
  try {
    const text = await api.fileText(sessionId, path, opts.hidden ?? false);
    clear(body);
    body.appendChild(isMarkdownName(path) ? renderMarkdown(text) : h('pre', { class: 'plain' }, text));
    body.dataset.state = 'ready';
  } catch (err) {
    clear(body);
    body.appendChild(h('p', { class: 'error-text', role: 'alert', 'data-testid': 'preview-error' }, err instanceof Error ? err.message : String(err)));
    body.dataset.state = 'error';
  }
}
