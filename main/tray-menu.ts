// The tray (menu-bar) icon's menu, what closing the window does, and when a finished reply raises a system
// notification: each a pure function of state, so the glue only builds Electron objects from the answers.
import path from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';

/** Recent conversations in the tray menu: enough to return to today's, few enough to keep the menu short. */
export const MAX_TRAY_RECENT = 5;
/** A title longer than this is cut with an ellipsis: menus do not wrap, and a long one widens the whole menu. */
export const MAX_TRAY_TITLE_CHARS = 48;
/** What a conversation without a usable title is called in the menu. */
export const UNTITLED_LABEL = 'Untitled conversation';
/** A session id as the server makes them and the UI's #s= address accepts (renderer/src/app.ts). */
const SESSION_ID = /^[\w-]{1,128}$/;

export interface RecentConversation {
  session_id: string;
  title: string;
}

export type WatchingState = 'watching' | 'paused' | 'none';

export interface TrayState {
  recent: readonly RecentConversation[];
  /** The Inbox folders: watching, paused, or none configured (then no item). */
  watching: WatchingState;
  /** The accelerators to show beside Quick capture and Dictate ('' when off or not registered). */
  quickCaptureAccelerator: string;
  dictateAccelerator: string;
}

export interface TrayActions {
  quickCapture(): void;
  dictate(): void;
  openConversation(sessionId: string): void;
  openWindow(): void;
  openSettings(): void;
  pauseWatching(): void;
  resumeWatching(): void;
  quit(): void;
}

/** Menu labels treat '&' as a mnemonic marker on Windows and Linux; a title's own '&' is doubled to show. */
function menuText(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = flat.length > MAX_TRAY_TITLE_CHARS ? `${flat.slice(0, MAX_TRAY_TITLE_CHARS - 1).trimEnd()}…` : flat;
  return (cut || UNTITLED_LABEL).replace(/&/g, '&&');
}

/**
 * The sessions list (GET /api/sessions, newest first) → the tray's recent conversations: archived ones left
 * out, at most MAX_TRAY_RECENT, anything without a proper id dropped.
 */
export function recentConversations(list: unknown): RecentConversation[] {
  const sessions = (list as { sessions?: unknown })?.sessions;
  if (!Array.isArray(sessions)) return [];
  const out: RecentConversation[] = [];
  for (const s of sessions) {
    if (out.length >= MAX_TRAY_RECENT) break;
    if (typeof s !== 'object' || s === null) continue;
    const { session_id, title, archived } = s as Record<string, unknown>;
    if (archived === true || typeof session_id !== 'string' || !SESSION_ID.test(session_id)) continue;
    out.push({ session_id, title: typeof title === 'string' ? title : '' });
  }
  return out;
}

export function trayMenuTemplate(state: TrayState, actions: TrayActions): MenuItemConstructorOptions[] {
  const items: MenuItemConstructorOptions[] = [
    { id: 'quick-capture', label: 'Quick capture', accelerator: state.quickCaptureAccelerator || undefined, click: () => actions.quickCapture() },
    { id: 'dictate', label: 'Dictate', accelerator: state.dictateAccelerator || undefined, click: () => actions.dictate() },
    { type: 'separator' },
  ];
  if (state.recent.length > 0) {
    items.push({ id: 'recent-header', label: 'Recent conversations', enabled: false });
    for (const r of state.recent.slice(0, MAX_TRAY_RECENT)) {
      items.push({ id: `recent:${r.session_id}`, label: menuText(r.title), click: () => actions.openConversation(r.session_id) });
    }
    items.push({ type: 'separator' });
  }
  items.push({ id: 'open', label: 'Open Satchel', click: () => actions.openWindow() }, { id: 'settings', label: 'Settings…', click: () => actions.openSettings() });
  if (state.watching === 'watching') items.push({ id: 'pause-watching', label: 'Pause watching', click: () => actions.pauseWatching() });
  if (state.watching === 'paused') items.push({ id: 'resume-watching', label: 'Resume watching', click: () => actions.resumeWatching() });
  items.push({ type: 'separator' }, { id: 'quit', label: 'Quit Satchel', click: () => actions.quit() });
  return items;
}

/**
 * "Closing the window keeps Satchel running in the tray": on by default where that is what people expect
 * (the macOS menu bar, the Windows notification area); off on Linux, where several desktops (GNOME without
 * an extension) show no tray at all, and a closed window with no icon would leave Satchel unreachable.
 */
export function defaultCloseToTray(platform: NodeJS.Platform): boolean {
  return platform === 'darwin' || platform === 'win32';
}

/** What the window's 'close' does: hide it (Satchel keeps running in the tray) or let it close. */
export function decideClose(input: { closeToTray: boolean; quitting: boolean; hasTray: boolean }): 'hide' | 'close' {
  // Quit (from the tray, the menu, Cmd+Q, a signal) always closes; hiding needs an icon to come back through.
  return input.closeToTray && !input.quitting && input.hasTray ? 'hide' : 'close';
}

/**
 * A reply finished: is a system notification raised? Only when the person is not looking at Satchel (its
 * window hidden, minimized or not focused), and only where the system shows notifications.
 */
export function shouldNotifyReply(input: { supported: boolean; windowVisible: boolean; windowFocused: boolean; windowMinimized: boolean }): boolean {
  if (!input.supported) return false;
  return !input.windowVisible || input.windowMinimized || !input.windowFocused;
}

/** The notification's text: the conversation's title; its body a fixed sentence (the reply's words stay in Satchel). */
export function replyNotification(title: string): { title: string; body: string } {
  return { title: menuText(title).replace(/&&/g, '&'), body: 'The reply is ready. Click to open the conversation.' };
}

/** The window's address for one conversation (renderer/src/app.ts reads #s=<id>); undefined for a bad id. */
/** The window's address that opens its Settings dialog (renderer/src/app.ts reads `#settings`, then puts the
 *  conversation's address back): a fragment change, so the page is not reloaded, and no IPC is needed. */
export function settingsUrl(appOrigin: string): string {
  return `${appOrigin}/#settings`;
}

export function conversationUrl(appOrigin: string, sessionId: string): string | undefined {
  return SESSION_ID.test(sessionId) ? `${appOrigin}/#s=${sessionId}` : undefined;
}

/** Where the tray icon is: beside app.asar when packaged (electron-builder.yml extraResources), else build/. */
export function trayIconPath(input: { isPackaged: boolean; resourcesPath: string; appPath: string }): string {
  return input.isPackaged ? path.join(input.resourcesPath, 'tray-icon.png') : path.join(input.appPath, 'build', 'icon.png');
}
