// The sidebar: profile switcher, session list (pinned first, grouped by day, archived behind a toggle, each
// with Pin, Archive and Delete) and the "New session" dialog with its workspace choice.
import { api, ApiError, type SessionSummary } from './api.js';
import { promptText } from './dialogs.js';
import { byId, clear, h, icon, ICONS } from './dom.js';
import { formatTime } from './format.js';
import { deleteWithUndo, setArchived, setPinned } from './session-actions.js';
import { archivedToggleLabel, groupSessions } from './session-groups.js';
import { SessionFolders } from './session-folders.js';
import { SessionSearch } from './search.js';
import { notify } from './toast.js';

declare global {
  interface Window {
    /** Present in the desktop app (Electron preload): a native folder picker. */
    satchel?: { pickFolder?: () => Promise<string | null | undefined> };
  }
}

export interface SidebarDeps {
  pick(id: string): void;
  /** A new session is being created: the promise of its id, handed over before the request returns, so a file
   *  dropped meanwhile waits for it instead of landing in the session still on screen. */
  creating(id: Promise<string>): void;
  profileChanged(): void;
  /** Before session `id` is deleted: the composer saves its draft if it is the one on screen. */
  beforeDelete(id: string): Promise<void>;
  /** Session `id` left the list (deleted); `next` is the one now in its place, to show if `id` was on screen. */
  removed(id: string, next: string | null): void;
  /** Session `id` is back (Undo, or a refused delete): reload the list and show it. */
  restored(id: string): void;
  /** A search result was chosen: open its conversation, at its message when it names one. */
  openFound(id: string, messageIndex?: number): void;
}

export interface WorkspaceOption {
  value: string;
  label: string;
  selected: boolean;
}

/**
 * The New session dialog's choices: the server's default workspace first and preselected, then the other
 * trusted roots. The roots include the home folder, which only vouches for the folders under it: it is
 * offered but never preselected. Before the roots are loaded (or when loading them failed) there is no default
 * to name; then "Server default" (no path) is.
 */
export function workspaceOptions(roots: readonly string[], defaultDir: string | undefined, selected?: string): WorkspaceOption[] {
  const first = defaultDir ? { value: defaultDir, label: `${defaultDir} (default)` } : { value: '', label: 'Server default' };
  const all = [first, ...roots.filter((r) => r !== defaultDir).map((r) => ({ value: r, label: r }))];
  const pick = selected !== undefined && all.some((o) => o.value === selected) ? selected : first.value;
  return all.map((o) => ({ ...o, selected: o.value === pick }));
}

export class Sidebar {
  private readonly list = byId<HTMLUListElement>('session-list');
  private readonly profile = byId<HTMLSelectElement>('profile-select');
  private readonly dialog = byId<HTMLDialogElement>('new-session-dialog');
  private readonly wsSelect = byId<HTMLSelectElement>('workspace-select');
  private readonly dialogError = byId('new-session-error');
  private readonly archivedToggle = byId<HTMLButtonElement>('show-archived');
  private sessions: SessionSummary[] = [];
  private activeId: string | null = null;
  private showArchived = false;
  /** The search field: the list shows the sessions whose title holds its text until the server's results come,
   *  which then show in the list's place (search.ts). */
  private readonly search: SessionSearch;
  private readonly searchField = byId<HTMLInputElement>('session-search');
  /** Folders (session-folders.ts): their groups, drag and drop onto them, "Move to…". */
  private readonly folders: SessionFolders;
  workspaces: string[] = [];
  /** Where the server puts a session made without a workspace (GET /api/workspaces `default`). */
  defaultWorkspace: string | undefined;

  constructor(private readonly deps: SidebarDeps) {
    const newBtn = byId<HTMLButtonElement>('new-session');
    newBtn.append(icon([...ICONS.plus]), ' New session');
    newBtn.addEventListener('click', () => void this.openNewDialog());
    byId('add-folder').addEventListener('click', () => void this.addFolder());
    // On submit, not on the dialog's 'close': that event comes a task later, after a file dropped the moment
    // the dialog disappeared, which must already find the new session on its way.
    byId<HTMLFormElement>('new-session-form').addEventListener('submit', (e) => {
      if ((e.submitter as HTMLButtonElement | null)?.value === 'create') void this.create(this.wsSelect.value || undefined);
    });
    this.profile.addEventListener('change', () => void this.switchProfile());
    this.archivedToggle.addEventListener('click', () => {
      this.showArchived = !this.showArchived;
      this.render();
    });
    this.search = new SessionSearch(this.searchField, { open: (id, index) => deps.openFound(id, index), changed: () => this.render() });
    this.folders = new SessionFolders(this.list, { changed: () => this.render(), moved: (s) => this.applySummary(s), sessions: () => this.sessions });
    byId('new-folder').addEventListener('click', () => void this.folders.create());
  }

