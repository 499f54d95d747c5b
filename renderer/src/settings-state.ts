// What the Settings dialog shows, as pure functions of what the server (GET /api/inbox/folders) and the desktop
// app (window.satchel.desktopSettings) answered: no DOM, tested in node (settings-state.test.ts). The views
// (settings-inbox.ts, settings-desktop.ts) only put these words and flags on the page.
import type { InboxCounts, InboxFolder, InboxFolderStatus } from './api.js';

/** The environment variable whose folders every profile sees and the page cannot remove (README). */
export const INBOX_ENV = 'SATCHEL_INBOX_FOLDERS';

export interface FolderRow {
  path: string;
  status: InboxFolderStatus;
  statusText: string;
  /** Where the folder comes from, said so that an environment one is plainly not removable here. */
  sourceText: string;
  removable: boolean;
  /** The rule's own words when the folder is refused (or why it cannot be watched). */
  error: string;
  /** A line per file the watcher did not take: its name and why (unreadable, a name not UTF-8, a hard link). */
  skipped: string[];
}

const STATUS_TEXT: Record<InboxFolderStatus, string> = {
  watching: 'Watching',
  missing: 'Missing: watched again when the folder is back',
  refused: 'Refused',
  paused: 'Paused',
};

export function folderRow(folder: InboxFolder): FolderRow {
  const fromEnv = folder.source === 'env';
  return {
    path: folder.path,
    status: folder.status,
    statusText: STATUS_TEXT[folder.status] ?? folder.status,
    sourceText: fromEnv ? `Set by ${INBOX_ENV}: change it there, it cannot be removed here` : 'Added in Settings',
    removable: !fromEnv,
    error: folder.error ?? '',
    skipped: (folder.skipped ?? []).map((x) => `Not taken: “${x.name}”: ${x.reason}.`),
  };
}

/** The counts' words, in the order a person reads them; a zero count is left out. */
const COUNT_WORDS: ReadonlyArray<[keyof InboxCounts, string]> = [
  ['arrived', 'arrived'],
  ['duplicate', 'already there (same bytes)'],
  ['ignored', 'ignored (hidden or temporary)'],
  ['empty', 'empty'],
  ['symlink', 'symlinks skipped'],
  ['too_large', 'too large'],
  ['refused', 'refused'],
  ['failed', 'failed'],
  ['over_scan_limit', 'over the per-scan limit'],
  ['unreadable', 'not readable (permissions)'],
  ['bad_name', 'with a name that is not UTF-8'],
  ['hard_link', 'refused as hard links'],
];

/** "Since Satchel started: 3 arrived, 1 already there (same bytes)." */
export function countsText(counts: Partial<InboxCounts>): string {
  const parts = COUNT_WORDS.flatMap(([key, words]) => {
    const n = counts[key];
    return typeof n === 'number' && n > 0 ? [`${n.toLocaleString('en-US')} ${words}`] : [];
  });
  return parts.length ? `Since Satchel started: ${parts.join(', ')}.` : 'No file has arrived since Satchel started.';
}

export function pauseButtonText(paused: boolean): string {
  return paused ? 'Resume watching' : 'Pause watching';
}

export function pausedLine(paused: boolean): string {
  return paused ? 'Paused: nothing is read; what appears meanwhile arrives on resume.' : '';
}

// --- Desktop (the Electron window's preload; preload/index.cts declares the same shapes) ---

export type DesktopShortcutAction = 'quickCapture' | 'pushToTalk';
/** Main refuses a longer accelerator (main/shortcuts.ts MAX_ACCELERATOR_CHARS); the field stops there too. */
export const MAX_ACCELERATOR_CHARS = 100;
/** In the order the dialog lists them; their labels are the ones main's problem sentences start with. */
export const DESKTOP_SHORTCUTS: ReadonlyArray<{ action: DesktopShortcutAction; label: string }> = [
  { action: 'quickCapture', label: 'Quick capture' },
  { action: 'pushToTalk', label: 'Push-to-talk' },
];

export interface DesktopSettingsValues {
  closeToTray: boolean;
  openAtLogin: boolean;
  shortcuts: Record<DesktopShortcutAction, string>;
  pushToTalkTo: string;
  openWithTo: string;
}
export type DesktopSettingsChange = Partial<Omit<DesktopSettingsValues, 'shortcuts'> & { shortcuts: Partial<Record<DesktopShortcutAction, string>> }>;
export interface DesktopSettingsView {
  settings: DesktopSettingsValues;
  defaults: Record<DesktopShortcutAction, string>;
  problems: string[];
  openAtLoginSupported: boolean;
}
export type DesktopSettingsAnswer = DesktopSettingsView | { error: string };
export type DesktopSettingsBridge = (change?: DesktopSettingsChange) => Promise<DesktopSettingsAnswer>;

/** The bridge when the page runs in Satchel's desktop window, else undefined (a browser: no Desktop section). */
export function desktopBridge(win: unknown): DesktopSettingsBridge | undefined {
  const satchel = (win as { satchel?: { desktopSettings?: unknown } } | undefined)?.satchel;
  const fn = satchel?.desktopSettings;
  return typeof fn === 'function' ? (change) => (change === undefined ? fn.call(satchel) : fn.call(satchel, change)) : undefined;
}

/**
 * Main's problem sentences, each beside the field it concerns: a sentence starting with a shortcut's label goes
 * to that shortcut; any other (none today) is shown under the section, so no sentence is ever dropped.
 */
export function problemsByField(problems: readonly string[]): { shortcuts: Record<DesktopShortcutAction, string[]>; other: string[] } {
  const shortcuts: Record<DesktopShortcutAction, string[]> = { quickCapture: [], pushToTalk: [] };
  const other: string[] = [];
  for (const sentence of problems) {
    const owner = DESKTOP_SHORTCUTS.find((s) => sentence.startsWith(`${s.label}: `));
    if (owner) shortcuts[owner.action].push(sentence);
    else other.push(sentence);
  }
  return { shortcuts, other };
}

export function defaultText(accelerator: string): string {
  return accelerator ? `Default: ${accelerator}` : 'Default: off';
}

/** Why Open at login is greyed out; '' where the system supports it. */
export function openAtLoginReason(supported: boolean): string {
  return supported ? '' : 'Not available on this system: Satchel can set it on macOS and Windows only. On Linux, add Satchel to your desktop’s startup applications.';
}

/** The change a shortcut field asks for: only when its text differs from what is saved. */
export function shortcutChange(view: DesktopSettingsView, action: DesktopShortcutAction, typed: string): DesktopSettingsChange | null {
  const accelerator = typed.trim();
  return accelerator === view.settings.shortcuts[action] ? null : { shortcuts: { [action]: accelerator } };
}
