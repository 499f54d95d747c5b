// The extents (height plus the gap after it) of the thread's rows, and what of them is known: a row measured once
// keeps its real extent by key (drawn again or scrolled past), the others are estimated from their text
// (thread-window.ts estimateExtent). Apart from thread-view.ts, which measures the elements, so the bookkeeping is
// free of the DOM and tested in node (row-extents.test.ts).
import { estimateExtent, topsOf } from './thread-window.js';

/** Within this many pixels a measured extent is the one assumed: nothing moves. */
const SAME_EXTENT_PX = 0.5;

export class RowExtents {
  private extents: number[] = [];
  private running: Float64Array | null = null;
  /** Extents of rows drawn at least once, by key. */
  private measured = new Map<string, number>();

  /**
   * The rows now shown, by key and text: a row measured before keeps its extent. Only these rows' measurements
   * are kept, so the cache is as large as the conversation on screen.
   */
  reset(keys: readonly string[], texts: readonly string[], perLine: number, gap: number): void {
    const measured = new Map<string, number>();
    this.extents = keys.map((key, i) => {
      const known = this.measured.get(key);
      if (known === undefined) return estimateExtent(texts[i] ?? '', perLine, gap);
      measured.set(key, known);
      return known;
    });
    this.measured = measured;
    this.running = null;
  }

  /** Another width wraps every line differently: every row is estimated again, and measured again when drawn. */
  reestimate(texts: readonly string[], perLine: number, gap: number): void {
    this.measured.clear();
    this.extents = texts.map((text) => estimateExtent(text, perLine, gap));
    this.running = null;
  }

  /** Row `at`'s extent as known now. */
  at(at: number): number {
    return this.extents[at] ?? 0;
  }

  isMeasured(key: string): boolean {
    return this.measured.has(key);
  }

  /** Row `at` (of key `key`) measured `extent`; true when that differs from what was assumed. */
  set(at: number, key: string, extent: number): boolean {
    this.measured.set(key, extent);
    if (Math.abs(this.at(at) - extent) < SAME_EXTENT_PX) return false;
    this.extents[at] = extent;
    this.running = null;
    return true;
  }

  /** Running sums of the extents (thread-window.ts topsOf), computed again only after a change. */
  tops(): Float64Array {
    return (this.running ??= topsOf(this.extents));
  }
}
