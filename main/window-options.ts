// The window's construction options, chosen in one place so every hardening switch is visible and tested.
import type { BrowserWindowConstructorOptions } from 'electron';

export const WINDOW_WIDTH = 1200;
export const WINDOW_HEIGHT = 820;
export const WINDOW_MIN_WIDTH = 640;
export const WINDOW_MIN_HEIGHT = 480;
export const WINDOW_BACKGROUND = '#1e1f22';
/** Prefix of the argument that carries the app version into the sandboxed preload (it cannot read files). */
export const VERSION_ARG_PREFIX = '--satchel-version=';
/** What a version may look like (semver with pre-release/build parts); anything else is not passed on. */
export const VERSION_PATTERN = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;

export interface WindowOptionsInput {
  /** Absolute path of the compiled preload (dist/preload/index.cjs). */
  preloadPath: string;
  version: string;
  title?: string;
}

export function windowOptions(input: WindowOptionsInput): BrowserWindowConstructorOptions {
  const additionalArguments = VERSION_PATTERN.test(input.version) ? [VERSION_ARG_PREFIX + input.version] : [];
  return {
    title: input.title ?? 'Satchel',
    width: WINDOW_WIDTH,
    height: WINDOW_HEIGHT,
    minWidth: WINDOW_MIN_WIDTH,
    minHeight: WINDOW_MIN_HEIGHT,
    backgroundColor: WINDOW_BACKGROUND,
    // Shown on ready-to-show, so the user never sees an empty white frame.
    show: false,
    webPreferences: {
      preload: input.preloadPath,
      additionalArguments,
      // The page is web content served over HTTP: it gets no Node, and its world is separate from the preload's.
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      // Files dropped on the window are uploads; without this a missed drop would navigate to file://.
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: true,
    },
  };
}
