// The sidebar: profile switcher, session list (pinned first, grouped by day, archived behind a toggle) and the
// "New session" dialog with its workspace choice. The list is one listbox (issue 38, item 1): one Tab stop, the
// arrow keys, Home and End inside, Enter opens, Delete, P and A act on the focused row (or on the selection it is
// part of); Shift/Ctrl-click and Shift+arrows select several for the bar above the list. Each row's Pin, Archive
// and Delete show over its right end on hover or keyboard focus, so a title has the row's whole width.
import { api, ApiError, type SessionSummary } from './api.js';
import { promptText } from './dialogs.js';
import { byId, clear, h, icon, ICONS } from './dom.js';
import { formatTime } from './format.js';
import { deleteWithUndo, setArchived, setPinned } from './session-actions.js';
import { archivedToggleLabel, groupSessions } from './session-groups.js';
import { isMoveKey, ListSelection, moveFocus, rowAfter, undoShows } from './session-selection.js';
import { SessionFolders } from './session-folders.js';
import { SessionSearch } from './search.js';
import { initSidebarResize } from './sidebar-resize.js';
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
  /** Session `id` is back (Undo, or a refused delete): reload the list; `show`: open it too (it was on screen
   *  when it was deleted and the person has not moved on), else stay on the conversation shown. */
  restored(id: string, show: boolean): void;
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

