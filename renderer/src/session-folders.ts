// Folders in the session list (issue 38, item 1): each folder a group of its own after the pinned ones, folded or
// not (remembered per folder in this browser), its conversations by last activity; a conversation goes into one
// by dragging its row onto the folder, or through "Move to…" (its row's button, the context menu, M, Shift+F10 or
// the Menu key on a focused row). Dragging a row onto any other group takes it out of its folder.
// The list is one listbox (sessions.ts), which may hold only options and groups: a folder is a `role="group"`
// named by plain text, and its fold, rename and delete are keys on its rows (Left folds, F2 renames, F opens the
// Folders menu, which also unfolds a folded one) and, for the pointer, a bar on its heading shown on hover.
// This module arranges the groups, draws the folders' own parts and answers those keys; the rows are sessions.ts's.
import { api, type FolderSummary, type SessionSummary } from './api.js';
import { promptText } from './dialogs.js';
import { h, icon, ICONS } from './dom.js';
import type { GroupedSessions, SessionGroup } from './session-groups.js';
import { notify } from './toast.js';

/** Where the folded folders are remembered: a list of folder ids (a folded state is this browser's, not the server's). */
export const COLLAPSED_FOLDERS_KEY = 'satchel.collapsedFolders';
/** The drag's data type: only a session row carries it, so a file dragged over the list is never taken for one. */
export const SESSION_DRAG_TYPE = 'application/x-satchel-session';
export const NO_FOLDER_LABEL = 'No folder';
export const NEW_FOLDER_LABEL = 'New folder…';

export interface Foldered {
  session_id: string;
  folder?: string;
  pinned?: boolean;
  archived?: boolean;
}

/** A folder's group: its sessions shown (none while folded) and how many it holds. */
export interface FolderGroup<S> extends SessionGroup<S> {
  folder: FolderSummary;
  collapsed: boolean;
  total: number;
}

export function isFolderGroup<S>(g: SessionGroup<S>): g is FolderGroup<S> {
  return 'folder' in g;
}

/**
 * The list's groups with folders: a live conversation (not pinned, not archived) in a known folder leaves its day
 * group for its folder's, placed after the pinned group in the folders' order. A folder with nothing to show is
 * kept (a place to drop onto) unless `onlyMatching` (a search filters the list). A folded folder shows no rows.
 */
export function arrangeFolders<S extends Foldered>(grouped: GroupedSessions<S>, folders: readonly FolderSummary[], collapsed: ReadonlySet<string>, onlyMatching = false): GroupedSessions<S> {
  const known = new Map(folders.map((f) => [f.id, [] as S[]]));
  const rest: SessionGroup<S>[] = [];
  for (const g of grouped.groups) {
    if (!g.key.startsWith('day-')) {
      rest.push(g);
      continue;
    }
    const left = g.sessions.filter((s) => {
      const inside = s.folder === undefined ? undefined : known.get(s.folder);
      if (inside) inside.push(s);
      return !inside;
    });
    if (left.length > 0) rest.push({ ...g, sessions: left });
  }
  const folderGroups: FolderGroup<S>[] = [];
  for (const f of folders) {
    const sessions = known.get(f.id)!;
    if (onlyMatching && sessions.length === 0) continue;
    const folded = collapsed.has(f.id);
    folderGroups.push({ key: `folder-${f.id}`, label: f.name, sessions: folded ? [] : sessions, folder: f, collapsed: folded, total: sessions.length });
  }
  const at = rest[0]?.key === 'pinned' ? 1 : 0;
  return { ...grouped, groups: [...rest.slice(0, at), ...folderGroups, ...rest.slice(at)] };
}

/** A folder's heading text: its name and how many conversations it holds. */
export function folderHeading(name: string, total: number): string {
  return `${name} (${total})`;
}

