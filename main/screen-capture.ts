// Quick capture's "Screenshot": the page asks for the screens and windows it may take (small thumbnails for a
// picker), then for one of them at full resolution. Main answers with desktopCapturer, never with a
// getDisplayMedia grant (main/permissions.ts keeps display capture denied to every page). Only the app's own
// top-level document may ask; an id must be one desktopCapturer lists now (not one of Satchel's own windows);
// the capture window is hidden while the shot is taken, so it is not in it, and shown again after.
import { isTrustedSender, type InvokeEvent } from './pick-folder.js';

export const SCREEN_SOURCES_CHANNEL = 'satchel:screen-sources';
export const CAPTURE_SCREEN_CHANNEL = 'satchel:capture-screen';

/** The picker's thumbnails: big enough to recognize a window, small enough that a list of 50 stays light. */
export const THUMBNAIL_SIZE = { width: 320, height: 200 } as const;
/** No side of a shot is asked larger than this (an 8K display is 7680 wide); a bogus display size cannot make
 * desktopCapturer allocate gigabytes. */
export const MAX_CAPTURE_EDGE_PX = 8192;
/** A PNG larger than this is not sent over IPC (a full 8K screenshot of noise is about 130 MB raw; real screens
 * compress far below this); the page says the shot failed instead. */
export const MAX_CAPTURE_PNG_BYTES = 64 * 1024 * 1024;
/** After the capture window is hidden, the compositor needs a frame or two before it is gone from the screen;
 * 150 ms covers a 60 Hz display's several frames and window managers' short fade-outs. */
export const HIDE_SETTLE_MS = 150;
/** How many sources a list may hold; more is not a list a person picks from (and bounds the IPC reply). */
export const MAX_LISTED_SOURCES = 50;
export const SOURCE_ID_PATTERN = /^(screen|window):\d{1,20}:\d{1,20}$/;

/** The parts of Electron's DesktopCapturerSource and NativeImage this module reads. */
export interface CapturerImage {
  isEmpty(): boolean;
  toPNG(): Uint8Array;
  toDataURL(): string;
  getSize(): { width: number; height: number };
}
export interface CapturerSource {
  id: string;
  name: string;
  display_id: string;
  thumbnail: CapturerImage;
}
export interface DisplayInfo {
  id: number;
  size: { width: number; height: number };
  scaleFactor: number;
}
export interface GetSourcesOptions {
  types: Array<'screen' | 'window'>;
  thumbnailSize: { width: number; height: number };
  fetchWindowIcons: boolean;
}

/** What the page gets for its picker. */
export interface ListedSource {
  id: string;
  name: string;
  kind: 'screen' | 'window';
  thumbnail: string;
}

export function acceptableSourceId(value: unknown): value is string {
  return typeof value === 'string' && SOURCE_ID_PATTERN.test(value);
}

export function sourceKind(id: string): 'screen' | 'window' {
  return id.startsWith('screen:') ? 'screen' : 'window';
}

/** The list for the picker: well-formed ids only, none of Satchel's own windows, at most MAX_LISTED_SOURCES. */
export function listedSources(sources: readonly CapturerSource[], ownIds: readonly string[]): ListedSource[] {
  return sources
    .filter((s) => acceptableSourceId(s.id) && !ownIds.includes(s.id))
    .slice(0, MAX_LISTED_SOURCES)
    .map((s) => ({ id: s.id, name: s.name, kind: sourceKind(s.id), thumbnail: s.thumbnail.isEmpty() ? '' : s.thumbnail.toDataURL() }));
}

/** A size no larger than MAX_CAPTURE_EDGE_PX a side, keeping its proportions, in whole pixels (at least 1). */
export function boundedSize(size: { width: number; height: number }): { width: number; height: number } {
  const w = Number.isFinite(size.width) && size.width > 0 ? size.width : 1;
  const h = Number.isFinite(size.height) && size.height > 0 ? size.height : 1;
  const scale = Math.min(1, MAX_CAPTURE_EDGE_PX / w, MAX_CAPTURE_EDGE_PX / h);
  return { width: Math.max(1, Math.round(w * scale)), height: Math.max(1, Math.round(h * scale)) };
}

