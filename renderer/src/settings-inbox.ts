// Settings → Inbox folders: the watched folders with where each comes from, its status and a refused one's
// rule words; add one (typed, or "Choose…" through the desktop app's folder picker), remove one, pause and
// resume. Works in any browser: it speaks only to /api/inbox/* (docs/API.md "Inbox folders").
import { api, ApiError, type InboxFoldersResponse } from './api.js';
import { byId, clear, h } from './dom.js';
import { countsText, folderRow, pauseButtonText, pausedLine } from './settings-state.js';

export interface InboxSettingsState {
  /** The server's last answer; null before the first. */
  folders: InboxFoldersResponse | null;
  /** The server's sentence for a refused add (beside the field). */
  addError: string;
  /** A failure to load, remove or pause, in the server's words. */
  error: string;
  busy: boolean;
}

/**
 * While Settings is open, how often the Inbox's folders and counts are read again: files arrive from outside
 * (a scanner, a download), and the counts are what the person watches. One small read a second, only while open.
 */
export const INBOX_LIVE_REFRESH_MS = 1000;

type PickFolder = () => Promise<string | null | undefined>;

function message(err: unknown): string {
  return err instanceof ApiError || err instanceof Error ? err.message : String(err);
}

export class InboxSettingsView {
  private readonly list = byId<HTMLUListElement>('inbox-folder-list');
  private readonly empty = byId('inbox-empty');
  private readonly form = byId<HTMLFormElement>('inbox-add-form');
  private readonly path = byId<HTMLInputElement>('inbox-add-path');
  private readonly choose = byId<HTMLButtonElement>('inbox-choose');
  private readonly add = byId<HTMLButtonElement>('inbox-add');
  private readonly addError = byId('inbox-add-error');
  private readonly pause = byId<HTMLButtonElement>('inbox-pause');
  private readonly pausedLine = byId('inbox-paused-line');
  private readonly counts = byId('inbox-counts');
  private readonly error = byId('inbox-error');
  private state: InboxSettingsState = { folders: null, addError: '', error: '', busy: false };

  constructor(private readonly pickFolder: PickFolder | undefined) {
    this.choose.hidden = !pickFolder;
    this.choose.addEventListener('click', () => void this.chooseFolder());
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.addFolder();
    });
    this.path.addEventListener('input', () => {
      if (this.state.addError) this.update({ ...this.state, addError: '' });
    });
    this.pause.addEventListener('click', () => {
      const paused = this.state.folders?.paused;
      if (paused !== undefined) void this.run(() => api.pauseInbox(!paused));
    });
  }

  /** Each time the dialog opens: the list afresh, and no sentence left from the last time. */
  async load(): Promise<void> {
    this.update({ ...this.state, addError: '' });
    await this.run(() => api.inboxFolders());
  }

  private liveTimer: ReturnType<typeof setTimeout> | undefined;
  /** Which startLive() the running loop belongs to: a read still out when Settings closes starts no new one. */
  private liveRun = 0;

  /** Keep the list and counts live until stopLive(): read again every INBOX_LIVE_REFRESH_MS (issue 38). */
  startLive(): void {
    this.stopLive();
    const run = this.liveRun;
    const tick = () => {
      this.liveTimer = setTimeout(() => void this.refresh(run).finally(() => run === this.liveRun && tick()), INBOX_LIVE_REFRESH_MS);
    };
    tick();
  }

  stopLive(): void {
    this.liveRun++;
    clearTimeout(this.liveTimer);
  }

  /**
   * A quiet re-read: nothing while an action runs (its answer is newer), nothing said when it fails (the next one
   * tries again), and the list redrawn only when it changed, so a focused button keeps its focus.
   */
  private async refresh(run: number): Promise<void> {
    if (this.state.busy) return;
    let folders: InboxFoldersResponse;
    try {
      folders = await api.inboxFolders();
    } catch {
      return;
    }
    if (this.state.busy || run !== this.liveRun) return;
    const before = this.state.folders;
    if (before && JSON.stringify({ ...before, counts: null }) === JSON.stringify({ ...folders, counts: null })) {
      this.state = { ...this.state, folders };
      this.counts.textContent = countsText(folders.counts);
      return;
    }
    this.update({ ...this.state, folders });
  }

  update(state: InboxSettingsState): void {
    this.state = state;
    const answer = state.folders;
    clear(this.list);
    for (const folder of answer?.folders ?? []) {
      const row = folderRow(folder);
      const remove = row.removable
        ? h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'inbox-remove', 'aria-label': `Remove ${row.path}`, disabled: state.busy }, 'Remove')
        : null;
      remove?.addEventListener('click', () => void this.run(() => api.removeInboxFolder(row.path)));
      this.list.appendChild(
        h(
          'li',
          { class: 'inbox-folder', 'data-testid': 'inbox-folder', 'data-path': row.path, 'data-status': row.status, 'data-source': folder.source },
          h('span', { class: 'inbox-folder-path', 'data-testid': 'inbox-folder-path' }, row.path),
          h('span', { class: `badge inbox-status inbox-status-${row.status}`, 'data-testid': 'inbox-folder-status' }, row.statusText),
          remove,
          h('span', { class: 'muted small inbox-folder-source', 'data-testid': 'inbox-folder-source' }, row.sourceText),
          row.error ? h('span', { class: 'error-text small inbox-folder-error', 'data-testid': 'inbox-folder-error' }, row.error) : null,
          ...row.skipped.map((line) => h('span', { class: 'muted small inbox-folder-skipped', 'data-testid': 'inbox-folder-skipped' }, line)),
        ),
      );
    }
    this.empty.hidden = !answer || answer.folders.length > 0;
    this.addError.textContent = state.addError;
    this.addError.hidden = !state.addError;
    this.path.setAttribute('aria-invalid', state.addError ? 'true' : 'false');
    this.add.disabled = state.busy;
    this.choose.disabled = state.busy;
    this.pause.hidden = !answer;
    this.pause.disabled = state.busy;
    this.pause.textContent = pauseButtonText(answer?.paused ?? false);
    this.pausedLine.textContent = pausedLine(answer?.paused ?? false);
    this.counts.textContent = answer ? countsText(answer.counts) : '';
    this.error.textContent = state.error;
    this.error.hidden = !state.error;
  }

  private async chooseFolder(): Promise<void> {
    const chosen = await this.pickFolder?.();
    if (!chosen) return;
    this.path.value = chosen;
    await this.addFolder();
  }

  private async addFolder(): Promise<void> {
    const path = this.path.value.trim();
    if (!path) {
      this.update({ ...this.state, addError: 'Type the folder’s full path, or choose one.' });
      return;
    }
    this.update({ ...this.state, busy: true, addError: '', error: '' });
    try {
      const folders = await api.addInboxFolder(path);
      this.path.value = '';
      this.update({ folders, addError: '', error: '', busy: false });
    } catch (err) {
      // A refused folder is a 400 with the rule's sentence: shown as it is, beside the field.
      this.update({ ...this.state, busy: false, addError: message(err) });
      this.path.focus();
    }
  }

  private async run(call: () => Promise<InboxFoldersResponse>): Promise<void> {
    this.update({ ...this.state, busy: true, error: '' });
    try {
      this.update({ ...this.state, folders: await call(), busy: false });
    } catch (err) {
      this.update({ ...this.state, busy: false, error: message(err) });
    }
  }
}