function readCollapsed(): Set<string> {
  try {
    const ids = JSON.parse(localStorage.getItem(COLLAPSED_FOLDERS_KEY) ?? '[]') as unknown;
    return new Set(Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : []);
  } catch {
    return new Set();
  }
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** One entry of a menu (Move to…, Folders): `checked` makes it a radio item showing the current choice. */
interface MenuEntry {
  label: string;
  testid: string;
  run: () => void;
  checked?: boolean;
}

export interface FolderDeps {
  /** Draw the list again (the folders or a fold changed). */
  changed(): void;
  /** A conversation's folder changed: its new summary. */
  moved(summary: SessionSummary): void;
  /** The sessions the list holds now. */
  sessions(): readonly SessionSummary[];
  /** The ids of the rows shown, in the list's order. */
  order(): string[];
  /** Give the keyboard's focus to this row (null: the list's first), drawing the list again. */
  focusRow(id: string | null): void;
}

export class SessionFolders {
  private folders: FolderSummary[] = [];
  private readonly collapsed = readCollapsed();
  private menu: HTMLElement | null = null;
  private loading = 0;

  constructor(
    private readonly list: HTMLElement,
    private readonly deps: FolderDeps,
  ) {
    list.addEventListener('dragstart', (e) => this.dragStart(e));
    list.addEventListener('dragover', (e) => this.dragOver(e));
    list.addEventListener('dragleave', (e) => this.dragLeave(e));
    list.addEventListener('drop', (e) => void this.drop(e));
    list.addEventListener('dragend', () => this.clearTargets());
    list.addEventListener('contextmenu', (e) => {
      const s = this.rowSession(e.target);
      if (!s) return;
      e.preventDefault();
      this.openMoveMenu([s], (e.target as HTMLElement).closest<HTMLElement>('[role="option"]') ?? undefined);
    });
  }

  /** Read the folders again (the list was read again, or a folder changed elsewhere), then draw the list. */
  async load(): Promise<void> {
    const seq = ++this.loading;
    try {
      const { folders } = await api.folders();
      if (seq !== this.loading) return;
      this.folders = folders;
      this.deps.changed();
    } catch {
      // Not reachable now: the list shows without folders until the next read.
    }
  }

  arrange<S extends Foldered>(grouped: GroupedSessions<S>, onlyMatching = false): GroupedSessions<S> {
    return arrangeFolders(grouped, this.folders, this.collapsed, onlyMatching);
  }

  /** Rows are dragged by their row: set on every row once the list is drawn. */
  decorateRows(list: HTMLElement): void {
    for (const row of list.querySelectorAll<HTMLElement>('[data-testid="session-row"]')) row.draggable = true;
  }

  /**
   * A folder group's element, or undefined for another group. A group of the listbox named by plain text (its
   * name, count and, when folded, "folded"); clicking the heading folds it; its buttons are the pointer's only
   * (hidden from the accessibility tree, never Tab stops, as a row's are): the keys on its rows do the same.
   */
  groupElement<S extends SessionSummary>(group: SessionGroup<S>, row: (s: S) => HTMLElement): HTMLLIElement | undefined {
    if (!isFolderGroup(group)) return undefined;
    const f = group.folder;
    const labelId = `session-group-${group.key}`;
    const action = (testid: string, label: string, key: string, icn: readonly string[], run: () => void) =>
      h('button', { class: 'icon-btn session-action', type: 'button', tabindex: '-1', 'data-testid': testid, 'aria-label': `${label} “${f.name}”`, title: `${label} (${key} on a row)`, onclick: run }, icon([...icn]));
    return h(
      'li',
      {
        class: `session-group session-folder${group.collapsed ? ' collapsed' : ''}`,
        role: 'group',
        'aria-labelledby': labelId,
        'data-testid': 'session-folder',
        'data-group': group.key,
        'data-folder-id': f.id,
        'data-folded': String(group.collapsed),
      },
      h(
        'div',
        { class: 'session-folder-head', 'data-testid': 'folder-head' },
        h(
          'div',
          { class: 'session-group-label session-folder-label', id: labelId, 'data-testid': 'folder-label', title: f.name, onclick: () => this.toggle(f.id) },
          h('span', { class: 'session-folder-chevron', 'aria-hidden': 'true' }, icon([...ICONS.chevron])),
          h('span', { class: 'session-folder-name', 'data-testid': 'folder-name' }, f.name),
          h('span', { class: 'session-folder-count', 'data-testid': 'folder-count' }, ` (${group.total})`),
          group.collapsed ? h('span', { class: 'visually-hidden' }, ', folded') : null,
        ),
        h(
          'div',
          { class: 'session-actions', 'aria-hidden': 'true' },
          action('folder-toggle', group.collapsed ? 'Unfold folder' : 'Fold folder', group.collapsed ? 'F' : '←', ICONS.chevron, () => this.toggle(f.id)),
          action('folder-rename', 'Rename folder', 'F2', ICONS.edit, () => void this.rename(f)),
          action('folder-delete', 'Delete folder', 'F', ICONS.trash, () => void this.remove(f)),
        ),
      ),
      group.collapsed ? null : h('ul', { class: 'session-group-list', role: 'none' }, group.sessions.map(row)),
    );
  }

  /**
   * A key on the focused row `id` (`acting`: the rows it acts on, the selection it is part of or itself); true
   * when it was a folder's key and is taken.
   */
  onRowKey(e: KeyboardEvent, id: string, acting: readonly SessionSummary[]): boolean {
    const mod = e.ctrlKey || e.metaKey || e.altKey;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    const opener = e.target as HTMLElement;
    const s = this.deps.sessions().find((x) => x.session_id === id);
    const folder = this.folderOfRow(s);
    if (key === 'ContextMenu' || (key === 'F10' && e.shiftKey && !mod) || (key === 'm' && !mod && !e.shiftKey)) {
      if (acting.length > 0) this.openMoveMenu(acting, opener);
    } else if (key === 'f' && !mod && !e.shiftKey) {
      this.openFolderMenu(folder, id, opener);
    } else if (key === 'F2' && !mod && !e.shiftKey && folder) {
      void this.rename(folder, id);
    } else if (key === 'ArrowLeft' && !mod && !e.shiftKey && folder) {
      this.fold(folder.id, id);
    } else return false;
    e.preventDefault();
    return true;
  }

  private folderOfRow(s: SessionSummary | undefined): FolderSummary | undefined {
    // Pinned and archived conversations show in their own groups, not in their folder's.
    if (!s || s.pinned || s.archived) return undefined;
    return this.folders.find((f) => f.id === s.folder);
  }

  private saveCollapsed(): void {
    try {
      localStorage.setItem(COLLAPSED_FOLDERS_KEY, JSON.stringify([...this.collapsed]));
    } catch {
      // Storage refused (private mode): folded for this page only.
    }
  }

  /** Fold or unfold by pointer: the list drawn again, the keyboard left where it was. */
  private toggle(id: string): void {
    if (this.collapsed.has(id)) this.collapsed.delete(id);
    else this.collapsed.add(id);
    this.saveCollapsed();
    this.deps.changed();
  }

  /** Fold the folder of row `from` by key: the keyboard goes to the row after the folder (or before it). */
  private fold(folderId: string, from: string): void {
    const order = this.deps.order();
    const inside = new Set(this.deps.sessions().filter((s) => s.folder === folderId).map((s) => s.session_id));
    const at = order.indexOf(from);
    const after = order.slice(at + 1).find((x) => !inside.has(x)) ?? [...order.slice(0, at)].reverse().find((x) => !inside.has(x)) ?? null;
    this.collapsed.add(folderId);
    this.saveCollapsed();
    this.deps.focusRow(after);
  }

  /** Unfold by key: the keyboard goes to the folder's first row. */
  private unfold(folderId: string): void {
    this.collapsed.delete(folderId);
    this.saveCollapsed();
    this.deps.changed();
    const first = this.list.querySelector<HTMLElement>(`[data-folder-id="${folderId}"] [role="option"]`);
    this.deps.focusRow(first?.dataset.sessionId ?? null);
  }

  /** Ask for a name and make a folder; resolves it (null when cancelled or refused, the refusal said). */
  async create(): Promise<FolderSummary | null> {
    const name = await promptText('New folder', 'Folder name', '', 'Car insurance');
    if (!name) return null;
    try {
      const { folder } = await api.newFolder(name);
      this.folders = [...this.folders, folder].sort((a, b) => a.name.localeCompare(b.name));
      this.deps.changed();
      return folder;
    } catch (err) {
      notify(message(err), 'error');
      return null;
    }
  }

  /** Rename a folder; `back`: the row the keyboard returns to afterwards. */
  private async rename(f: FolderSummary, back?: string): Promise<void> {
    const name = await promptText('Rename folder', 'Folder name', f.name);
    try {
      if (!name || name === f.name) return;
      const { folder } = await api.renameFolder(f.id, name);
      this.folders = this.folders.map((x) => (x.id === folder.id ? folder : x));
      this.deps.changed();
    } catch (err) {
      notify(message(err), 'error');
    } finally {
      if (back !== undefined) this.deps.focusRow(back);
    }
  }

  /** Delete a folder: nothing of its conversations is lost (they go back to no folder), so no question first. */
  private async remove(f: FolderSummary, back?: string): Promise<void> {
    try {
      const { moved } = await api.deleteFolder(f.id);
      this.folders = this.folders.filter((x) => x.id !== f.id);
      for (const s of this.deps.sessions()) if (s.folder === f.id) this.deps.moved({ ...s, folder: undefined });
      this.deps.changed();
      notify(moved === 0 ? `Deleted the folder “${f.name}”.` : `Deleted the folder “${f.name}”: its ${moved === 1 ? 'conversation is' : `${moved} conversations are`} in no folder now.`);
    } catch (err) {
      notify(message(err), 'error');
    } finally {
      if (back !== undefined) this.deps.focusRow(back);
    }
  }

  /** Put these conversations in folder `folderId` (null: none), and show them. */
  async move(sessions: readonly SessionSummary[], folderId: string | null): Promise<void> {
    for (const s of sessions) {
      if ((s.folder ?? null) === folderId) continue;
      try {
        const { session } = await api.moveToFolder(s.session_id, folderId);
        // The summary leaves `folder` out when it has none; the list's copy must lose it too.
        this.deps.moved({ ...session, folder: session.folder });
      } catch (err) {
        notify(message(err), 'error');
        break;
      }
    }
    void this.load();
  }

  private rowSession(target: EventTarget | null): SessionSummary | undefined {
    const row = (target as HTMLElement | null)?.closest?.<HTMLElement>('[data-testid="session-row"]');
    const id = row?.dataset.sessionId;
    return id ? this.deps.sessions().find((s) => s.session_id === id) : undefined;
  }

  /** The "Move to…" menu for these conversations: every folder, No folder, New folder…. */
  openMoveMenu(sessions: readonly SessionSummary[], anchor?: HTMLElement): void {
    const first = sessions[0];
    if (!first) return;
    const opener = anchor ?? this.list.querySelector<HTMLElement>(`[role="option"][data-session-id="${first.session_id}"]`) ?? undefined;
    // The current choice is shown when they all share it.
    const shared = sessions.every((s) => (s.folder ?? null) === (first.folder ?? null)) && (first.folder === undefined || this.folders.some((f) => f.id === first.folder));
    const current = shared ? (first.folder ?? null) : undefined;
    const what = sessions.length === 1 ? `“${first.title || 'Untitled'}”` : `${sessions.length} conversations`;
    this.openMenu(`Move ${what} to`, 'move-menu', opener, [
      ...this.folders.map((f) => ({ label: f.name, testid: 'move-to-folder', run: () => void this.move(sessions, f.id), checked: current === f.id })),
      { label: NO_FOLDER_LABEL, testid: 'move-to-none', run: () => void this.move(sessions, null), checked: current === null },
      { label: NEW_FOLDER_LABEL, testid: 'move-to-new', run: () => void this.createAndMove(sessions) },
    ]);
  }

  /**
   * The Folders menu (F on a row): the row's folder's Fold, Rename and Delete, then every other folder's Fold or
   * Unfold (a folded folder has no row to press a key on), then New folder….
   */
  private openFolderMenu(own: FolderSummary | undefined, rowId: string, opener: HTMLElement): void {
    const count = (f: FolderSummary) => this.deps.sessions().filter((s) => s.folder === f.id && !s.pinned && !s.archived).length;
    const foldEntry = (f: FolderSummary): MenuEntry =>
      this.collapsed.has(f.id)
        ? { label: `Unfold “${f.name}” (${count(f)})`, testid: 'folder-menu-unfold', run: () => this.unfold(f.id) }
        : { label: `Fold “${f.name}” (${count(f)})`, testid: 'folder-menu-fold', run: () => this.fold(f.id, rowId) };
    const entries: MenuEntry[] = [];
    if (own) {
      entries.push(
        foldEntry(own),
        { label: `Rename “${own.name}”…`, testid: 'folder-menu-rename', run: () => void this.rename(own, rowId) },
        { label: `Delete “${own.name}”`, testid: 'folder-menu-delete', run: () => void this.remove(own, rowId) },
      );
    }
    for (const f of this.folders) if (f.id !== own?.id) entries.push(foldEntry(f));
    entries.push({ label: NEW_FOLDER_LABEL, testid: 'folder-menu-new', run: () => void this.create().finally(() => this.deps.focusRow(rowId)) });
    this.openMenu('Folders', 'folders-menu', opener, entries);
  }

  private async createAndMove(sessions: readonly SessionSummary[]): Promise<void> {
    const folder = await this.create();
    if (folder) await this.move(sessions, folder.id);
  }

  /** A menu beside `opener`: arrows, Home, End, Enter; Escape or Tab closes it and gives the focus back. */
  private openMenu(label: string, testid: string, opener: HTMLElement | undefined, entries: readonly MenuEntry[]): void {
    this.closeMenu();
    const items = entries.map((en) =>
      h(
        'button',
        {
          class: 'folder-menu-item',
          type: 'button',
          role: en.checked === undefined ? 'menuitem' : 'menuitemradio',
          'aria-checked': en.checked === undefined ? undefined : String(en.checked),
          'data-testid': en.testid,
          tabindex: '-1',
          onclick: () => {
            this.closeMenu(opener);
            en.run();
          },
        },
        en.label,
      ),
    );
    const menu = h('div', { class: 'folder-menu', role: 'menu', 'aria-label': label, 'data-testid': testid }, items);
    menu.addEventListener('keydown', (e) => this.menuKey(e, items, opener));
    menu.addEventListener('focusout', (e) => {
      if (!menu.contains(e.relatedTarget as Node | null)) this.closeMenu();
    });
    // Inside the sidebar: in a small window it is a drawer that keeps focus within itself.
    (this.list.closest('aside') ?? document.body).appendChild(menu);
    this.menu = menu;
    this.place(menu, opener);
    (items.find((b) => b.getAttribute('aria-checked') === 'true') ?? items[0])!.focus();
  }

  /** Below the opener, kept inside the window. */
  private place(menu: HTMLElement, opener: HTMLElement | undefined): void {
    const r = opener?.getBoundingClientRect() ?? { left: 16, bottom: 16 };
    const w = menu.offsetWidth;
    const hgt = menu.offsetHeight;
    menu.style.left = `${Math.max(4, Math.min(r.left, window.innerWidth - w - 4))}px`;
    menu.style.top = `${Math.max(4, Math.min(r.bottom + 2, window.innerHeight - hgt - 4))}px`;
  }

  private menuKey(e: KeyboardEvent, items: HTMLButtonElement[], opener: HTMLElement | undefined): void {
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    const go = (i: number) => items[(i + items.length) % items.length]!.focus();
    if (e.key === 'ArrowDown') go(at + 1);
    else if (e.key === 'ArrowUp') go(at - 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(items.length - 1);
    else if (e.key === 'Escape' || e.key === 'Tab') this.closeMenu(opener);
    else return;
    e.preventDefault();
    e.stopPropagation();
  }

  private closeMenu(returnTo?: HTMLElement): void {
    const menu = this.menu;
    this.menu = null;
    menu?.remove();
    if (!returnTo) return;
    // The list may have been drawn again meanwhile: the same row, found by its id.
    const id = returnTo.dataset.sessionId;
    const now = returnTo.isConnected || id === undefined ? returnTo : this.list.querySelector<HTMLElement>(`[role="option"][data-session-id="${id}"]`);
    now?.focus();
  }

  private dragStart(e: DragEvent): void {
    const s = this.rowSession(e.target);
    if (!s || !e.dataTransfer) return;
    e.dataTransfer.setData(SESSION_DRAG_TYPE, s.session_id);
    e.dataTransfer.setData('text/plain', s.title || 'Untitled');
    e.dataTransfer.effectAllowed = 'move';
  }

  /** The group under a drag of a row: a folder's id, or null for any other group (out of its folder). */
  private dropTarget(e: DragEvent): { el: HTMLElement; folder: string | null } | undefined {
    if (!e.dataTransfer?.types.includes(SESSION_DRAG_TYPE)) return undefined;
    const el = (e.target as HTMLElement | null)?.closest?.<HTMLElement>('.session-group');
    if (!el) return undefined;
    return { el, folder: el.dataset.folderId ?? null };
  }

  private dragOver(e: DragEvent): void {
    const target = this.dropTarget(e);
    if (!target) return;
    // A row's drop is this list's alone: not the composer's file drop around it.
    e.preventDefault();
    e.stopPropagation();
    e.dataTransfer!.dropEffect = 'move';
    this.clearTargets(target.el);
    target.el.classList.add('drop-target');
  }

  private dragLeave(e: DragEvent): void {
    const el = (e.target as HTMLElement | null)?.closest?.<HTMLElement>('.session-group');
    if (el && !el.contains(e.relatedTarget as Node | null)) el.classList.remove('drop-target');
  }

  private clearTargets(except?: HTMLElement): void {
    for (const el of this.list.querySelectorAll<HTMLElement>('.drop-target')) if (el !== except) el.classList.remove('drop-target');
  }

  private async drop(e: DragEvent): Promise<void> {
    const target = this.dropTarget(e);
    if (!target) return;
    e.preventDefault();
    e.stopPropagation();
    this.clearTargets();
    const id = e.dataTransfer!.getData(SESSION_DRAG_TYPE);
    const s = this.deps.sessions().find((x) => x.session_id === id);
    if (s) await this.move([s], target.folder);
  }
}
