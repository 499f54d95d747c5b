// Quick capture's screenshot as data: the rectangle a person drags over a taken screen, in the image's own pixels
// (a HiDPI screen's pixels, not the page's CSS pixels), the keys that move and resize it, the file's name, and
// the list of screens and windows to pick from. The view (capture-screenshot.ts) only draws and crops.

export interface Size {
  width: number;
  height: number;
}
export interface Point {
  x: number;
  y: number;
}
/** A rectangle in image pixels: whole numbers, inside the image. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Smaller than this (image pixels, each side) is a click or a slip, not a region: the drag keeps no rectangle. */
export const MIN_REGION_PX = 8;
/** One arrow press moves or resizes by this many image pixels; with Shift, by the larger step. */
export const KEY_STEP_PX = 1;
export const KEY_STEP_LARGE_PX = 10;

/** How the image is drawn in its box (object-fit: contain): its scale (CSS px per image px) and its offset. */
export interface Fit {
  scale: number;
  left: number;
  top: number;
}

/** The image scaled to fit the box whole, centered, never enlarged past `maxScale` CSS pixels per image pixel
 * (1: its own pixels as CSS pixels; see deviceScale for a window covering the screen). */
export function fitImage(image: Size, box: Size, maxScale = 1): Fit {
  const scale = Math.min(box.width / image.width, box.height / image.height, maxScale);
  return { scale, left: (box.width - image.width * scale) / 2, top: (box.height - image.height * scale) / 2 };
}

/** CSS pixels per image pixel when one image pixel is one device pixel: 1 / devicePixelRatio (a 2880×1800 shot of
 * a Retina screen drawn 1440×900 CSS pixels, exactly over the screen it was taken of). 1 for a ratio that is not a
 * positive number. */
export function deviceScale(devicePixelRatio: number): number {
  return Number.isFinite(devicePixelRatio) && devicePixelRatio > 0 ? 1 / devicePixelRatio : 1;
}

/** A point on the page (relative to the box) in the image's pixels, clamped to the image. */
export function toImagePoint(p: Point, fit: Fit, image: Size): Point {
  const clamp = (v: number, max: number) => Math.min(Math.max(v, 0), max);
  return { x: clamp((p.x - fit.left) / fit.scale, image.width), y: clamp((p.y - fit.top) / fit.scale, image.height) };
}

/** A drag from `start` to `end` (either direction, in image pixels) as a rectangle inside the image, or null when
 * it is smaller than MIN_REGION_PX on a side. Edges are rounded outward so the drawn rectangle is all taken. */
export function dragRect(start: Point, end: Point, image: Size): Rect | null {
  const x0 = Math.max(0, Math.floor(Math.min(start.x, end.x)));
  const y0 = Math.max(0, Math.floor(Math.min(start.y, end.y)));
  const x1 = Math.min(image.width, Math.ceil(Math.max(start.x, end.x)));
  const y1 = Math.min(image.height, Math.ceil(Math.max(start.y, end.y)));
  const width = x1 - x0;
  const height = y1 - y0;
  if (width < MIN_REGION_PX || height < MIN_REGION_PX) return null;
  return { x: x0, y: y0, width, height };
}

/** The whole image as a rectangle ("Whole screen"). */
export function wholeImage(image: Size): Rect {
  return { x: 0, y: 0, width: image.width, height: image.height };
}

/** The rectangle keyboard users start from: the middle half of the image. */
export function initialRect(image: Size): Rect {
  const width = Math.max(Math.min(MIN_REGION_PX, image.width), Math.round(image.width / 2));
  const height = Math.max(Math.min(MIN_REGION_PX, image.height), Math.round(image.height / 2));
  return { x: Math.floor((image.width - width) / 2), y: Math.floor((image.height - height) / 2), width, height };
}

/** Arrows move the rectangle; with Alt they resize it (its right and bottom edges); Shift takes larger steps.
 * The result stays inside the image and at least MIN_REGION_PX a side. Null: not a key this handles. */
