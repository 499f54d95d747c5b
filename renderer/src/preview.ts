// The file preview dialog: a workspace file or a stored attachment, shown by kind (preview-view.ts), or a folder
// of stored attachments (an extracted archive) listing its files (folder-preview-view.ts), each of which opens
// in the same dialog with a way back to the list. The native <dialog> closes on Escape and gives focus back to
// what opened it (the chip).
import type { AttachmentFolder } from './api.js';
import { ApiError, errorText } from './api.js';
import { byId, clear, h, icon, ICONS } from './dom.js';
import { attachmentSource, fetchPreview, workspaceSource, type PreviewSource } from './file-preview.js';
import { FolderPreviewView, type FolderState } from './folder-preview-view.js';
import { PreviewView, type ShowInFolder } from './preview-view.js';

let closeIconAdded = false;
let view: PreviewView | undefined;
let folderView: FolderPreviewView | undefined;
/** Each opening counts: an answer that arrives after another file was opened is dropped. */
let generation = 0;
/** The folder the dialog lists (or came from, while one of its files is shown): its files come back without a new request. */
let folder: { sessionId: string; name: string; title: string; state: FolderState } | undefined;

/** The desktop's "Show in folder" (preload/index.cts), when this page runs in the app's window. */
function desktopShowInFolder(): ShowInFolder | undefined {
  const bridge = (window as unknown as { satchel?: { showInFolder?: ShowInFolder } }).satchel;
  return typeof bridge?.showInFolder === 'function' ? (p) => bridge.showInFolder!(p) : undefined;
}

/**
 * What opened the dialog, to take the focus back when it closes. The browser does that for an element still in
 * the page, but the conversation redraws its messages when the session changes (a draft saved, an event): then
 * the chip that stands in the same place (the same `data-open-key`, the same rank among those) takes it.
 */
let opener: { el: HTMLElement; key?: string; rank: number } | undefined;

function openerOf(active: Element | null): typeof opener {
  if (!(active instanceof HTMLElement) || active === document.body) return undefined;
  const key = active.dataset.openKey;
  const rank = key ? Array.from(document.querySelectorAll('[data-open-key]')).filter((e) => (e as HTMLElement).dataset.openKey === key).indexOf(active) : -1;
  return { el: active, key, rank };
}

function giveFocusBack(): void {
  const was = opener;
  opener = undefined;
  if (!was) return;
  if (was.el.isConnected) {
    was.el.focus();
    return;
  }
  if (!was.key) return;
  const same = Array.from(document.querySelectorAll<HTMLElement>('[data-open-key]')).filter((e) => e.dataset.openKey === was.key);
  (same[was.rank] ?? same[0])?.focus();
}

/** The dialog, shown (once per opening: a second showModal would take the focus-return target from the chip). */
function dialogShowing(title: string, state: string): { body: HTMLElement } {
  const dialog = byId<HTMLDialogElement>('preview-dialog');
  const close = byId('preview-close');
  if (!closeIconAdded) {
    close.appendChild(icon([...ICONS.x]));
    closeIconAdded = true;
    dialog.addEventListener('close', () => {
      // The close event is queued as a task: when the dialog was opened again before it ran (Escape, then Enter
      // on the chip at once), this closing is over and the new opening's state and opener are not its to clear.
      if (dialog.open) return;
      folder = undefined;
      generation++;
      giveFocusBack();
    });
  }
  view ??= new PreviewView(desktopShowInFolder());
  const body = byId('preview-body');
  if (!view.meta.isConnected) body.before(view.meta);
  byId('preview-heading').textContent = title;
  body.dataset.state = state;
  if (!dialog.open) {
    opener = openerOf(document.activeElement);
    dialog.showModal();
  }
  return { body };
}

async function open(source: PreviewSource, title: string, back?: HTMLElement): Promise<void> {
  const mine = ++generation;
  const { body } = dialogShowing(title, 'loading');
  const v = view!;
  clear(body);
  if (back) body.appendChild(back);
  body.appendChild(v.el);
  v.update({ status: 'loading' });
  back?.focus();
  try {
    const preview = await fetchPreview(source);
    if (mine !== generation) return;
    v.update({ status: 'ready', preview, source });
    body.dataset.state = 'ready';
  } catch (err) {
    if (mine !== generation) return;
    v.update({ status: 'error', message: err instanceof Error ? err.message : String(err) });
    body.dataset.state = 'error';
  }
}

/** `hidden`: the workspace panel shows hidden files, so a file inside a dot-folder may be previewed too. */
export function openPreview(sessionId: string, path: string, title?: string, opts: { hidden?: boolean } = {}): Promise<void> {
  folder = undefined;
  return open(workspaceSource(sessionId, path, opts.hidden ?? false), title ?? path);
}

/** A stored attachment of the session, by its name in the session's attachment folder. */
/** `title`: the name the person gave the file (issue 38, item 4), shown as the dialog's heading; `name` is stored. */
export function openAttachmentPreview(sessionId: string, name: string, title = name): Promise<void> {
  folder = undefined;
  return open(attachmentSource(sessionId, name), title);
}

/** The files of a folder of stored attachments (GET /api/attachment/folder); the composer lists an Edit-restored extraction with it too. */
export async function fetchFolder(sessionId: string, name: string): Promise<AttachmentFolder> {
  let res: Response;
  try {
    res = await fetch(`/api/attachment/folder?${new URLSearchParams({ session_id: sessionId, name })}`, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  } catch {
    throw new ApiError(0, errorText(0, ''));
  }
  const text = await res.text();
  if (!res.ok) throw new ApiError(res.status, errorText(res.status, text));
  return JSON.parse(text) as AttachmentFolder;
}

/** Show the folder's list (as last loaded); `focusPath`: the entry whose file was just left gets the focus. */
function showFolder(focusPath?: string): void {
  if (!folder) return;
  const { body } = dialogShowing(folder.title, folder.state.status);
  view!.meta.hidden = true;
  folderView ??= new FolderPreviewView((path) => openFolderFile(path));
  clear(body);
  body.appendChild(folderView.el);
  folderView.update(folder.state);
  if (focusPath) folderView.entry(focusPath)?.focus();
}

/** A file of the folder shown, with a button back to the list. */
function openFolderFile(path: string): void {
  const from = folder;
  if (!from) return;
  const back = h(
    'button',
    {
      class: 'btn btn-small preview-back',
      type: 'button',
      'data-testid': 'preview-back',
      onclick: () => {
        generation++;
        if (folder === from) showFolder(path);
      },
    },
    icon([...ICONS.chevron]),
    `Back to ${from.title}`,
  );
  void open(attachmentSource(from.sessionId, `${from.name}/${path}`), path, back);
}

/**
 * A folder of the session's attachment folder (an extracted archive), by its name there: its files, each opening
 * its own preview. `title`: what the chip says (the archive's name).
 */
export async function openFolderPreview(sessionId: string, name: string, title: string): Promise<void> {
  const mine = ++generation;
  const current = { sessionId, name, title, state: { status: 'loading' } as FolderState };
  folder = current;
  showFolder();
  let state: FolderState;
  try {
    state = { status: 'ready', folder: await fetchFolder(sessionId, name) };
  } catch (err) {
    state = { status: 'error', message: err instanceof Error ? err.message : String(err) };
  }
  if (mine !== generation || folder !== current) return;
  current.state = state;
  showFolder();
}