  /** Put the cursor in the search field, its text selected (Ctrl/⌘+K). */
  focusSearch(): void {
    this.searchField.focus();
    this.searchField.select();
  }

  /** The sessions the list holds that the search text lets through (their title holds it). */
  private matching(): SessionSummary[] {
    const query = this.search.titleFilter();
    if (!query) return this.sessions;
    return this.sessions.filter((s) => (s.title || 'Untitled').toLocaleLowerCase().includes(query));
  }

  /**
   * The session `step` places after (or before, when negative) the active one in the list as shown; the first
   * (or last) when the active one is not shown; null past either end.
   */
  neighbour(step: number): string | null {
    const list = this.shownIds();
    const at = list.indexOf(this.activeId ?? '');
    const next = at < 0 ? (step > 0 ? 0 : list.length - 1) : at + step;
    return list[next] ?? null;
  }

  setSessions(sessions: SessionSummary[], activeId: string | null): void {
    this.sessions = sessions;
    this.activeId = activeId;
    this.render();
    void this.folders.load();
    // A conversation renamed, deleted or written to since: the results say so too.
    this.search.refresh();
  }

  setActive(id: string | null): void {
    this.activeId = id;
    this.render();
  }

  /** Apply a title change locally (from SSE or our own rename, through App) without a reload. */
  applyTitle(id: string, title: string): void {
    const s = this.sessions.find((x) => x.session_id === id);
    if (s) s.title = title;
    this.render();
  }

  /** The ids in the order the list shows them (pinned, then by day; archived only when shown). */
  shownIds(): string[] {
    return this.folders.arrange(groupSessions(this.matching(), Date.now(), this.showArchived)).groups.flatMap((g) => g.sessions.map((s) => s.session_id));
  }

  private render(): void {
    clear(this.list);
    const searching = this.search.titleFilter() !== '';
    const { groups, archivedCount } = this.folders.arrange(groupSessions(this.matching(), Date.now(), this.showArchived), searching);
    // The search's results (or its empty line) take the list's place; its error line stands above the list.
    const listShown = this.search.shows() === 'list' || this.search.shows() === 'error';
    this.list.hidden = !listShown;
    const empty = byId('session-empty');
    empty.hidden = !listShown || groups.length > 0;
    // Titles filter at once; the server's answer may still find the words in a message.
    empty.textContent = this.sessions.length === 0 || !searching ? 'No sessions yet.' : this.search.shows() === 'error' ? 'No conversation’s title matches.' : 'Searching messages and files…';
    this.archivedToggle.hidden = !listShown || archivedCount === 0;
    this.archivedToggle.textContent = archivedToggleLabel(archivedCount, this.showArchived);
    this.archivedToggle.setAttribute('aria-expanded', String(this.showArchived));
    for (const group of groups) {
      const folder = this.folders.groupElement(group, (s) => this.row(s));
      if (folder) {
        this.list.appendChild(folder);
        continue;
      }
      const headingId = `session-group-${group.key}`;
      this.list.appendChild(
        h(
          'li',
          { class: 'session-group', 'data-testid': 'session-group', 'data-group': group.key },
          h('h3', { class: 'session-group-label', id: headingId }, group.label),
          h('ul', { class: 'session-group-list', 'aria-labelledby': headingId }, group.sessions.map((s) => this.row(s))),
        ),
      );
    }
    this.folders.decorateRows(this.list);
  }

  private row(s: SessionSummary): HTMLLIElement {
    const active = s.session_id === this.activeId;
    const title = s.title || 'Untitled';
    const changed = (summary: SessionSummary) => this.applySummary(summary);
    const action = (testid: string, label: string, icn: readonly string[], run: () => void, pressed?: boolean) =>
      h('button', { class: 'icon-btn session-action', type: 'button', 'data-testid': testid, 'aria-label': `${label} “${title}”`, title: label, 'aria-pressed': pressed === undefined ? undefined : String(pressed), onclick: run }, icon([...icn]));
    return h(
      'li',
      { class: `session-row${s.pinned ? ' pinned' : ''}`, 'data-testid': 'session-row', 'data-session-id': s.session_id },
      h(
        'button',
        {
          class: `session-item${active ? ' active' : ''}`,
          type: 'button',
          'data-testid': 'session-item',
          'data-session-id': s.session_id,
          'aria-current': active ? 'page' : undefined,
          onclick: () => this.deps.pick(s.session_id),
        },
        h('span', { class: 'session-name', 'data-testid': 'session-item-title', title }, title),
        h('span', { class: 'muted small' }, [formatTime(s.updated_at ?? s.created_at), s.message_count ? ` · ${s.message_count} msg` : '', s.imported_at ? ' · imported' : '']),
      ),
      h(
        'div',
        { class: 'session-actions' },
        action('session-pin', s.pinned ? 'Unpin' : 'Pin', ICONS.pin, () => void setPinned(s, !s.pinned, { changed }), Boolean(s.pinned)),
        action('session-archive', s.archived ? 'Unarchive' : 'Archive', ICONS.archive, () => void setArchived(s, !s.archived, { changed })),
        action('session-delete', 'Delete', ICONS.trash, () => void this.delete(s)),
        action('session-move', 'Move to…', ICONS.folder, () => this.folders.openMoveMenu(s)),
      ),
    );
  }

