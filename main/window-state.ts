// The window's size, position and maximized state, remembered per display and restored inside what the
// displays show now: a window is never restored off-screen (a display unplugged, a resolution lowered).
// Kept in window-state.json in the user-data folder, written at most once per SAVE_DEBOUNCE_MS.
import path from 'node:path';
import fs from 'node:fs/promises';
import { writeFileAtomic } from '../server/store/atomic.js';
import { WINDOW_HEIGHT, WINDOW_MIN_HEIGHT, WINDOW_MIN_WIDTH, WINDOW_WIDTH } from './window-options.js';

export const WINDOW_STATE_FILE = 'window-state.json';
/** Moving or resizing fires dozens of events a second; the file is written once the window rests this long. */
export const SAVE_DEBOUNCE_MS = 500;
/** Displays remembered (a laptop, home and office screens, a projector…); the least recently used goes first. */
export const MAX_REMEMBERED_DISPLAYS = 8;
/** A state file larger than this is not ours (ours is a few hundred bytes): ignored, defaults used. */
export const MAX_STATE_FILE_BYTES = 64 * 1024;

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}
/** What the glue reads from Electron's screen.getAllDisplays(). */
export interface DisplayInfo {
  id: number;
  bounds: Rect;
  workArea: Rect;
}
export interface RememberedWindow {
  bounds: Rect;
  maximized: boolean;
}
export interface WindowState {
  /** Display key → where the window was on it; insertion order is least to most recently used. */
  displays: Record<string, RememberedWindow>;
  /** The display the window was last on. */
  last?: string;
}

export const EMPTY_WINDOW_STATE: WindowState = { displays: {} };

/** A display is known by where it sits and its size: ids are not stable across restarts on every OS. */
export function displayKey(display: DisplayInfo): string {
  const b = display.bounds;
  return `${b.x},${b.y},${b.width}x${b.height}`;
}

function isRect(value: unknown): value is Rect {
  const r = value as Rect;
  return (
    typeof r === 'object' && r !== null &&
    [r.x, r.y, r.width, r.height].every((n) => Number.isFinite(n) && Math.abs(n) < 1e6) &&
    r.width > 0 && r.height > 0
  );
}

/** A parsed file, kept only where it has the right shape: a hand-edited or damaged file gives defaults. */
export function parseWindowState(value: unknown): WindowState {
  if (typeof value !== 'object' || value === null) return { displays: {} };
  const raw = value as { displays?: unknown; last?: unknown };
  const displays: Record<string, RememberedWindow> = {};
  if (typeof raw.displays === 'object' && raw.displays !== null) {
    for (const [key, entry] of Object.entries(raw.displays).slice(-MAX_REMEMBERED_DISPLAYS)) {
      const e = entry as RememberedWindow;
      if (isRect(e?.bounds)) displays[key] = { bounds: roundRect(e.bounds), maximized: e.maximized === true };
    }
  }
  const last = typeof raw.last === 'string' && raw.last in displays ? raw.last : undefined;
  return last ? { displays, last } : { displays };
}

