// The file preview dialog: a workspace file or a stored attachment, shown by kind (preview-view.ts).
import { byId, clear, icon, ICONS } from './dom.js';
import { attachmentSource, fetchPreview, workspaceSource, type PreviewSource } from './file-preview.js';
import { PreviewView, type ShowInFolder } from './preview-view.js';

let closeIconAdded = false;
let view: PreviewView | undefined;
/** Each opening counts: an answer that arrives after another file was opened is dropped. */
let generation = 0;

/** The desktop's "Show in folder" (preload/index.cts), when this page runs in the app's window. */
function desktopShowInFolder(): ShowInFolder | undefined {
  const bridge = (window as unknown as { satchel?: { showInFolder?: ShowInFolder } }).satchel;
  return typeof bridge?.showInFolder === 'function' ? (p) => bridge.showInFolder!(p) : undefined;
}

async function open(source: PreviewSource, title: string): Promise<void> {
  const dialog = byId<HTMLDialogElement>('preview-dialog');
  const body = byId('preview-body');
  const close = byId('preview-close');
  if (!closeIconAdded) {
    close.appendChild(icon([...ICONS.x]));
    closeIconAdded = true;
  }
  view ??= new PreviewView(desktopShowInFolder());
  if (view.el.parentElement !== body) {
    clear(body);
    body.appendChild(view.el);
    body.before(view.meta);
  }
  byId('preview-heading').textContent = title;
  const mine = ++generation;
  view.update({ status: 'loading' });
  body.dataset.state = 'loading';
  if (!dialog.open) dialog.showModal();
  try {
    const preview = await fetchPreview(source);
    if (mine !== generation) return;
    view.update({ status: 'ready', preview, source });
    body.dataset.state = 'ready';
  } catch (err) {
    if (mine !== generation) return;
    view.update({ status: 'error', message: err instanceof Error ? err.message : String(err) });
    body.dataset.state = 'error';
  }
}

/** `hidden`: the workspace panel shows hidden files, so a file inside a dot-folder may be previewed too. */
export function openPreview(sessionId: string, path: string, title?: string, opts: { hidden?: boolean } = {}): Promise<void> {
  return open(workspaceSource(sessionId, path, opts.hidden ?? false), title ?? path);
}

/** A stored attachment of the session, by its name in the session's attachment folder. */
export function openAttachmentPreview(sessionId: string, name: string): Promise<void> {
  return open(attachmentSource(sessionId, name), name);
}
