// The workspace panel: the session's folder as a lazily loaded tree, uploads into it (drop on the panel or
// on a folder, or the pickers), and each upload's outcome: extraction results, errors, Office sidecars.
import { api, type Session, type WorkspaceEntry, type WorkspaceUploadItem } from './api.js';
import { byId, clear, h, icon, ICONS } from './dom.js';
import { dirOf, fromFileList, joinPath, type PickedFile } from './files.js';
import { formatBytes } from './format.js';
import { openPreview } from './preview.js';
import { notify } from './toast.js';
import { UploadQueue } from './upload-queue.js';
import { dropZone, extractedList, ProgressView } from './upload-view.js';
import { withSkipped } from './skipped-view.js';
import { workspaceAgentNote } from './workspace-words.js';
import { sizeCheck, UploadAborted, uploadMultipart } from './upload.js';

export const MAX_PARALLEL_WS_UPLOADS = 3;
/** An extracted archive fires a burst of change events: the tree reloads once they pause this long. */
const REFRESH_DEBOUNCE_MS = 150;
/** Extraction results list their files open up to this many; longer lists start folded. */
const OPEN_EXTRACT_LIST_MAX = 20;
/** Result rows kept on screen; older ones scroll away so a 2,000-file folder doesn't bloat the DOM. */
const MAX_RESULT_ROWS = 200;
/** localStorage key of the "Show hidden files" choice ('1' when on). */
export const SHOW_HIDDEN_KEY = 'satchel.showHidden';

function storedShowHidden(): boolean {
  try {
    return localStorage.getItem(SHOW_HIDDEN_KEY) === '1';
  } catch {
    return false;
  }
}

function rememberShowHidden(on: boolean): void {
  try {
    if (on) localStorage.setItem(SHOW_HIDDEN_KEY, '1');
    else localStorage.removeItem(SHOW_HIDDEN_KEY);
  } catch {
    // storage can be unavailable (private mode); the choice then lasts for this window only
  }
}

interface Job {
  picked: PickedFile;
  target: string;
  row: HTMLLIElement;
  status: 'queued' | 'uploading' | 'done' | 'error';
  progress: ProgressView;
  abort?: () => void;
  item?: WorkspaceUploadItem;
  error?: string;
}

function baseName(p: string): string {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] ?? p;
}

/** What the row says when an Office file (or Office files unpacked from an archive) got no text preview, and
 *  why in plain words when the server says; null when every preview was written. */
export function sidecarErrorText(item: Pick<WorkspaceUploadItem, 'sidecar_error' | 'sidecar_reason' | 'sidecars'>): string | null {
  if (item.sidecar_error) return `No text preview: ${item.sidecar_error}${item.sidecar_reason ? ` (${item.sidecar_reason})` : ''}`;
  const failed = (item.sidecars ?? []).filter((s) => s.sidecar_error);
  if (failed.length === 0) return null;
  const reasons = [...new Set(failed.map((s) => s.sidecar_reason).filter(Boolean))];
  return `No text preview for ${failed.length} of ${item.sidecars!.length} Office files${reasons.length ? ` (${reasons.join('; ')})` : ''}`;
}

/** Where an upload item's Markdown sidecar lives, relative to the workspace, or null when it has none. */
export function sidecarPath(item: Pick<WorkspaceUploadItem, 'sidecar' | 'sidecar_error'>, target: string): string | null {
  if (item.sidecar_error || !item.sidecar) return null;
  return joinPath(target, baseName(item.sidecar.filename));
}

export class WorkspacePanel {
  private readonly tree = byId<HTMLUListElement>('ws-tree');
  private readonly results = byId<HTMLUListElement>('ws-results');
  private readonly drop = byId('workspace-panel');
  private readonly empty = byId('ws-empty');
  private session: Session | null = null;
  private readonly expanded = new Set<string>();
  private readonly queue = new UploadQueue<Job>(MAX_PARALLEL_WS_UPLOADS, (job) => this.run(job));
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  /** Hidden entries (names starting with `.`) are listed and previewed only when the person asks. */
  private showHidden = storedShowHidden();

  constructor(private readonly deps: { maxUploadBytes(): number | undefined }) {
    const files = byId<HTMLInputElement>('ws-file-input');
    const folder = byId<HTMLInputElement>('ws-folder-input');
    const bind = (btnId: string, paths: readonly string[], title: string, input: HTMLInputElement) => {
      const b = byId<HTMLButtonElement>(btnId);
      b.appendChild(icon([...paths]));
      b.title = title;
      b.addEventListener('click', () => input.click());
    };
    bind('ws-upload-files', ICONS.upload, 'Upload files', files);
    bind('ws-upload-folder', ICONS.folder, 'Upload a folder', folder);
    const refresh = byId<HTMLButtonElement>('ws-refresh');
    refresh.appendChild(icon([...ICONS.refresh]));
    refresh.title = 'Refresh';
    refresh.addEventListener('click', () => void this.refresh());
    const hiddenToggle = byId<HTMLInputElement>('ws-show-hidden');
    hiddenToggle.checked = this.showHidden;
    hiddenToggle.addEventListener('change', () => {
      this.showHidden = hiddenToggle.checked;
      rememberShowHidden(this.showHidden);
      void this.refresh();
    });
    for (const input of [files, folder]) {
      input.addEventListener('change', () => {
        const picked = fromFileList(Array.from(input.files ?? []));
        input.value = '';
        this.upload(picked, '');
      });
    }
    dropZone(this.drop, { hoverClass: 'drop-target', onFiles: (picked) => this.upload(picked, '') });
  }