function roundRect(r: Rect): Rect {
  return { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
}

/** The display whose work area overlaps the rectangle most (Electron's screen.getDisplayMatching, pure). */
export function displayMatching(rect: Rect, displays: readonly DisplayInfo[]): DisplayInfo | undefined {
  let best: DisplayInfo | undefined;
  let bestArea = 0;
  for (const d of displays) {
    const w = Math.min(rect.x + rect.width, d.workArea.x + d.workArea.width) - Math.max(rect.x, d.workArea.x);
    const h = Math.min(rect.y + rect.height, d.workArea.y + d.workArea.height) - Math.max(rect.y, d.workArea.y);
    const area = w > 0 && h > 0 ? w * h : 0;
    if (area > bestArea) [best, bestArea] = [d, area];
  }
  return best;
}

/** The rectangle moved and shrunk as little as needed to lie wholly inside the work area. */
export function clampToWorkArea(rect: Rect, area: Rect): Rect {
  const width = Math.min(Math.max(rect.width, Math.min(WINDOW_MIN_WIDTH, area.width)), area.width);
  const height = Math.min(Math.max(rect.height, Math.min(WINDOW_MIN_HEIGHT, area.height)), area.height);
  const x = Math.min(Math.max(rect.x, area.x), area.x + area.width - width);
  const y = Math.min(Math.max(rect.y, area.y), area.y + area.height - height);
  return { x, y, width, height };
}

/** A rectangle of this size centered on the work area (clamped first, so it fits). */
export function centerOn(size: { width: number; height: number }, area: Rect): Rect {
  const width = Math.min(size.width, area.width);
  const height = Math.min(size.height, area.height);
  return {
    x: area.x + Math.round((area.width - width) / 2),
    y: area.y + Math.round((area.height - height) / 2),
    width,
    height,
  };
}

/**
 * Where the window opens: on the display it was last on, if that display is still there, at its remembered
 * place clamped into the display's work area; with that display gone, on another display it was remembered on;
 * else centered on the primary display at its remembered (or the default) size.
 */
export function restoreWindow(state: WindowState, displays: readonly DisplayInfo[], primary: DisplayInfo): RememberedWindow {
  const present = new Map(displays.map((d) => [displayKey(d), d]));
  const keys = [...(state.last ? [state.last] : []), ...Object.keys(state.displays).reverse()];
  for (const key of keys) {
    const display = present.get(key);
    const entry = state.displays[key];
    if (display && entry) return { bounds: clampToWorkArea(entry.bounds, display.workArea), maximized: entry.maximized };
  }
  const remembered = state.last ? state.displays[state.last] : undefined;
  const size = remembered?.bounds ?? { width: WINDOW_WIDTH, height: WINDOW_HEIGHT };
  return { bounds: centerOn(size, primary.workArea), maximized: remembered?.maximized ?? false };
}

/**
 * The state after the window rests at `bounds` (its normal, unmaximized bounds) on the display that shows most
 * of it; that display becomes the most recently used, and the oldest beyond MAX_REMEMBERED_DISPLAYS goes.
 */
export function rememberWindow(state: WindowState, bounds: Rect, maximized: boolean, displays: readonly DisplayInfo[]): WindowState {
  const display = displayMatching(bounds, displays);
  if (!display || !isRect(bounds)) return state;
  const key = displayKey(display);
  const { [key]: _old, ...others } = state.displays;
  const kept = Object.entries(others).slice(-(MAX_REMEMBERED_DISPLAYS - 1));
  return { displays: { ...Object.fromEntries(kept), [key]: { bounds: roundRect(bounds), maximized } }, last: key };
}

export async function loadWindowState(userData: string): Promise<WindowState> {
  const file = path.join(userData, WINDOW_STATE_FILE);
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile() || stat.size > MAX_STATE_FILE_BYTES) return { displays: {} };
    return parseWindowState(JSON.parse(await fs.readFile(file, 'utf8')));
  } catch {
    return { displays: {} };
  }
}

export function saveWindowState(userData: string, state: WindowState): Promise<void> {
  return writeFileAtomic(path.join(userData, WINDOW_STATE_FILE), JSON.stringify(state, null, 2) + '\n');
}

/** Calls `save` once the calls to `schedule` have stopped for `delayMs`; `flush` saves now (on close). */
export function debounced(save: () => void, delayMs = SAVE_DEBOUNCE_MS, timers: Pick<typeof globalThis, 'setTimeout' | 'clearTimeout'> = globalThis) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    schedule(): void {
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = timers.setTimeout(() => {
        timer = undefined;
        save();
      }, delayMs);
    },
    flush(): void {
      if (timer === undefined) return;
      timers.clearTimeout(timer);
      timer = undefined;
      save();
    },
  };
}
