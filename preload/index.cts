// Preload for the sandboxed window. A sandboxed preload is CommonJS and can require only 'electron' (no local
// files), so everything it needs is in this one file. It exposes only what the page cannot do over HTTP:
// window.satchel = { version, pickFolder(), showInFolder(path), desktopSettings(change?), screenSources(),
// captureScreen(id), regionOverlay(request) }.
import { contextBridge, ipcRenderer } from 'electron';

// Must match main/pick-folder.ts and main/window-options.ts (this file cannot import them when sandboxed).
export const PICK_FOLDER_CHANNEL = 'satchel:pick-folder';
// Must match main/show-in-folder.ts.
export const SHOW_IN_FOLDER_CHANNEL = 'satchel:show-in-folder';
// Must match main/desktop-settings-ipc.ts, main/shortcuts.ts (SHORTCUT_ACTIONS) and main/gui-config.ts.
export const DESKTOP_SETTINGS_CHANNEL = 'satchel:desktop-settings';
const SHORTCUT_ACTIONS = ['quickCapture', 'pushToTalk'] as const;
const BOOLEAN_SETTINGS = ['closeToTray', 'openAtLogin'] as const;
const CHOICE_SETTINGS = ['pushToTalkTo', 'openWithTo'] as const;
/** What the page is told when main's answer is not a settings view or an error (it never should be). */
export const UNREADABLE_SETTINGS = 'Satchel could not read the desktop settings';
// Must match main/screen-capture.ts.
export const SCREEN_SOURCES_CHANNEL = 'satchel:screen-sources';
export const CAPTURE_SCREEN_CHANNEL = 'satchel:capture-screen';
// Must match main/region-overlay.ts.
export const REGION_OVERLAY_CHANNEL = 'satchel:region-overlay';
const SOURCE_ID_PATTERN = /^(screen|window):\d{1,20}:\d{1,20}$/;
/** Only a screen is covered (a window is taken whole). */
const SCREEN_ID_PATTERN = /^screen:\d{1,20}:\d{1,20}$/;
export const VERSION_ARG_PREFIX = '--satchel-version=';
const VERSION_PATTERN = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;

export interface SatchelApi {
  readonly version: string;
  pickFolder(): Promise<string | null>;
  /** Reveal a previewed file in the system's file manager; true when it was shown. */
  showInFolder(path: string): Promise<boolean>;
  /** Read the desktop settings (no argument) or change some (one object); the view again, or what is wrong. */
  desktopSettings(change?: DesktopSettingsChange): Promise<DesktopSettingsView | { error: string }>;
  /** The screens and windows quick capture may take, with small PNG thumbnails (data: URLs) for a picker. */
  screenSources(): Promise<ScreenSource[]>;
  /** One of them at full resolution, as PNG bytes; null when it could not be taken. */
  captureScreen(id: string): Promise<Uint8Array | null>;
  /** `{on: true, sourceId}`: cover the taken screen's display with the capture window (true when it does);
   * `{on: false}`: put the window back. */
  regionOverlay(request: { on: true; sourceId: string } | { on: false }): Promise<boolean>;
}