  setSession(session: Session | null): void {
    const changed = session?.session_id !== this.session?.session_id;
    this.session = session;
    if (changed) {
      this.expanded.clear();
      clear(this.results);
    }
    byId('ws-root').textContent = session?.workspace ? session.workspace : session ? 'This session has no workspace folder.' : '';
    byId('ws-root').title = session?.workspace ?? '';
    byId('ws-agent-note').textContent = workspaceAgentNote(session);
    void this.refresh();
  }

  /** Coalesce bursts (an extracted archive fires many change events) into one reload. */
  scheduleRefresh(): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => void this.refresh(), REFRESH_DEBOUNCE_MS);
  }

  async refresh(): Promise<void> {
    const s = this.session;
    if (!s || !s.workspace) {
      clear(this.tree);
      this.empty.hidden = false;
      this.empty.textContent = s ? 'No workspace folder.' : 'Open a session to see its workspace.';
      return;
    }
    try {
      const items = await this.loadDir(s.session_id, '');
      if (this.session !== s) return;
      clear(this.tree);
      this.tree.append(...items);
      this.empty.hidden = items.length > 0;
      this.empty.textContent = 'The workspace is empty.';
    } catch (err) {
      this.empty.hidden = false;
      this.empty.textContent = err instanceof Error ? err.message : String(err);
    }
  }

  private async loadDir(sessionId: string, path: string): Promise<HTMLLIElement[]> {
    const { entries } = await api.list(sessionId, path, this.showHidden);
    const sorted = [...entries].sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name) : a.type === 'dir' ? -1 : 1));
    return Promise.all(sorted.map((e) => this.node(sessionId, joinPath(path, e.name), e)));
  }

  private async node(sessionId: string, path: string, entry: WorkspaceEntry): Promise<HTMLLIElement> {
    const isDir = entry.type === 'dir';
    const li = h('li', { role: 'treeitem', 'data-testid': 'ws-entry', 'data-path': path, 'data-type': entry.type });
    const row = h(
      'button',
      { class: `tree-row${isDir ? ' dir' : ''}`, type: 'button', title: path },
      isDir ? h('span', { class: 'chev' }, icon([...ICONS.chevron])) : h('span', { class: 'chev' }),
      icon([...(isDir ? ICONS.folder : /\.md$/i.test(entry.name) ? ICONS.doc : ICONS.file)]),
      h('span', { class: 'tree-name' }, entry.name),
      isDir ? null : h('span', { class: 'muted small' }, formatBytes(entry.size)),
    );
    li.appendChild(row);
    if (!isDir) {
      row.addEventListener('click', () => void openPreview(sessionId, path, entry.name, { hidden: this.showHidden }));
      return li;
    }
    const group = h('ul', { role: 'group' });
    li.appendChild(group);
    const setOpen = async (open: boolean) => {
      li.setAttribute('aria-expanded', String(open));
      if (open) {
        this.expanded.add(path);
        try {
          const kids = await this.loadDir(sessionId, path);
          clear(group);
          group.append(...kids);
          if (kids.length === 0) group.appendChild(h('li', { class: 'muted small tree-empty' }, 'Empty folder'));
        } catch (err) {
          clear(group);
          group.appendChild(h('li', { class: 'error-text small' }, err instanceof Error ? err.message : String(err)));
        }
      } else {
        this.expanded.delete(path);
        clear(group);
      }
    };
    row.addEventListener('click', () => void setOpen(li.getAttribute('aria-expanded') !== 'true'));
    row.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowRight' && li.getAttribute('aria-expanded') !== 'true') void setOpen(true);
      if (e.key === 'ArrowLeft' && li.getAttribute('aria-expanded') === 'true') void setOpen(false);
    });
    dropZone(row, { hoverClass: 'drop-target', onFiles: (picked) => this.upload(picked, path) });
    if (this.expanded.has(path)) await setOpen(true);
    else li.setAttribute('aria-expanded', 'false');
    return li;
  }

  /** Upload picked files under `base`, keeping each file's folder structure. */
  upload(files: PickedFile[], base: string): void {
    if (!this.session) {
      notify('Open or create a session first: uploads go into its workspace.', 'error');
      return;
    }
    // Open the folder that receives the files (and its parents) so the result shows up in the tree.
    const parts = base.split('/').filter(Boolean);
    for (let i = 1; i <= parts.length; i++) this.expanded.add(parts.slice(0, i).join('/'));
    for (const picked of files) {
      const target = joinPath(base, dirOf(picked.relativePath));
      const row = h('li', { class: 'ws-result', 'data-testid': 'ws-result', 'data-name': picked.file.name });
      this.results.prepend(row);
      const job: Job = { picked, target, row, status: 'queued', progress: new ProgressView('ws-result-bytes', 'small') };
      const tooBig = sizeCheck(picked.file.name, picked.file.size, this.deps.maxUploadBytes(), formatBytes);
      if (tooBig) {
        job.status = 'error';
        job.error = tooBig;
      }
      this.update(job);
      if (job.status === 'queued') this.queue.add(job);
    }
    while (this.results.children.length > MAX_RESULT_ROWS) this.results.lastElementChild?.remove();
  }

  private async run(job: Job): Promise<void> {
    const s = this.session;
    if (!s) return;
    const { file } = job.picked;
    const fields: Record<string, string> = { session_id: s.session_id };
    if (job.target) fields.path = job.target;
    // A hidden folder is only reachable (and writable) while hidden files are shown.
    if (this.showHidden) fields.hidden = '1';
    const label = `Uploading ${joinPath(job.target, file.name)}`;
    const handle = uploadMultipart<WorkspaceUploadItem | { files: WorkspaceUploadItem[]; count: number }>('/api/workspace/upload', fields, [{ field: 'file', filename: file.name, blob: file }], (p) => {
      job.progress.update(label, p.loaded, p.total);
    });
    job.status = 'uploading';
    job.abort = () => handle.abort();
    this.update(job);
    try {
      const res = await handle.promise;
      job.item = 'count' in res && Array.isArray(res.files) ? (res.files[0] as WorkspaceUploadItem) : (res as WorkspaceUploadItem);
      job.status = 'done';
      this.scheduleRefresh();
    } catch (err) {
      if (err instanceof UploadAborted) {
        job.row.remove();
        return;
      }
      job.status = 'error';
      job.error = err instanceof Error ? err.message : String(err);
    } finally {
      job.abort = undefined;
    }
    this.update(job);
  }

  /** The row from the job's state, on each change of status; progress ticks go to the job's ProgressView alone. */
  private update(job: Job): void {
    const { row, picked, target, status } = job;
    const name = joinPath(target, picked.file.name);
    row.dataset.status = status;
    clear(row);
    row.appendChild(h('div', { class: 'ws-result-head' }, icon([...ICONS.file]), h('span', { class: 'chip-name', title: name }, name)));
    if (status === 'queued') row.appendChild(h('span', { class: 'muted small' }, 'Waiting…'));
    if (status === 'uploading') {
      job.progress.update(`Uploading ${name}`, 0, picked.file.size);
      row.append(
        job.progress.bar,
        h(
          'div',
          { class: 'ws-result-foot' },
          job.progress.bytes,
          h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'ws-result-cancel', onclick: () => job.abort?.() }, 'Cancel'),
        ),
      );
    }
    if (status === 'error') row.appendChild(h('p', { class: 'error-text small', 'data-testid': 'ws-result-error', role: 'alert' }, job.error ?? 'Upload failed'));
    const item = job.item;
    if (status === 'done' && item) {
      const stored = joinPath(target, item.filename ?? picked.file.name);
      if (item.extract_error) {
        // The server answers `extracted: false` for every non-archive; only an error text means a failure.
        row.appendChild(h('p', { class: 'error-text small', 'data-testid': 'ws-result-error', role: 'alert' }, `Not extracted: ${item.extract_error}`));
      } else if (item.extracted === true) {
        const files = item.extracted_files ?? [];
        row.appendChild(withSkipped(extractedList(files.length, files, 'ws-', files.length <= OPEN_EXTRACT_LIST_MAX), item.skipped, 'ws-'));
      } else {
        row.appendChild(h('span', { class: 'muted small', 'data-testid': 'ws-result-done' }, `Uploaded · ${formatBytes(item.size ?? picked.file.size)}`));
      }
      const sidecar = sidecarPath(item, target);
      if (sidecar && this.session) {
        const sessionId = this.session.session_id;
        row.appendChild(
          h(
            'button',
            { class: 'sidecar', type: 'button', 'data-testid': 'sidecar-open', 'data-path': sidecar, onclick: () => void openPreview(sessionId, sidecar, `${baseName(stored)} — text preview`, { hidden: this.showHidden }) },
            icon([...ICONS.doc]),
            h('span', {}, `Preview ${baseName(sidecar)}`),
          ),
        );
      }
      const sidecarError = sidecarErrorText(item);
      if (sidecarError) row.appendChild(h('p', { class: 'error-text small', 'data-testid': 'sidecar-error' }, sidecarError));
    }
  }
}
