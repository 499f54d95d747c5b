import { describe, expect, it } from 'vitest';
import { RowExtents } from './row-extents.js';
import { estimateExtent } from './thread-window.js';

const PER_LINE = 80;
const GAP = 12;

describe('RowExtents', () => {
  it('estimates rows never drawn and keeps a measured row’s extent by key across resets', () => {
    const extents = new RowExtents();
    extents.reset(['a', 'b'], ['hello', 'x'.repeat(200)], PER_LINE, GAP);
    expect(extents.at(1)).toBe(estimateExtent('x'.repeat(200), PER_LINE, GAP));
    expect(extents.set(0, 'a', 300)).toBe(true);
    expect(Array.from(extents.tops())).toEqual([0, 300, 300 + extents.at(1)]);
    // A new row below: `a` keeps what was measured, the new one is estimated.
    extents.reset(['a', 'b', 'c'], ['hello', 'x'.repeat(200), 'new'], PER_LINE, GAP);
    expect(extents.at(0)).toBe(300);
    expect(extents.isMeasured('a')).toBe(true);
    expect(extents.isMeasured('c')).toBe(false);
  });

  it('forgets rows no longer shown, and every measurement when the width changes', () => {
    const extents = new RowExtents();
    extents.reset(['a', 'b'], ['hello', 'world'], PER_LINE, GAP);
    extents.set(0, 'a', 300);
    extents.set(1, 'b', 400);
    extents.reset(['b'], ['world'], PER_LINE, GAP);
    extents.reset(['a', 'b'], ['hello', 'world'], PER_LINE, GAP);
    expect(extents.isMeasured('a')).toBe(false);
    expect(extents.at(1)).toBe(400);
    extents.reestimate(['hello', 'world'], 40, GAP);
    expect(extents.isMeasured('b')).toBe(false);
    expect(extents.at(1)).toBe(estimateExtent('world', 40, GAP));
  });

  it('a measurement within half a pixel of the assumed extent moves nothing', () => {
    const extents = new RowExtents();
    extents.reset(['a'], ['hello'], PER_LINE, GAP);
    const tops = extents.tops();
    expect(extents.set(0, 'a', extents.at(0) + 0.4)).toBe(false);
    expect(extents.tops()).toBe(tops);
    expect(extents.isMeasured('a')).toBe(true);
    expect(extents.set(0, 'a', extents.at(0) + 2)).toBe(true);
    expect(extents.tops()).not.toBe(tops);
  });
});