/** Nothing has the keyboard's focus: it may go to the list without taking it from anything. */
function isIdle(el: Element | null): boolean {
  return el === null || el === document.body || el === document.documentElement;
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
  /** The listbox's selection and the row holding its keyboard focus (session-selection.ts). */
  private readonly selection = new ListSelection();
  private focusId: string | null = null;
  /** Rows taken off the list whose delete requests are still on their way. */
  private readonly deleting = new Set<string>();
  /** The next render puts the keyboard's focus on `focusId` if it is nowhere (after a delete or an Undo). */
  private focusAfterRender = false;
  /** Over the list while several rows are selected: their count and Archive, Export, Delete. */
  private readonly bar = byId('session-selection-bar');
  /** The search field: the list shows the sessions whose title holds its text until the server's results come,
   *  which then show in the list's place (search.ts). */
  private readonly search: SessionSearch;
  private readonly searchField = byId<HTMLInputElement>('session-search');
  /** Folders (session-folders.ts): their groups, their keys and menus, drag and drop onto them, "Move to…". */
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
    initSidebarResize();
    this.list.addEventListener('keydown', (e) => this.onKey(e));
    // A calmed row (after a delete by pointer) shows its buttons again once the pointer is on another row or gone.
    // (The list itself is not another row: the hovered button, drawn again, hands the hover to the list first.)
    this.list.addEventListener('pointerover', (e) => {
      const row = (e.target as Element).closest<HTMLElement>('[data-testid="session-row"]');
      if (this.calmRow !== null && row && row.dataset.sessionId !== this.calmRow) this.endCalm();
    });
    this.list.addEventListener('pointerleave', () => this.endCalm());
    this.folders = new SessionFolders(this.list, {
      changed: () => this.render(),
      moved: (s) => this.applySummary(s),
      sessions: () => this.sessions,
      order: () => this.order(),
      focusRow: (id) => {
        this.focusId = id;
        this.focusAfterRender = true;
        this.render();
      },
    });
    const folderBtn = byId('new-folder');
    folderBtn.prepend(icon([...ICONS.folder]), ' ');
    folderBtn.addEventListener('click', () => void this.folders.create());
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
    // A list read while a delete is on its way may still hold the rows already taken off: they stay off.
    this.sessions = sessions.filter((s) => !this.deleting.has(s.session_id));
    this.activeId = activeId;
    if (this.selection.size <= 1) this.selection.only(activeId);
    this.render();
    void this.folders.load();
    // A conversation renamed, deleted or written to since: the results say so too.
    this.search.refresh();
  }

  setActive(id: string | null): void {
    const opened = id !== this.activeId;
    this.activeId = id;
    // A conversation opened (here, by a shortcut, a search, the address) is the selection, unless several are
    // selected: opening one of them by click is a plain click, which already made it the only one.
    if (this.selection.size <= 1) this.selection.only(id);
    // Only a conversation newly opened takes the keyboard's place: the one on screen said again (a refresh after
    // a delete elsewhere in the list) must not pull focus off the row the delete left it on.
    if (id !== null && opened) this.focusId = id;
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
    return this.folders.arrange(groupSessions(this.matching(), Date.now(), this.showArchived), this.search.titleFilter() !== '').groups.flatMap((g) => g.sessions.map((s) => s.session_id));
  }

  /** The rows the listbox shows now, in order (a folder collapsed, or the list hidden by a search: none of it). */
  private shownOptions(): HTMLElement[] {
    if (this.list.hidden) return [];
    return [...this.list.querySelectorAll<HTMLElement>('[role="option"]')].filter((o) => o.closest('[hidden]') === null);
  }

  /** The ids of the rows shown, in the list's order as drawn (folders and all). */
  private order(): string[] {
    return this.shownOptions().map((o) => o.dataset.sessionId ?? '');
  }

  private optionOf(id: string | null): HTMLElement | null {
    if (id === null) return null;
    return this.shownOptions().find((o) => o.dataset.sessionId === id) ?? null;
  }

  private render(): void {
    // The list is drawn again whole; the keyboard's place in it is kept.
    const focusInList = this.list.contains(document.activeElement);
    clear(this.list);
    const present = new Set(this.sessions.map((s) => s.session_id));
    this.selection.keepOnly(present);
    const searching = this.search.titleFilter() !== '';
    const { groups, archivedCount } = this.folders.arrange(groupSessions(this.matching(), Date.now(), this.showArchived), searching);
    // The search's results (or its empty line) take the list's place; its error line stands above the list.
    const listShown = this.search.shows() === 'list' || this.search.shows() === 'error';
    this.list.hidden = !listShown;
    const empty = byId('session-empty');
    // A folder with nothing in it is still a group (a place to drop onto), not a row to show.
    empty.hidden = !listShown || groups.some((g) => g.sessions.length > 0 || g.key.startsWith('folder-'));
    // Titles filter at once; the server's answer may still find the words in a message.
    empty.textContent = this.sessions.length === 0 || !searching ? 'No sessions yet.' : this.search.shows() === 'error' ? 'No conversation’s title matches.' : 'Searching messages and files…';
    this.archivedToggle.hidden = !listShown || archivedCount === 0;
    this.archivedToggle.textContent = archivedToggleLabel(archivedCount, this.showArchived);
    this.archivedToggle.setAttribute('aria-expanded', String(this.showArchived));
    const order = groups.flatMap((g) => g.sessions.map((s) => s.session_id));
    // One row takes Tab: the focused one while it is shown, else the one on screen, else the first.
    const tabRow = [this.focusId, this.activeId].find((id) => id !== null && order.includes(id)) ?? order[0] ?? null;
    this.list.classList.toggle('multi', this.selection.size > 1);
    for (const group of groups) {
      const folder = this.folders.groupElement(group, (s) => this.row(s, s.session_id === tabRow));
      if (folder) {
        this.list.appendChild(folder);
        continue;
      }
      const headingId = `session-group-${group.key}`;
      this.list.appendChild(
        h(
          'li',
          { class: 'session-group', role: 'group', 'aria-labelledby': headingId, 'data-testid': 'session-group', 'data-group': group.key },
          // A plain label naming the group (aria-labelledby): a heading inside a listbox is a child it may not have.
          h('div', { class: 'session-group-label', id: headingId, 'data-testid': 'session-group-label' }, group.label),
          h('ul', { class: 'session-group-list', role: 'none' }, group.sessions.map((s) => this.row(s, s.session_id === tabRow))),
        ),
      );
    }
    this.folders.decorateRows(this.list);
    this.renderBar(order);
    if (focusInList || (this.focusAfterRender && isIdle(document.activeElement))) {
      (this.optionOf(this.focusId) ?? this.optionOf(tabRow))?.focus({ preventScroll: false });
    }
    this.focusAfterRender = false;
  }

  private row(s: SessionSummary, tabStop: boolean): HTMLLIElement {
    const id = s.session_id;
    const active = id === this.activeId;
    const selected = this.selection.has(id);
    const title = s.title || 'Untitled';
    const changed = (summary: SessionSummary) => this.applySummary(summary);
    // Not Tab stops: the row's keys (P, A, Delete) do the same from the keyboard; the buttons are for the pointer.
    const action = (testid: string, label: string, key: string, icn: readonly string[], run: () => void, pressed?: boolean) =>
      h(
        'button',
        {
          class: 'icon-btn session-action',
          type: 'button',
          tabindex: '-1',
          'data-testid': testid,
          'aria-label': `${label} “${title}”`,
          title: `${label} (${key})`,
          'aria-pressed': pressed === undefined ? undefined : String(pressed),
          onclick: (e: Event) => {
            this.pointerAt = e instanceof MouseEvent && e.detail > 0 ? { x: e.clientX, y: e.clientY } : null;
            this.focusId = id;
            run();
          },
        },
        icon([...icn]),
      );
    return h(
      'li',
      { class: `session-row${s.pinned ? ' pinned' : ''}${id === this.calmRow ? ' calmed' : ''}`, role: 'none', 'data-testid': 'session-row', 'data-session-id': id },
      h(
        'div',
        {
          class: `session-item${active ? ' active' : ''}`,
          role: 'option',
          id: `session-option-${id}`,
          tabindex: tabStop ? '0' : '-1',
          'aria-selected': String(selected),
          'aria-current': active ? 'page' : undefined,
          'data-testid': 'session-item',
          'data-session-id': id,
          onclick: (e: Event) => this.clicked(e as MouseEvent, id),
          onfocus: () => {
            this.focusId = id;
            this.moveTabStop(id);
          },
        },
        h('span', { class: 'session-name', 'data-testid': 'session-item-title', title }, title),
        h('span', { class: 'muted small session-meta' }, [
          s.pinned ? icon([...ICONS.pin]) : null,
          formatTime(s.updated_at ?? s.created_at),
          s.message_count ? ` · ${s.message_count} msg` : '',
          // An imported copy (issue 38, item 5): told apart from its original at a glance.
          s.imported_at ? h('span', { class: 'session-imported', 'data-testid': 'session-imported' }, ' · imported') : null,
        ]),
      ),
      // Hidden from the accessibility tree (a listbox holds only options): the row's keys and the described
      // shortcuts are how a screen reader acts; the buttons, never Tab stops, are the pointer's.
      h(
        'div',
        { class: 'session-actions', 'aria-hidden': 'true' },
        action('session-pin', s.pinned ? 'Unpin' : 'Pin', 'P', ICONS.pin, () => void setPinned(s, !s.pinned, { changed }), Boolean(s.pinned)),
        action('session-archive', s.archived ? 'Unarchive' : 'Archive', 'A', ICONS.archive, () => void setArchived(s, !s.archived, { changed })),
        action('session-delete', 'Delete', 'Delete', ICONS.trash, () => void this.delete([s])),
        action('session-move', 'Move to…', 'M', ICONS.folder, () => this.folders.openMoveMenu(this.acting(id, this.order()))),
      ),
    );
  }

  /** The roving tab stop follows the focus without drawing the list again. */
  private moveTabStop(id: string): void {
    for (const o of this.list.querySelectorAll<HTMLElement>('[role="option"]')) o.tabIndex = o.dataset.sessionId === id ? 0 : -1;
    // The row the pointer calmed (after a delete) is left: its buttons may show again.
    if (this.calmRow !== null && this.calmRow !== id) this.endCalm();
  }

  private clicked(e: MouseEvent, id: string): void {
    this.focusId = id;
    if (e.shiftKey) {
      this.selection.extend(this.order(), id);
      this.render();
    } else if (e.ctrlKey || e.metaKey) {
      this.selection.toggle(id);
      this.render();
    } else {
      this.selection.only(id);
      this.deps.pick(id);
    }
  }

  /** The listbox's keys (one listener on the list; the rows' own are the pointer's). */
  private onKey(e: KeyboardEvent): void {
    const target = e.target as HTMLElement;
    const id = target.getAttribute('role') === 'option' ? (target.dataset.sessionId ?? null) : null;
    if (id === null || e.altKey) return;
    const order = this.order();
    const mod = e.ctrlKey || e.metaKey;
    if (isMoveKey(e.key)) {
      e.preventDefault();
      const to = moveFocus(order, id, e.key);
      if (to === null) return;
      this.focusId = to;
      if (e.shiftKey) {
        // A range starts where the keyboard is: from a row outside the selection (arrows moved off it), the range
        // is that row on, not the last row opened (as a file manager's cursor moves its anchor).
        if (this.selection.anchor === null || !this.selection.has(this.selection.anchor) || !this.selection.has(id)) this.selection.only(id);
        this.selection.extend(order, to);
        this.render();
      } else {
        this.moveTabStop(to);
        this.optionOf(to)?.focus();
      }
      return;
    }
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    const acting = this.acting(id, order);
    // A folder's keys (Left folds, F2 renames, F its menu) and Move to… (M, Shift+F10, the Menu key).
    if (this.folders.onRowKey(e, id, acting)) return;
    if (key === 'Enter' && !mod && !e.shiftKey) {
      e.preventDefault();
      this.selection.only(id);
      this.deps.pick(id);
    } else if (key === ' ') {
      e.preventDefault();
      if (e.shiftKey) this.selection.extend(order, id);
      else this.selection.toggle(id);
      this.render();
    } else if (key === 'a' && mod && !e.shiftKey) {
      e.preventDefault();
      this.selection.all(order);
      this.render();
    } else if (key === 'Escape' && this.selection.size > 1) {
      e.preventDefault();
      this.selection.only(id);
      this.render();
    } else if ((key === 'Delete' || key === 'Backspace') && !mod) {
      e.preventDefault();
      this.pointerAt = null;
      void this.delete(acting);
    } else if (key === 'p' && !mod && !e.shiftKey) {
      e.preventDefault();
      void this.setFlag(acting, 'pinned');
    } else if (key === 'a' && !mod && !e.shiftKey) {
      e.preventDefault();
      void this.setFlag(acting, 'archived');
    }
  }

  /** What a row's key acts on: the selection when the row is part of several selected, else the row alone. */
  private acting(id: string, order: readonly string[]): SessionSummary[] {
    const ids = this.selection.size > 1 && this.selection.has(id) ? this.selection.inOrder(order) : [id];
    return ids.map((x) => this.sessions.find((s) => s.session_id === x)).filter((s): s is SessionSummary => s !== undefined);
  }

  /** Pin (or archive) them all, or take it off all when every one has it already. */
  private async setFlag(sessions: readonly SessionSummary[], flag: 'pinned' | 'archived'): Promise<void> {
    const on = !sessions.every((s) => s[flag] === true);
    const changed = (summary: SessionSummary) => this.applySummary(summary);
    for (const s of sessions) {
      if ((s[flag] === true) === on) continue;
      await (flag === 'pinned' ? setPinned(s, on, { changed }) : setArchived(s, on, { changed }));
    }
  }

  /** The bar over the list while several rows are selected: how many, and what can be done to all of them. */
  private renderBar(order: readonly string[]): void {
    const chosen = this.selection.inOrder(order);
    // The bar is drawn again whole (a live change, a flag set): the keyboard stays on the button it was on. Sent to
    // Delete instead, as it was, an Enter meant for Clear after another window's change deleted the selection.
    const focused = this.bar.contains(document.activeElement) ? ((document.activeElement as HTMLElement).dataset.testid ?? null) : null;
    clear(this.bar);
    this.bar.hidden = chosen.length < 2 || this.list.hidden;
    if (this.bar.hidden) return;
    const sessions = () => this.acting(chosen[0]!, order);
    const allArchived = chosen.every((id) => this.sessions.find((s) => s.session_id === id)?.archived === true);
    const button = (testid: string, label: string, icn: readonly string[] | null, run: () => void) =>
      h('button', { class: 'btn btn-small', type: 'button', 'data-testid': testid, onclick: run }, icn ? icon([...icn]) : null, label);
    this.bar.append(
      h('span', { class: 'selection-count', 'data-testid': 'selection-count', role: 'status' }, `${chosen.length} selected`),
      button('selection-archive', allArchived ? 'Unarchive' : 'Archive', ICONS.archive, () => void this.setFlag(sessions(), 'archived')),
      button('selection-export', 'Export', ICONS.upload, () => this.exportSelected(chosen)),
      button('selection-delete', 'Delete', ICONS.trash, () => void this.delete(sessions())),
      h(
        'button',
        {
          class: 'icon-btn',
          type: 'button',
          'data-testid': 'selection-clear',
          'aria-label': 'Clear the selection',
          title: 'Clear the selection (Esc in the list)',
          onclick: () => {
            this.selection.only(this.activeId);
            this.focusAfterRender = true;
            this.render();
          },
        },
        icon([...ICONS.x]),
      ),
    );
    if (focused !== null) (this.bar.querySelector<HTMLElement>(`[data-testid="${focused}"]`) ?? this.bar.querySelector<HTMLElement>('[data-testid="selection-clear"]'))?.focus();
  }

  /** Export of the selected: the "Export all" archive of just these (GET /api/sessions/export?session_ids=). */
  private exportSelected(ids: readonly string[]): void {
    const link = h('a', { href: `/api/sessions/export?session_ids=${ids.join(',')}`, download: '', hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
  }

  /** A session's new summary (a flag changed) in place, without a reload. */
  private applySummary(summary: SessionSummary): void {
    this.sessions = this.sessions.map((s) => (s.session_id === summary.session_id ? { ...s, ...summary } : s));
    this.render();
  }

  /**
   * Delete these, with Undo. The keyboard's place goes to the row after them (not to a button). A delete by
   * pointer calms the row that slides under it: its buttons stay hidden until the pointer leaves it, so a second
   * click cannot delete a conversation it was never aimed at (issue 38, item 7).
   */
  private delete(sessions: readonly SessionSummary[]): Promise<void> {
    const shownAtDelete = this.activeId;
    let substitute: string | null = shownAtDelete;
    const focusWasHere = this.list.contains(document.activeElement) || this.bar.contains(document.activeElement);
    const ids = sessions.map((s) => s.session_id);
    const settled = () => ids.forEach((id) => this.deleting.delete(id));
    return deleteWithUndo(sessions, {
      beforeDelete: (id) => this.deps.beforeDelete(id),
      removed: (ids) => {
        for (const id of ids) this.deleting.add(id);
        const next = rowAfter(this.order(), ids);
        if (shownAtDelete !== null && ids.includes(shownAtDelete)) substitute = next;
        this.sessions = this.sessions.filter((s) => !ids.includes(s.session_id));
        this.selection.keepOnly(new Set(this.sessions.map((s) => s.session_id)));
        if (this.selection.size === 0 && next !== null) this.selection.only(next);
        this.focusId = next;
        this.focusAfterRender = focusWasHere;
        this.render();
        if (this.pointerAt) this.calm(this.pointerAt);
        this.pointerAt = null;
        for (const id of ids) this.deps.removed(id, next);
      },
      restored: (ids) => {
        for (const id of ids) this.deleting.delete(id);
        const show = undoShows(ids, shownAtDelete, substitute, this.activeId);
        const back = show && shownAtDelete !== null ? shownAtDelete : ids[0]!;
        // The row comes back where the keyboard can act on it again (Undo from the notice left focus nowhere).
        this.focusId = back;
        this.focusAfterRender = true;
        this.deps.restored(back, show);
      },
      changed: (summary) => this.applySummary(summary),
    }).finally(settled);
  }

  /** The pointer's place when a row's button was clicked (null: the keyboard's), for calm(). */
  private pointerAt: { x: number; y: number } | null = null;
  /** The row under the pointer just after a delete, whose buttons stay hidden until the pointer leaves it. */
  private calmRow: string | null = null;

  private calm(at: { x: number; y: number }): void {
    const under = document.elementFromPoint(at.x, at.y)?.closest<HTMLElement>('[data-testid="session-row"]');
    this.calmRow = under?.dataset.sessionId ?? null;
    under?.classList.add('calmed');
  }

  private endCalm(): void {
    this.calmRow = null;
    for (const r of this.list.querySelectorAll('.calmed')) r.classList.remove('calmed');
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
