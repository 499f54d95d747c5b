// Quick capture's region step at the screen's real size: after a screen is taken (screen-capture.ts), the page
// asks main to make the capture window cover that screen's display exactly, always on top, so the shot it
// draws at 1 image pixel per device pixel lies where the screen was and the person drags over it as over the
// screen itself (macOS's Cmd+Shift+4). The page names only the source it took; main finds the display, so the
// page can never choose bounds. Main puts the window back (bounds, level, resizable, movable) when the page asks,
// and on its own when the window loses focus, hides, closes or navigates, or when covering fails.
import { isTrustedSender } from './pick-folder.js';
import { acceptableSourceId, sourceKind, type CaptureInvokeEvent, type CapturerSource, type GetSourcesOptions } from './screen-capture.js';
import { CAPTURE_PATH } from './window-options.js';

export const REGION_OVERLAY_CHANNEL = 'satchel:region-overlay';
/** Above the menu bar, the dock and other always-on-top windows (macOS; Windows and Linux have one top level). */
export const COVER_LEVEL = 'screen-saver';
/** The quick-capture window is created alwaysOnTop (window-options.ts), which Electron gives this level. */
export const CAPTURE_LEVEL = 'floating';
/** Bounds outside ±this (DIP) are not a display's, whatever the system reported; a window is never sent there. */
export const MAX_DISPLAY_COORD = 1_000_000;

export interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}
/** The parts of Electron's Display this module reads. */
export interface DisplayBounds {
  id: number;
  bounds: Bounds;
}

/** What covering changes, read from the window before it is changed. */
export interface WindowLook {
  bounds: Bounds;
  alwaysOnTop: boolean;
  resizable: boolean;
  movable: boolean;
}

const wholeCoord = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= MAX_DISPLAY_COORD;

/** A display's bounds if they are whole numbers of a plausible size, copied; else null. */
function plausible(b: Bounds | undefined): Bounds | null {
  if (!b || !wholeCoord(b.x) || !wholeCoord(b.y) || !wholeCoord(b.width) || !wholeCoord(b.height)) return null;
  if (b.width <= 0 || b.height <= 0) return null;
  return { x: b.x, y: b.y, width: b.width, height: b.height };
}

/**
 * The bounds the window takes to cover a screen source: those of the display its display_id names. A source
 * without a display id (Wayland's PipeWire sources have none) is the only display when there is one; otherwise
 * nothing is covered (null) and the page chooses the region inside its own window, as in a browser. A window
 * source is never covered (it is taken whole).
 */
export function coverBounds(sourceId: string, displayId: string, displays: readonly DisplayBounds[]): Bounds | null {
  if (!acceptableSourceId(sourceId) || sourceKind(sourceId) !== 'screen') return null;
  const named = displayId !== '' ? displays.find((d) => String(d.id) === displayId) : displays.length === 1 ? displays[0] : undefined;
  return plausible(named?.bounds);
}

/** The window's look to put back after covering. */
export type RestoreStep =
  | { op: 'setAlwaysOnTop'; flag: boolean; level?: string }
  | { op: 'setResizable'; value: boolean }
  | { op: 'setMovable'; value: boolean }
  | { op: 'setBounds'; bounds: Bounds }
  | { op: 'setContentBounds'; bounds: Bounds };

/** Covering, step by step: the level first, so the window never shows over the screen below other windows; the
 * bounds while it is still resizable (on Linux a non-resizable window's size is pinned by its size hints), then
 * resizing and moving off. The capture window has a frame: its content (the page) is what must lie on the
 * display, so the frame goes above it, off the display where the system allows. */
export function coverSteps(bounds: Bounds): RestoreStep[] {
  return [
    { op: 'setAlwaysOnTop', flag: true, level: COVER_LEVEL },
    { op: 'setContentBounds', bounds: { ...bounds } },
    { op: 'setResizable', value: false },
    { op: 'setMovable', value: false },
  ];
}

/** Putting the window back: resizable and movable as they were (so the bounds can change), the bounds (while it
 * is still on top, so it does not drop behind and jump), then its level as it was (the capture window's own, or
 * none). */
export function restoreSteps(saved: WindowLook): RestoreStep[] {
  return [
    { op: 'setResizable', value: saved.resizable },
    { op: 'setMovable', value: saved.movable },
    { op: 'setBounds', bounds: { ...saved.bounds } },
    saved.alwaysOnTop ? { op: 'setAlwaysOnTop', flag: true, level: CAPTURE_LEVEL } : { op: 'setAlwaysOnTop', flag: false },
  ];
}

/** What the page may ask: exactly `{on: true, sourceId}` with a screen id, or `{on: false}`; null otherwise. */
export function overlayRequest(args: readonly unknown[]): { on: true; sourceId: string } | { on: false } | null {
  if (args.length !== 1) return null;
  const arg = args[0];
  if (typeof arg !== 'object' || arg === null || Array.isArray(arg)) return null;
  const keys = Object.keys(arg);
  const { on, sourceId } = arg as Record<string, unknown>;
  if (on === false && keys.length === 1) return { on: false };
  if (on === true && keys.length === 2 && acceptableSourceId(sourceId) && sourceKind(sourceId) === 'screen') return { on: true, sourceId };
  return null;
}