/** A display's size in its own pixels (points × scale factor: a Retina 1440×900 is 2880×1800). */
export function displayPixels(display: DisplayInfo): { width: number; height: number } {
  const scale = Number.isFinite(display.scaleFactor) && display.scaleFactor > 0 ? display.scaleFactor : 1;
  return boundedSize({ width: display.size.width * scale, height: display.size.height * scale });
}

/** The thumbnailSize to ask desktopCapturer for, so the "thumbnail" is the full shot: a screen's own display's
 * pixels (by display_id); a window, or a screen whose display is not known, the largest display's pixels
 * (desktopCapturer scales a window down to fit, never up). */
export function captureSize(id: string, displayId: string, displays: readonly DisplayInfo[]): { width: number; height: number } {
  const own = sourceKind(id) === 'screen' ? displays.find((d) => String(d.id) === displayId) : undefined;
  if (own) return displayPixels(own);
  const sizes = displays.map(displayPixels);
  if (sizes.length === 0) return boundedSize({ width: 1920, height: 1080 });
  return sizes.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
}

export interface CaptureInvokeEvent extends InvokeEvent {
  /** The WebContents that asked (the glue finds its window to hide). */
  sender?: unknown;
}

export interface ScreenCaptureDeps {
  appOrigin: string;
  /** desktopCapturer.getSources */
  getSources(options: GetSourcesOptions): Promise<CapturerSource[]>;
  /** screen.getAllDisplays() */
  displays(): DisplayInfo[];
  /** The media source ids of Satchel's own windows (BrowserWindow#getMediaSourceId): never offered. */
  ownSourceIds(): string[];
  /** Hide the asking page's window; returns how to show it again (undefined: there was no window to hide). */
  hideSender(event: CaptureInvokeEvent): (() => void) | undefined;
  wait(ms: number): Promise<void>;
}

const TYPES: Array<'screen' | 'window'> = ['screen', 'window'];

/** ipcMain.handle for SCREEN_SOURCES_CHANNEL: no arguments; the picker's list. */
export function createScreenSourcesHandler(deps: ScreenCaptureDeps): (event: CaptureInvokeEvent, ...args: unknown[]) => Promise<ListedSource[]> {
  return async (event, ...args) => {
    if (!isTrustedSender(event.senderFrame, deps.appOrigin)) throw new Error('screenSources: untrusted sender');
    if (args.length !== 0) throw new Error('screenSources takes no arguments');
    const sources = await deps.getSources({ types: TYPES, thumbnailSize: { ...THUMBNAIL_SIZE }, fetchWindowIcons: false });
    return listedSources(sources, deps.ownSourceIds());
  };
}

/** ipcMain.handle for CAPTURE_SCREEN_CHANNEL: one source id; its PNG bytes, or null (gone, empty, too large, or
 * a shot already being taken). */
export function createCaptureScreenHandler(deps: ScreenCaptureDeps): (event: CaptureInvokeEvent, ...args: unknown[]) => Promise<Uint8Array | null> {
  let busy = false;
  return async (event, ...args) => {
    if (!isTrustedSender(event.senderFrame, deps.appOrigin)) throw new Error('captureScreen: untrusted sender');
    const id = args[0];
    if (args.length !== 1 || !acceptableSourceId(id) || deps.ownSourceIds().includes(id)) return null;
    if (busy) return null;
    busy = true;
    const show = deps.hideSender(event);
    try {
      if (show) await deps.wait(HIDE_SETTLE_MS);
      // Listed first at the smallest size, so the display is known before the full-size shot is asked for.
      const listed = (await deps.getSources({ types: [sourceKind(id)], thumbnailSize: { width: 1, height: 1 }, fetchWindowIcons: false })).find((s) => s.id === id);
      if (!listed) return null;
      const size = captureSize(id, listed.display_id, deps.displays());
      const shot = (await deps.getSources({ types: [sourceKind(id)], thumbnailSize: size, fetchWindowIcons: false })).find((s) => s.id === id);
      if (!shot || shot.thumbnail.isEmpty()) return null;
      const png = shot.thumbnail.toPNG();
      if (png.byteLength === 0 || png.byteLength > MAX_CAPTURE_PNG_BYTES) return null;
      return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
    } finally {
      show?.();
      busy = false;
    }
  };
}
