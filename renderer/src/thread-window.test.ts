import { describe, expect, it } from 'vitest';
import { anchorAt, anchoredY, charsPerLine, estimateExtent, OVERSCAN_PX, rowAt, topsOf, windowAt } from './thread-window.js';

// Ten rows of 100 px (gap included): row i spans [100 i, 100 i + 100).
const even = topsOf(Array.from({ length: 10 }, () => 100));

describe('topsOf / rowAt', () => {
  it('sums the extents and finds the row that spans a position', () => {
    expect(Array.from(topsOf([10, 20, 30]))).toEqual([0, 10, 30, 60]);
    expect(rowAt(even, 0)).toBe(0);
    expect(rowAt(even, 99.5)).toBe(0);
    expect(rowAt(even, 100)).toBe(1);
    expect(rowAt(even, 950)).toBe(9);
    expect(rowAt(even, 5_000)).toBe(10);
    expect(rowAt(even, -50)).toBe(0);
  });
});

describe('windowAt', () => {
  it('draws the rows that meet the viewport widened by the overscan', () => {
    // Viewport [400, 600): rows 4 and 5; 100 px of overscan adds one row each side.
    expect(windowAt(even, 400, 200, 100)).toEqual({ start: 3, end: 7 });
    expect(windowAt(even, 450, 100, 0)).toEqual({ start: 4, end: 6 });
  });

  it('stops at the ends of the conversation', () => {
    expect(windowAt(even, 0, 200, 100)).toEqual({ start: 0, end: 3 });
    expect(windowAt(even, 900, 200, 100)).toEqual({ start: 8, end: 10 });
    expect(windowAt(topsOf([]), 0, 500)).toEqual({ start: 0, end: 0 });
  });

  it('is never empty: a viewport past the rows draws the last one, inside one row draws it', () => {
    expect(windowAt(even, 5_000, 200, 0)).toEqual({ start: 9, end: 10 });
    expect(windowAt(topsOf([10_000]), 3_000, 500, 0)).toEqual({ start: 0, end: 1 });
  });

  it('draws a few dozen of 10,000 rows with the default overscan, wherever the viewport is', () => {
    const tops = topsOf(Array.from({ length: 10_000 }, (_, i) => 80 + (i % 7) * 60));
    for (const y of [0, tops[5_000]!, tops[10_000]! - 860]) {
      const w = windowAt(tops, y, 860);
      expect(w.end - w.start).toBeLessThan(40);
      expect(tops[w.start]!).toBeLessThanOrEqual(Math.max(0, y - OVERSCAN_PX));
      expect(tops[w.end]!).toBeGreaterThanOrEqual(Math.min(tops[10_000]!, y + 860 + OVERSCAN_PX));
    }
  });
});

describe('anchors', () => {
  it('names the row at the viewport top and how far into it the viewport is', () => {
    expect(anchorAt(even, 430)).toEqual({ index: 4, offset: 30 });
    // In the padding above the first row: the first row, a negative offset.
    expect(anchorAt(even, -20)).toEqual({ index: 0, offset: -20 });
    expect(anchorAt(even, 5_000)).toEqual({ index: 9, offset: 4_100 });
  });

  it('keeps the anchor row in place when rows above it change height', () => {
    const before = anchorAt(even, 430);
    // Rows 1 and 2 were estimated at 100 px and measured at 250 and 40: row 4 now starts at 490.
    const after = topsOf([100, 250, 40, 100, 100, 100, 100, 100, 100, 100]);
    expect(anchoredY(after, before)).toBe(520);
    expect(anchoredY(after, before) - after[4]!).toBe(30);
  });

  it('does not move the viewport when only rows below the anchor change', () => {
    const before = anchorAt(even, 430);
    const after = topsOf([100, 100, 100, 100, 100, 900, 20, 100, 100, 100]);
    expect(anchoredY(after, before)).toBe(430);
  });
});

describe('estimateExtent', () => {
  it('grows with the wrapped lines and the newlines of the text', () => {
    const perLine = charsPerLine(790);
    expect(perLine).toBe(97);
    const one = estimateExtent('short', perLine, 12);
    expect(estimateExtent('x'.repeat(perLine * 3), perLine, 12) - one).toBe(2 * 21);
    expect(estimateExtent('a\nb\nc', perLine, 12) - one).toBe(2 * 21);
    expect(estimateExtent('', perLine, 12)).toBeLessThan(one);
  });
});
