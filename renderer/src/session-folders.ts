// Folders in the session list (issue 38, item 1): each folder a group of its own after the pinned ones, its heading a
// button that folds it (remembered per folder in this browser), its conversations by last activity; a conversation
// goes into one by dragging its row onto the folder, or through "Move to…" (its row's button, the context menu, or
// Shift+F10 / the Menu key on a focused row). Dragging a row onto any other group takes it out of its folder.
// The list itself (rows, the listbox, the day groups) is sessions.ts's; this module only arranges the groups and
// draws the folders' own parts.
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

export interface FolderDeps {
  /** Draw the list again (the folders or a fold changed). */
  changed(): void;
  /** A conversation's folder changed: its new summary. */
  moved(summary: SessionSummary): void;
  /** The sessions the list holds now. */
  sessions(): readonly SessionSummary[];
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
      this.openMoveMenu(s, e.target as HTMLElement);
    });
    list.addEventListener('keydown', (e) => {
      if (!(e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey))) return;
      const s = this.rowSession(e.target);
      if (!s) return;
      e.preventDefault();
      this.openMoveMenu(s, e.target as HTMLElement);
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

  /** A folder group's element (its heading a fold toggle, its rename and delete), or undefined for another group. */
  groupElement<S extends SessionSummary>(group: SessionGroup<S>, row: (s: S) => HTMLElement): HTMLLIElement | undefined {
    if (!isFolderGroup(group)) return undefined;
    const f = group.folder;
    const headingId = `session-group-${group.key}`;
    const listId = `session-folder-list-${f.id}`;
    const toggle = h(
      'button',
      {
        class: 'session-folder-toggle',
        type: 'button',
        'data-testid': 'folder-toggle',
        'aria-expanded': String(!group.collapsed),
        'aria-controls': listId,
        title: f.name,
        onclick: () => this.toggle(f.id),
      },
      h('span', { class: 'session-folder-chevron', 'aria-hidden': 'true' }, icon([...ICONS.chevron])),
      h('span', { class: 'session-folder-name', 'data-testid': 'folder-name' }, f.name),
      h('span', { class: 'session-folder-count', 'data-testid': 'folder-count' }, ` (${group.total})`),
    );
    const action = (testid: string, label: string, icn: readonly string[], run: () => void) =>
      h('button', { class: 'icon-btn session-action', type: 'button', 'data-testid': testid, 'aria-label': `${label} “${f.name}”`, title: label, onclick: run }, icon([...icn]));
    return h(
      'li',
      { class: `session-group session-folder${group.collapsed ? ' collapsed' : ''}`, 'data-testid': 'session-folder', 'data-group': group.key, 'data-folder-id': f.id },
      h(
        'div',
        { class: 'session-folder-head' },
        h('h3', { class: 'session-group-label session-folder-label', id: headingId }, toggle),
        h(
          'div',
          { class: 'session-actions' },
          action('folder-rename', 'Rename folder', ICONS.edit, () => void this.rename(f)),
          action('folder-delete', 'Delete folder', ICONS.trash, () => void this.remove(f)),
        ),
      ),
      h('ul', { class: 'session-group-list', id: listId, 'aria-labelledby': headingId, hidden: group.collapsed }, group.sessions.map(row)),
    );
  }

  private toggle(id: string): void {
    if (this.collapsed.has(id)) this.collapsed.delete(id);
    else this.collapsed.add(id);
    try {
      localStorage.setItem(COLLAPSED_FOLDERS_KEY, JSON.stringify([...this.collapsed]));
    } catch {
      // Storage refused (private mode): folded for this page only.
    }
    this.deps.changed();
    this.list.querySelector<HTMLElement>(`[data-folder-id="${id}"] [data-testid="folder-toggle"]`)?.focus();
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

  private async rename(f: FolderSummary): Promise<void> {
    const name = await promptText('Rename folder', 'Folder name', f.name);
    if (!name || name === f.name) return;
    try {
      const { folder } = await api.renameFolder(f.id, name);
      this.folders = this.folders.map((x) => (x.id === folder.id ? folder : x));
      this.deps.changed();
    } catch (err) {
      notify(message(err), 'error');
    }
  }

  /** Delete a folder: nothing of its conversations is lost (they go back to no folder), so no question first. */
  private async remove(f: FolderSummary): Promise<void> {
    try {
      const { moved } = await api.deleteFolder(f.id);
      this.folders = this.folders.filter((x) => x.id !== f.id);
      for (const s of this.deps.sessions()) if (s.folder === f.id) this.deps.moved({ ...s, folder: undefined });
      this.deps.changed();
      notify(moved === 0 ? `Deleted the folder “${f.name}”.` : `Deleted the folder “${f.name}”: its ${moved === 1 ? 'conversation is' : `${moved} conversations are`} in no folder now.`);
    } catch (err) {
      notify(message(err), 'error');
    }
  }

  /** Put conversation `s` in folder `folderId` (null: none), and show it. */
  async move(s: SessionSummary, folderId: string | null): Promise<void> {
    if ((s.folder ?? null) === folderId) return;
    try {
      const { session } = await api.moveToFolder(s.session_id, folderId);
      // The summary leaves `folder` out when it has none; the list's copy must lose it too.
      this.deps.moved({ ...session, folder: session.folder });
      void this.load();
    } catch (err) {
      notify(message(err), 'error');
    }
  }

  private rowSession(target: EventTarget | null): SessionSummary | undefined {
    const row = (target as HTMLElement | null)?.closest?.<HTMLElement>('[data-testid="session-row"]');
    const id = row?.dataset.sessionId;
    return id ? this.deps.sessions().find((s) => s.session_id === id) : undefined;
  }

  /** The "Move to…" menu for `s` beside `anchor`: every folder, No folder, New folder…; arrows, Enter, Escape. */
  openMoveMenu(s: SessionSummary, anchor?: HTMLElement): void {
    this.closeMenu();
    const opener = anchor ?? this.list.querySelector<HTMLElement>(`[data-testid="session-row"][data-session-id="${s.session_id}"] [data-testid="session-move"]`) ?? undefined;
    const current = this.folders.some((f) => f.id === s.folder) ? s.folder! : null;
    const item = (label: string, testid: string, run: () => void, checked?: boolean) =>
      h(
        'button',
        {
          class: 'folder-menu-item',
          type: 'button',
          role: checked === undefined ? 'menuitem' : 'menuitemradio',
          'aria-checked': checked === undefined ? undefined : String(checked),
          'data-testid': testid,
          tabindex: '-1',
          onclick: () => {
            this.closeMenu(opener);
            run();
          },
        },
        label,
      );
    const items = [
      ...this.folders.map((f) => item(f.name, 'move-to-folder', () => void this.move(s, f.id), f.id === current)),
      item(NO_FOLDER_LABEL, 'move-to-none', () => void this.move(s, null), current === null),
      item(NEW_FOLDER_LABEL, 'move-to-new', () => void this.createAndMove(s)),
    ];
    const menu = h('div', { class: 'folder-menu', role: 'menu', 'aria-label': `Move “${s.title || 'Untitled'}” to`, 'data-testid': 'move-menu' }, items);
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

  private async createAndMove(s: SessionSummary): Promise<void> {
    const folder = await this.create();
    if (folder) await this.move(s, folder.id);
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
    if (returnTo?.isConnected) returnTo.focus();
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
    if (s) await this.move(s, target.folder);
  }
}