  /** A session's new summary (a flag changed) in place, without a reload. */
  private applySummary(summary: SessionSummary): void {
    this.sessions = this.sessions.map((s) => (s.session_id === summary.session_id ? { ...s, ...summary } : s));
    this.render();
    this.list.querySelector<HTMLElement>(`[data-testid="session-row"][data-session-id="${summary.session_id}"] .session-item`)?.focus();
  }

  private delete(session: SessionSummary): Promise<void> {
    return deleteWithUndo(session, {
      beforeDelete: (id) => this.deps.beforeDelete(id),
      removed: (id) => {
        const order = this.shownIds();
        const at = order.indexOf(id);
        const next = order[at + 1] ?? order[at - 1] ?? null;
        this.sessions = this.sessions.filter((s) => s.session_id !== id);
        this.render();
        this.deps.removed(id, next);
      },
      restored: (id) => this.deps.restored(id),
      changed: (summary) => this.applySummary(summary),
    });
  }

  async loadProfiles(): Promise<void> {
    const { active, profiles } = await api.profiles();
    clear(this.profile);
    const names = profiles.includes(active) ? profiles : [active, ...profiles];
    for (const name of names) this.profile.appendChild(h('option', { value: name, selected: name === active }, name));
    this.profile.appendChild(h('option', { value: '__new__' }, 'New profile…'));
    this.profile.dataset.active = active;
  }

  private async switchProfile(): Promise<void> {
    let name = this.profile.value;
    const previous = this.profile.dataset.active ?? 'default';
    if (name === '__new__') {
      const typed = await promptText('New profile', 'Profile name (lower-case letters, digits, - and _)', '', 'work');
      if (!typed) {
        this.profile.value = previous;
        return;
      }
      name = typed;
    }
    try {
      await api.switchProfile(name);
      await this.loadProfiles();
      // Another profile's conversations are another search.
      this.search.clear();
      this.deps.profileChanged();
    } catch (err) {
      this.profile.value = previous;
      notify(err instanceof Error ? err.message : String(err), 'error');
    }
  }

  async loadWorkspaces(): Promise<void> {
    const roots = await api.workspaces();
    this.workspaces = roots.workspaces;
    this.defaultWorkspace = roots.default;
    this.fillWorkspaceSelect();
  }

  private fillWorkspaceSelect(selected?: string): void {
    clear(this.wsSelect);
    for (const o of workspaceOptions(this.workspaces, this.defaultWorkspace, selected)) {
      this.wsSelect.appendChild(h('option', { value: o.value, selected: o.selected }, o.label));
    }
  }

  /** The New session dialog; `focusCreate` (the keyboard's New conversation): Enter creates at once. */
  async openNewDialog(focusCreate = false): Promise<void> {
    this.dialogError.hidden = true;
    try {
      await this.loadWorkspaces();
    } catch (err) {
      notify(err instanceof Error ? err.message : String(err), 'error');
    }
    this.dialog.returnValue = '';
    if (!this.dialog.open) this.dialog.showModal();
    (focusCreate ? byId('create-session') : this.wsSelect).focus();
  }

  private async addFolder(): Promise<void> {
    let path: string | null | undefined;
    if (window.satchel?.pickFolder) {
      path = await window.satchel.pickFolder();
    } else {
      path = await promptText('Add a workspace folder', 'Absolute path of a folder on the machine running Satchel', '', '/home/me/projects/demo');
    }
    if (!path) return;
    try {
      const roots = await api.addWorkspace(path);
      this.workspaces = roots.workspaces;
      this.defaultWorkspace = roots.default ?? this.defaultWorkspace;
      this.fillWorkspaceSelect(this.workspaces.find((w) => w === path) ?? this.workspaces[this.workspaces.length - 1]);
      this.dialogError.hidden = true;
    } catch (err) {
      this.dialogError.textContent = err instanceof Error ? err.message : String(err);
      this.dialogError.hidden = false;
    }
    // The prompt dialog closed on top of this one; keep the user where they were.
    if (!this.dialog.open) this.dialog.showModal();
  }

  async create(workspace?: string): Promise<string> {
    const pending = api.newSession(workspace).then(({ session }) => session.session_id);
    this.deps.creating(pending);
    try {
      return await pending;
    } catch (err) {
      notify(err instanceof ApiError ? err.message : String(err), 'error');
      throw err;
    }
  }
}
