// The window's server settings. The desktop window always talks to 127.0.0.1; its state lives in Electron's
// user-data folder unless the user chose another; and its port is remembered unless the user fixed one.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { CliFlags, ServerConfig } from '../server/core/config.js';
import { writeFileAtomic } from '../server/store/atomic.js';
import { isSettingSet } from '../server/settings/table.js';
import { LOOPBACK_HOST } from './access-cookie.js';
import { DEFAULT_SHORTCUTS, MAX_ACCELERATOR_CHARS, SHORTCUT_ACTIONS, type ShortcutSettings } from './shortcuts.js';
import { defaultCloseToTray } from './tray-menu.js';

export interface GuiServerPlan {
  config: ServerConfig;
  /** True: try the remembered port, fall back to any free one, remember the result. */
  rememberPort: boolean;
}

export function guiServerPlan(
  loaded: ServerConfig,
  flags: CliFlags,
  env: NodeJS.ProcessEnv,
  userDataDir: string,
): GuiServerPlan {
  const stateChosen = flags.stateDir !== undefined || isSettingSet('stateDir', env);
  const portChosen = flags.port !== undefined || isSettingSet('port', env);
  return {
    config: {
      ...loaded,
      // The page is loaded from http://127.0.0.1:PORT and the access cookie is set for that host only.
      host: LOOPBACK_HOST,
      stateDir: stateChosen ? loaded.stateDir : userDataDir,
    },
    rememberPort: !portChosen || loaded.port === 0,
  };
}

// The desktop shell's own settings (the tray, global shortcuts, open at login), beside the server's: kept in
// desktop-settings.json in the user-data folder, read at start and written when the person changes one.
export const DESKTOP_SETTINGS_FILE = 'desktop-settings.json';
/** Ours is a few hundred bytes; anything larger is not ours, and is ignored. */
export const MAX_DESKTOP_SETTINGS_BYTES = 64 * 1024;

/** Where push-to-talk's text goes: into quick capture, onto the clipboard, or sent as a message (the three). */
export const PUSH_TO_TALK_DESTINATIONS = ['capture', 'clipboard', 'message'] as const;
export type PushToTalkDestination = (typeof PUSH_TO_TALK_DESTINATIONS)[number];
/** Where files opened with Satchel arrive: the Inbox conversation, or the conversation in use. */
export const OPEN_WITH_DESTINATIONS = ['inbox', 'current'] as const;
export type OpenWithDestination = (typeof OPEN_WITH_DESTINATIONS)[number];

export interface DesktopSettings {
  closeToTray: boolean;
  openAtLogin: boolean;
  shortcuts: ShortcutSettings;
  pushToTalkTo: PushToTalkDestination;
  openWithTo: OpenWithDestination;
}

export function defaultDesktopSettings(platform: NodeJS.Platform): DesktopSettings {
  return {
    closeToTray: defaultCloseToTray(platform),
    openAtLogin: false,
    shortcuts: { ...DEFAULT_SHORTCUTS },
    pushToTalkTo: 'capture',
    openWithTo: 'inbox',
  };
}

export function isPushToTalkDestination(value: unknown): value is PushToTalkDestination {
  return (PUSH_TO_TALK_DESTINATIONS as readonly unknown[]).includes(value);
}

export function isOpenWithDestination(value: unknown): value is OpenWithDestination {
  return (OPEN_WITH_DESTINATIONS as readonly unknown[]).includes(value);
}

/**
 * The file's content over the defaults, field by field: a wrong type falls back to the default for that
 * field alone. An accelerator is kept as written (registration reports a bad one, so the person sees why).
 */
export function parseDesktopSettings(value: unknown, platform: NodeJS.Platform): DesktopSettings {
  const settings = defaultDesktopSettings(platform);
  if (typeof value !== 'object' || value === null) return settings;
  const raw = value as Record<string, unknown>;
  if (typeof raw.closeToTray === 'boolean') settings.closeToTray = raw.closeToTray;
  if (typeof raw.openAtLogin === 'boolean') settings.openAtLogin = raw.openAtLogin;
  if (isPushToTalkDestination(raw.pushToTalkTo)) settings.pushToTalkTo = raw.pushToTalkTo;
  if (isOpenWithDestination(raw.openWithTo)) settings.openWithTo = raw.openWithTo;
  const shortcuts = raw.shortcuts as Record<string, unknown> | undefined;
  if (typeof shortcuts === 'object' && shortcuts !== null) {
    for (const action of SHORTCUT_ACTIONS) {
      const accelerator = shortcuts[action];
      if (typeof accelerator === 'string' && accelerator.length <= MAX_ACCELERATOR_CHARS) settings.shortcuts[action] = accelerator;
    }
  }
  return settings;
}

export async function loadDesktopSettings(userData: string, platform: NodeJS.Platform): Promise<DesktopSettings> {
  const file = path.join(userData, DESKTOP_SETTINGS_FILE);
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile() || stat.size > MAX_DESKTOP_SETTINGS_BYTES) return defaultDesktopSettings(platform);
    return parseDesktopSettings(JSON.parse(await fs.readFile(file, 'utf8')), platform);
  } catch {
    return defaultDesktopSettings(platform);
  }
}

export function saveDesktopSettings(userData: string, settings: DesktopSettings): Promise<void> {
  return writeFileAtomic(path.join(userData, DESKTOP_SETTINGS_FILE), JSON.stringify(settings, null, 2) + '\n');
}
