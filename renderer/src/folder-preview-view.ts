// The preview of a folder of stored attachments (an extracted archive): its files relative to the folder, each
// with its full name (wrapped, never cut) and size, each a button that opens that file's own preview; past the
// server's bound, "and N more". One `update(state)` redraws it from its state.
import type { AttachmentFolder } from './api.js';
import { clear, h, icon, ICONS } from './dom.js';
import { renderPending, type Pending } from './pending-view.js';
import { formatBytes } from './format.js';

export type FolderState =
  | Pending
  | { status: 'ready'; folder: AttachmentFolder };

/** "and 12 more" under the files named; "and more than 12 more" when the server stopped counting. */
export function moreText(folder: Pick<AttachmentFolder, 'files' | 'total' | 'complete'>): string | null {
  const rest = folder.total - folder.files.length;
  if (rest <= 0 && folder.complete) return null;
  const n = Math.max(rest, 0).toLocaleString('en-US');
  return folder.complete ? `and ${n} more` : `and more than ${n} more`;
}

export function countText(folder: Pick<AttachmentFolder, 'total' | 'complete'>): string {
  const n = folder.total.toLocaleString('en-US');
  return `${folder.complete ? '' : 'At least '}${n} file${folder.total === 1 && folder.complete ? '' : 's'}`;
}

export class FolderPreviewView {
  readonly el = h('div', { class: 'folder-preview', 'data-testid': 'folder-preview' });

  /** `open`: a file's path relative to the folder was chosen. */
  constructor(private readonly open: (path: string) => void) {}

  update(state: FolderState): void {
    clear(this.el);
    this.el.dataset.state = state.status;
    if (state.status !== 'ready') {
      renderPending(this.el, state);
      return;
    }
    const { folder } = state;
    this.el.appendChild(h('p', { class: 'muted small', 'data-testid': 'folder-count' }, folder.total === 0 ? 'No files.' : countText(folder)));
    if (folder.files.length) {
      this.el.appendChild(
        h(
          'ul',
          { class: 'folder-list', 'data-testid': 'folder-list' },
          folder.files.map((f) =>
            h(
              'li',
              {},
              h(
                'button',
                { class: 'folder-entry', type: 'button', 'data-testid': 'folder-entry', 'data-path': f.path, title: f.path, onclick: () => this.open(f.path) },
                icon([...ICONS.file]),
                h('span', { class: 'folder-entry-name', 'data-testid': 'folder-entry-name' }, f.path),
                h('span', { class: 'muted small folder-entry-size' }, formatBytes(f.size)),
              ),
            ),
          ),
        ),
      );
    }
    const more = moreText(folder);
    if (more) this.el.appendChild(h('p', { class: 'muted small', 'data-testid': 'folder-more' }, more));
  }

  /** The entry for `path`, to give focus back to when its file's preview is left. */
  entry(path: string): HTMLButtonElement | null {
    for (const b of this.el.querySelectorAll<HTMLButtonElement>('button.folder-entry')) if (b.dataset.path === path) return b;
    return null;
  }
}
