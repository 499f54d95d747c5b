// Which stored rows a long conversation draws: the pure arithmetic of thread-view.ts's window. Every row has
// an extent (its height plus the gap after it: measured once drawn, estimated before), `tops` are their running
// sums, and the window is the rows that meet the viewport widened by an overscan. An anchor (a row and how far
// the viewport's top is into it) is what stays put when heights change, so what the person reads does not jump.

/** Conversations up to this many rows draw every row, as the thread always did (no spacers, the browser's own
 * scroll anchoring): a window only pays for itself when drawing everything costs more than a frame. */
export const WINDOW_FROM_ROWS = 31;

/** Drawn beyond each edge of the viewport: a wheel step or two of rows is ready before it scrolls in, and a
 * code block or formula there is highlighted by on-screen.ts before it is seen. */
export const OVERSCAN_PX = 800;

/** Estimated extent of a row never drawn: its frame (padding, border, header) ... */
const ROW_FRAME_PX = 46;
/** ... plus its lines at the body's line height. */
const LINE_PX = 21;
/** Average width of a character of the body font, for how many fit on a line. */
const CHAR_PX = 7.5;

/** Characters that fit on a line of a message `width` pixels wide (a message is at most 760 px: styles.css .msg). */
export function charsPerLine(width: number): number {
  return Math.max(20, Math.floor((Math.min(width, 760) - 30) / CHAR_PX));
}

/** A row's extent before it is drawn: wrapped lines of its text (each newline starts one) under its frame. */
export function estimateExtent(text: string, perLine: number, gap: number): number {
  let lines = 0;
  let from = 0;
  for (;;) {
    const nl = text.indexOf('\n', from);
    const end = nl === -1 ? text.length : nl;
    lines += Math.max(1, Math.ceil((end - from) / perLine));
    if (nl === -1) break;
    from = nl + 1;
  }
  return ROW_FRAME_PX + (text ? lines : 0) * LINE_PX + gap;
}

/** Running sums of the extents: row i spans [tops[i], tops[i + 1]); tops[n] is the rows' whole height. */
export function topsOf(extents: ArrayLike<number>): Float64Array {
  const tops = new Float64Array(extents.length + 1);
  for (let i = 0; i < extents.length; i++) tops[i + 1] = tops[i]! + extents[i]!;
  return tops;
}

/** The first row whose span reaches past `y` (rows.length when y is past them all): binary search. */
export function rowAt(tops: Float64Array, y: number): number {
  const n = tops.length - 1;
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tops[mid + 1]! <= y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface RowWindow {
  /** First row drawn. */
  start: number;
  /** One past the last row drawn. */
  end: number;
}

/**
 * The rows to draw when the viewport's top is at `y` (in the rows' coordinates: 0 is the first row's top) and it
 * is `height` tall: those that meet [y - overscan, y + height + overscan]. Never empty while there are rows.
 */
export function windowAt(tops: Float64Array, y: number, height: number, overscan = OVERSCAN_PX): RowWindow {
  const n = tops.length - 1;
  if (n <= 0) return { start: 0, end: 0 };
  const start = Math.min(n - 1, rowAt(tops, y - overscan));
  // One past the last row that begins above the widened viewport's bottom edge.
  const bottom = y + height + overscan;
  let lo = start;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tops[mid]! < bottom) lo = mid + 1;
    else hi = mid;
  }
  const end = Math.max(start + 1, lo);
  return { start, end };
}

/** What stays put on screen: the row at the viewport's top and how far the viewport's top is into it. */
export interface Anchor {
  index: number;
  offset: number;
}

/** The anchor for a viewport whose top is at `y`; before the first row (the padding), the first row. */
export function anchorAt(tops: Float64Array, y: number): Anchor {
  const n = tops.length - 1;
  const index = Math.min(Math.max(0, rowAt(tops, y)), Math.max(0, n - 1));
  return { index, offset: y - (tops[index] ?? 0) };
}

/** Where the viewport's top goes so the anchor's row is where it was, after heights changed. */
export function anchoredY(tops: Float64Array, anchor: Anchor): number {
  return (tops[Math.min(anchor.index, tops.length - 1)] ?? 0) + anchor.offset;
}