type ShortcutAction = (typeof SHORTCUT_ACTIONS)[number];
export interface DesktopSettingsValues {
  closeToTray: boolean;
  openAtLogin: boolean;
  shortcuts: Record<ShortcutAction, string>;
  pushToTalkTo: string;
  openWithTo: string;
}
export type DesktopSettingsChange = Partial<Omit<DesktopSettingsValues, 'shortcuts'> & { shortcuts: Partial<Record<ShortcutAction, string>> }>;
export interface DesktopSettingsView {
  settings: DesktopSettingsValues;
  defaults: Record<ShortcutAction, string>;
  problems: string[];
  openAtLoginSupported: boolean;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The shortcut fields of `value` that are strings, copied; undefined when `value` is not an object. */
function copyShortcuts(value: unknown): Partial<Record<ShortcutAction, string>> | undefined {
  if (!isRecord(value)) return undefined;
  const out: Partial<Record<ShortcutAction, string>> = {};
  for (const action of SHORTCUT_ACTIONS) {
    const accelerator = value[action];
    if (typeof accelerator === 'string') out[action] = accelerator;
  }
  return out;
}

/** A change as the page passed it → a fresh plain object of the known fields of the right type (main checks
 * the values again); null when it is not an object at all. Getters, prototypes and extra keys stay behind. */
export function cloneSettingsChange(value: unknown): DesktopSettingsChange | null {
  if (!isRecord(value)) return null;
  const change: DesktopSettingsChange = {};
  // Each field is read once: a getter cannot answer the check with one value and the copy with another.
  for (const key of BOOLEAN_SETTINGS) {
    const field = value[key];
    if (typeof field === 'boolean') change[key] = field;
  }
  for (const key of CHOICE_SETTINGS) {
    const field = value[key];
    if (typeof field === 'string') change[key] = field;
  }
  const shortcuts = copyShortcuts(value.shortcuts);
  if (shortcuts) change.shortcuts = shortcuts;
  return change;
}

/** Main's answer → a well-formed view (rebuilt field by field) or `{error}`; anything else is an error. */
export function readSettingsAnswer(value: unknown): DesktopSettingsView | { error: string } {
  if (isRecord(value) && typeof value.error === 'string') return { error: value.error };
  if (!isRecord(value) || !isRecord(value.settings) || !Array.isArray(value.problems) || typeof value.openAtLoginSupported !== 'boolean') {
    return { error: UNREADABLE_SETTINGS };
  }
  const s = value.settings;
  const shortcuts = copyShortcuts(s.shortcuts);
  const defaults = copyShortcuts(value.defaults);
  const complete = (v: Partial<Record<ShortcutAction, string>> | undefined): v is Record<ShortcutAction, string> =>
    v !== undefined && SHORTCUT_ACTIONS.every((a) => typeof v[a] === 'string');
  if (
    typeof s.closeToTray !== 'boolean' || typeof s.openAtLogin !== 'boolean' || typeof s.pushToTalkTo !== 'string' ||
    typeof s.openWithTo !== 'string' || !complete(shortcuts) || !complete(defaults) || !value.problems.every((p) => typeof p === 'string')
  ) {
    return { error: UNREADABLE_SETTINGS };
  }
  return {
    settings: { closeToTray: s.closeToTray, openAtLogin: s.openAtLogin, shortcuts, pushToTalkTo: s.pushToTalkTo, openWithTo: s.openWithTo },
    defaults,
    problems: [...(value.problems as string[])],
    openAtLoginSupported: value.openAtLoginSupported,
  };
}

export interface ScreenSource {
  id: string;
  name: string;
  kind: 'screen' | 'window';
  thumbnail: string;
}

/** Only plain strings of the expected fields reach the page, whatever main sent back. */
function screenSource(value: unknown): ScreenSource[] {
  if (!value || typeof value !== 'object') return [];
  const { id, name, kind, thumbnail } = value as Record<string, unknown>;
  if (typeof id !== 'string' || typeof name !== 'string' || (kind !== 'screen' && kind !== 'window') || typeof thumbnail !== 'string') return [];
  return [{ id, name, kind, thumbnail }];
}

/** The version main passed through webPreferences.additionalArguments, or '' when absent or malformed. */
export function versionFromArgv(argv: readonly string[]): string {
  const arg = argv.find((a) => a.startsWith(VERSION_ARG_PREFIX));
  const version = arg?.slice(VERSION_ARG_PREFIX.length) ?? '';
  return VERSION_PATTERN.test(version) ? version : '';
}

type Invoke = (channel: string, ...args: unknown[]) => Promise<unknown>;

/** The object handed to the page. pickFolder takes no arguments (extra ones from the page are dropped) and
 * returns only an absolute path string or null, whatever main sent back. */
export function createApi(invoke: Invoke, argv: readonly string[]): SatchelApi {
  return Object.freeze({
    version: versionFromArgv(argv),
    pickFolder: async (): Promise<string | null> => {
      const result = await invoke(PICK_FOLDER_CHANNEL);
      return typeof result === 'string' && result !== '' ? result : null;
    },
    // Exactly one string goes to main, whatever the page passed; main checks it again.
    showInFolder: async (path: unknown): Promise<boolean> => {
      if (typeof path !== 'string') return false;
      return (await invoke(SHOW_IN_FOLDER_CHANNEL, path)) === true;
    },
    // No argument reads; otherwise exactly one cloned object goes to main, which checks every field again.
    desktopSettings: async (...args: unknown[]): Promise<DesktopSettingsView | { error: string }> => {
      let answer: unknown;
      if (args.length === 0 || args[0] === undefined) {
        answer = await invoke(DESKTOP_SETTINGS_CHANNEL);
      } else {
        const change = cloneSettingsChange(args[0]);
        if (!change) return { error: 'Settings must be an object' };
        answer = await invoke(DESKTOP_SETTINGS_CHANNEL, change);
      }
      return readSettingsAnswer(answer);
    },
    screenSources: async (): Promise<ScreenSource[]> => {
      const result = await invoke(SCREEN_SOURCES_CHANNEL);
      return Array.isArray(result) ? result.flatMap(screenSource) : [];
    },
    // Only an id string goes to main (main checks it again); only bytes or null come back.
    captureScreen: async (id: unknown): Promise<Uint8Array | null> => {
      if (typeof id !== 'string' || !SOURCE_ID_PATTERN.test(id)) return null;
      const result = await invoke(CAPTURE_SCREEN_CHANNEL, id);
      return result instanceof Uint8Array && result.byteLength > 0 ? result : null;
    },
    // A fresh object of exactly the known shape goes to main (each field read once); only true comes back true.
    regionOverlay: async (request: unknown): Promise<boolean> => {
      if (!isRecord(request)) return false;
      const on = request.on;
      let message: { on: true; sourceId: string } | { on: false };
      if (on === false) message = { on: false };
      else {
        const sourceId = request.sourceId;
        if (on !== true || typeof sourceId !== 'string' || !SCREEN_ID_PATTERN.test(sourceId)) return false;
        message = { on: true, sourceId };
      }
      return (await invoke(REGION_OVERLAY_CHANNEL, message)) === true;
    },
  });
}

contextBridge.exposeInMainWorld(
  'satchel',
  createApi((channel, ...args) => ipcRenderer.invoke(channel, ...args), process.argv),
);
