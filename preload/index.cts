// Preload for the sandboxed window. A sandboxed preload is CommonJS and can require only 'electron' (no local
// files), so everything it needs is in this one file. It exposes only what the page cannot do over HTTP:
// window.satchel = { version, pickFolder(), showInFolder(path), screenSources(), captureScreen(id) }.
import { contextBridge, ipcRenderer } from 'electron';

// Must match main/pick-folder.ts and main/window-options.ts (this file cannot import them when sandboxed).
export const PICK_FOLDER_CHANNEL = 'satchel:pick-folder';
// Must match main/show-in-folder.ts.
export const SHOW_IN_FOLDER_CHANNEL = 'satchel:show-in-folder';
// Must match main/screen-capture.ts.
export const SCREEN_SOURCES_CHANNEL = 'satchel:screen-sources';
export const CAPTURE_SCREEN_CHANNEL = 'satchel:capture-screen';
const SOURCE_ID_PATTERN = /^(screen|window):\d{1,20}:\d{1,20}$/;
export const VERSION_ARG_PREFIX = '--satchel-version=';
const VERSION_PATTERN = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;

export interface SatchelApi {
  readonly version: string;
  pickFolder(): Promise<string | null>;
  /** Reveal a previewed file in the system's file manager; true when it was shown. */
  showInFolder(path: string): Promise<boolean>;
  /** The screens and windows quick capture may take, with small PNG thumbnails (data: URLs) for a picker. */
  screenSources(): Promise<ScreenSource[]>;
  /** One of them at full resolution, as PNG bytes; null when it could not be taken. */
  captureScreen(id: string): Promise<Uint8Array | null>;
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
  });
}

contextBridge.exposeInMainWorld(
  'satchel',
  createApi((channel, ...args) => ipcRenderer.invoke(channel, ...args), process.argv),
);
