// The window's construction options, chosen in one place so every hardening switch is visible and tested.
import type { BrowserWindowConstructorOptions } from 'electron';
import type { PushToTalkDestination } from './gui-config.js';

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

/** The quick-capture page (served by the server, like every other page of the UI). */
export const CAPTURE_PATH = '/capture';
/** Push-to-talk opens the same page recording at once. */
export const DICTATE_QUERY = '?dictate=1';

/**
 * The capture page's address. Push-to-talk pressed while the page is already open for dictation changes only
 * the fragment (`#ptt=<n>`): a same-document navigation, so the page is not reloaded and gets a `hashchange`
 * to toggle its recording (globalShortcut reports presses, never releases, so "press to toggle" is the mode).
 * `then` (the setting pushToTalkTo) says where dictation's text goes: into the page's field (`capture`, the
 * default, no parameter), or `&then=clipboard` / `&then=message`, after which the page closes itself. Only
 * dictation carries it: quick capture opened by its own shortcut is always the page to type in.
 */
export function captureUrl(appOrigin: string, dictate: boolean, press = 0, then: PushToTalkDestination = 'capture'): string {
  if (!dictate) return `${appOrigin}${CAPTURE_PATH}`;
  const destination = then === 'capture' ? '' : `&then=${then}`;
  return `${appOrigin}${CAPTURE_PATH}${DICTATE_QUERY}${destination}${press > 0 ? `#ptt=${press}` : ''}`;
}
/** Small enough to sit over any window, large enough for a paragraph, a thumbnail row and the send buttons. */
export const CAPTURE_WIDTH = 560;
export const CAPTURE_HEIGHT = 420;
export const CAPTURE_MIN_WIDTH = 400;
export const CAPTURE_MIN_HEIGHT = 280;

/**
 * The quick-capture window: small, always on top, out of the taskbar, with a frame (a frameless window would
 * need a drag region the page would have to draw). Its web preferences are the main window's, whole: the same
 * sandbox, isolation and preload, and the session's permission handlers and the navigation guards of every
 * web contents apply to it as they do to the main window.
 */
export function captureWindowOptions(input: WindowOptionsInput): BrowserWindowConstructorOptions {
  const main = windowOptions({ ...input, title: input.title ?? 'Quick capture' });
  return {
    ...main,
    width: CAPTURE_WIDTH,
    height: CAPTURE_HEIGHT,
    minWidth: CAPTURE_MIN_WIDTH,
    minHeight: CAPTURE_MIN_HEIGHT,
    alwaysOnTop: true,
    skipTaskbar: true,
    minimizable: false,
    maximizable: false,
    fullscreenable: false,
    center: true,
  };
}