/** The parts of Electron's BrowserWindow (and its webContents) covering uses. */
export interface CoverableWindow {
  getBounds(): Bounds;
  setBounds(bounds: Bounds): void;
  setContentBounds(bounds: Bounds): void;
  isAlwaysOnTop(): boolean;
  setAlwaysOnTop(flag: boolean, level?: string): void;
  isResizable(): boolean;
  setResizable(value: boolean): void;
  isMovable(): boolean;
  setMovable(value: boolean): void;
  isDestroyed(): boolean;
  on(event: string, listener: () => void): unknown;
  removeListener(event: string, listener: () => void): unknown;
  webContents: { on(event: string, listener: () => void): unknown; removeListener(event: string, listener: () => void): unknown };
}

/** Window events after which the window is put back whatever the page does: focus lost (the person went to
 * another application, so the screen is not frozen under them), hidden, or closing. */
export const RESTORE_ON_WINDOW = ['blur', 'hide', 'close'] as const;
/** Page events after which no page is left to ask: it navigated away (push-to-talk reloads the window) or died. */
export const RESTORE_ON_CONTENTS = ['did-navigate', 'render-process-gone'] as const;

export interface RegionOverlayDeps {
  appOrigin: string;
  /** desktopCapturer.getSources */
  getSources(options: GetSourcesOptions): Promise<CapturerSource[]>;
  /** screen.getAllDisplays() */
  displays(): DisplayBounds[];
  /** The asking page's window, or undefined when it has none (or it is gone). */
  windowOf(event: CaptureInvokeEvent): CoverableWindow | undefined;
  /** Covering or putting back failed (logged; the answer to the page is then false). */
  onError(err: unknown): void;
}

function apply(win: CoverableWindow, steps: readonly RestoreStep[]): void {
  for (const s of steps) {
    if (s.op === 'setBounds') win.setBounds(s.bounds);
    else if (s.op === 'setContentBounds') win.setContentBounds(s.bounds);
    else if (s.op === 'setResizable') win.setResizable(s.value);
    else if (s.op === 'setMovable') win.setMovable(s.value);
    else if (s.level === undefined) win.setAlwaysOnTop(s.flag);
    else win.setAlwaysOnTop(s.flag, s.level);
  }
}

/** Only the quick-capture page takes screenshots: the app's top-level document at CAPTURE_PATH. */
function isCapturePage(event: CaptureInvokeEvent, appOrigin: string): boolean {
  if (!isTrustedSender(event.senderFrame, appOrigin)) return false;
  try {
    return new URL(event.senderFrame!.url).pathname === CAPTURE_PATH;
  } catch {
    return false;
  }
}

/** ipcMain.handle for REGION_OVERLAY_CHANNEL. `{on: true, sourceId}`: true when the window now covers the
 * source's display (false: it could not, and the page chooses in its own window); `{on: false}`: the window is
 * put back (true; also when it was not covering). */
export function createRegionOverlayHandler(deps: RegionOverlayDeps): (event: CaptureInvokeEvent, ...args: unknown[]) => Promise<boolean> {
  const covered = new Map<CoverableWindow, () => void>();
  /** Counts requests: one that a later request overtook while the sources were listed does not cover. */
  let asked = 0;

  /** Put `win` back if it covers; idempotent. */
  const uncover = (win: CoverableWindow) => covered.get(win)?.();

  const cover = (win: CoverableWindow, bounds: Bounds): boolean => {
    const saved: WindowLook = { bounds: win.getBounds(), alwaysOnTop: win.isAlwaysOnTop(), resizable: win.isResizable(), movable: win.isMovable() };
    const restore = () => {
      covered.delete(win);
      for (const e of RESTORE_ON_WINDOW) win.removeListener(e, restore);
      for (const e of RESTORE_ON_CONTENTS) win.webContents.removeListener(e, restore);
      if (win.isDestroyed()) return;
      // Step by step: a step that fails (the bounds, say) does not keep the level or the rest from being put back.
      for (const step of restoreSteps(saved)) {
        try {
          apply(win, [step]);
        } catch (err) {
          deps.onError(err);
        }
      }
    };
    covered.set(win, restore);
    for (const e of RESTORE_ON_WINDOW) win.on(e, restore);
    for (const e of RESTORE_ON_CONTENTS) win.webContents.on(e, restore);
    try {
      apply(win, coverSteps(bounds));
      return true;
    } catch (err) {
      deps.onError(err);
      restore();
      return false;
    }
  };

  return async (event, ...args) => {
    if (!isCapturePage(event, deps.appOrigin)) throw new Error('regionOverlay: untrusted sender');
    const request = overlayRequest(args);
    if (!request) return false;
    const win = deps.windowOf(event);
    if (!win || win.isDestroyed()) return false;
    // Whatever is asked, a window covering for an earlier shot is put back first: one look is saved at a time.
    uncover(win);
    const ticket = ++asked;
    if (!request.on) return true;
    try {
      const listed = (await deps.getSources({ types: ['screen'], thumbnailSize: { width: 1, height: 1 }, fetchWindowIcons: false })).find(
        (s) => s.id === request.sourceId,
      );
      const bounds = listed ? coverBounds(listed.id, listed.display_id, deps.displays()) : null;
      // The window may have closed, or the page asked again, while the sources were listed.
      if (!bounds || win.isDestroyed() || ticket !== asked) return false;
      return cover(win, bounds);
    } catch (err) {
      deps.onError(err);
      return false;
    }
  };
}