export function nudge(rect: Rect, key: string, mods: { shift: boolean; alt: boolean }, image: Size): Rect | null {
  const step = mods.shift ? KEY_STEP_LARGE_PX : KEY_STEP_PX;
  const delta: Record<string, Point> = { ArrowLeft: { x: -step, y: 0 }, ArrowRight: { x: step, y: 0 }, ArrowUp: { x: 0, y: -step }, ArrowDown: { x: 0, y: step } };
  const d = delta[key];
  if (!d) return null;
  if (mods.alt) {
    const min = (side: number) => Math.min(MIN_REGION_PX, side);
    const width = Math.min(Math.max(rect.width + d.x, min(image.width)), image.width - rect.x);
    const height = Math.min(Math.max(rect.height + d.y, min(image.height)), image.height - rect.y);
    return { ...rect, width, height };
  }
  const x = Math.min(Math.max(rect.x + d.x, 0), image.width - rect.width);
  const y = Math.min(Math.max(rect.y + d.y, 0), image.height - rect.height);
  return { ...rect, x, y };
}

/** A rectangle in image pixels as CSS pixels in the box (to draw the selection over the shown image). */
export function toBoxRect(rect: Rect, fit: Fit): Rect {
  return { x: fit.left + rect.x * fit.scale, y: fit.top + rect.y * fit.scale, width: rect.width * fit.scale, height: rect.height * fit.scale };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The file's name, as macOS names its screenshots: `Screenshot 2026-11-26 at 17.52.03.png` (local time; dots,
 * not colons, which Windows and macOS's Finder do not allow in a name). */
export function screenshotName(at: Date): string {
  const day = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
  return `Screenshot ${day} at ${pad(at.getHours())}.${pad(at.getMinutes())}.${pad(at.getSeconds())}.png`;
}

/** One screen or window the desktop shell can take (window.satchel.screenSources()). */
export interface ScreenSource {
  id: string;
  name: string;
  kind: 'screen' | 'window';
  /** A small PNG as a data: URL, or '' when the system gave none. */
  thumbnail: string;
}

/** Desktop-capturer ids look like `screen:0:0` or `window:1234:0`. */
export const SOURCE_ID_PATTERN = /^(screen|window):\d{1,20}:\d{1,20}$/;
/** A name longer than this is cut (a window title can be anything a page sets). */
export const MAX_SOURCE_NAME_CHARS = 120;
/** At most this many choices are shown; more is not a list a person reads. */
export const MAX_SOURCES = 50;
/** A thumbnail larger than this (characters of data URL) is dropped, not drawn. */
export const MAX_THUMBNAIL_CHARS = 512 * 1024;

/** The picker's list from whatever came back: well-formed entries only, screens first, then windows by name. */
export function pickerSources(raw: unknown): ScreenSource[] {
  if (!Array.isArray(raw)) return [];
  const out: ScreenSource[] = [];
  for (const item of raw) {
    if (!item || typeof item !== 'object') continue;
    const { id, name, kind, thumbnail } = item as Record<string, unknown>;
    if (typeof id !== 'string' || !SOURCE_ID_PATTERN.test(id)) continue;
    if (kind !== 'screen' && kind !== 'window') continue;
    if (!id.startsWith(`${kind}:`)) continue;
    const label = typeof name === 'string' && name.trim() ? name.trim().slice(0, MAX_SOURCE_NAME_CHARS) : kind === 'screen' ? 'Screen' : 'Window';
    const thumb = typeof thumbnail === 'string' && thumbnail.startsWith('data:image/png;base64,') && thumbnail.length <= MAX_THUMBNAIL_CHARS ? thumbnail : '';
    out.push({ id, name: label, kind, thumbnail: thumb });
  }
  const screens = out.filter((s) => s.kind === 'screen');
  const windows = out.filter((s) => s.kind === 'window').sort((a, b) => a.name.localeCompare(b.name));
  return [...screens, ...windows].slice(0, MAX_SOURCES);
}

/** A data: URL's base64 payload as bytes (the page's policy allows blob: images, not data: ones). */
export function dataUrlBytes(url: string): Uint8Array | null {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || !url.slice(0, comma).endsWith(';base64') || comma < 0) return null;
  try {
    const text = atob(url.slice(comma + 1));
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}
