// Preload for the sandboxed window. A sandboxed preload is CommonJS and can require only 'electron' (no local
// files), so everything it needs is in this one file. It exposes only what the page cannot do over HTTP:
// window.satchel = { version, pickFolder(), showInFolder(path) }.
import { contextBridge, ipcRenderer } from 'electron';

// Must match main/pick-folder.ts and main/window-options.ts (this file cannot import them when sandboxed).
export const PICK_FOLDER_CHANNEL = 'satchel:pick-folder';
// Must match main/show-in-folder.ts.
export const SHOW_IN_FOLDER_CHANNEL = 'satchel:show-in-folder';
export const VERSION_ARG_PREFIX = '--satchel-version=';
const VERSION_PATTERN = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;

export interface SatchelApi {
  readonly version: string;
  pickFolder(): Promise<string | null>;
  /** Reveal a previewed file in the system's file manager; true when it was shown. */
  showInFolder(path: string): Promise<boolean>;
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
  });
}

contextBridge.exposeInMainWorld(
  'satchel',
  createApi((channel, ...args) => ipcRenderer.invoke(channel, ...args), process.argv),
);
