// The conversation list as one roving listbox (issue 38, item 1): which row has the keyboard's focus, which rows
// are selected (Shift/Ctrl-click, Shift+arrows) and the anchor a range starts from. Pure over the ids in the order
// the list shows them, so it is tested without a page; sessions.ts draws it.

/** The keys that move the focus in the list, and where each goes. */
export type MoveKey = 'ArrowUp' | 'ArrowDown' | 'Home' | 'End';

export function isMoveKey(key: string): key is MoveKey {
  return key === 'ArrowUp' || key === 'ArrowDown' || key === 'Home' || key === 'End';
}

/** The row `key` moves the focus to from `from` in `order`; the first (or last) when `from` is not shown. */
export function moveFocus(order: readonly string[], from: string | null, key: MoveKey): string | null {
  if (order.length === 0) return null;
  if (key === 'Home') return order[0]!;
  if (key === 'End') return order[order.length - 1]!;
  const at = from === null ? -1 : order.indexOf(from);
  if (at < 0) return key === 'ArrowDown' ? order[0]! : order[order.length - 1]!;
  // Stops at either end: a list is not a ring (a wrap would jump from the newest to the oldest unnoticed).
  return order[Math.min(order.length - 1, Math.max(0, at + (key === 'ArrowDown' ? 1 : -1)))]!;
}

/** The rows from `a` to `b` inclusive, in the list's order; just `b` when `a` is not shown. */
export function rangeBetween(order: readonly string[], a: string | null, b: string): string[] {
  const i = a === null ? -1 : order.indexOf(a);
  const j = order.indexOf(b);
  if (j < 0) return [];
  if (i < 0) return [b];
  return order.slice(Math.min(i, j), Math.max(i, j) + 1);
}

export class ListSelection {
  private chosen = new Set<string>();
  /** Where a Shift range starts: the last row clicked, opened or toggled. */
  anchor: string | null = null;

  has(id: string): boolean {
    return this.chosen.has(id);
  }

  get size(): number {
    return this.chosen.size;
  }

  /** The selected ids in the list's order (those not shown left out). */
  inOrder(order: readonly string[]): string[] {
    return order.filter((id) => this.chosen.has(id));
  }

  /** Just this row (a plain click, Enter, a conversation opened elsewhere). */
  only(id: string | null): void {
    this.chosen = new Set(id === null ? [] : [id]);
    this.anchor = id;
  }

  /** Ctrl/⌘-click, Space: the row in or out; it becomes the anchor either way. */
  toggle(id: string): void {
    if (this.chosen.has(id)) this.chosen.delete(id);
    else this.chosen.add(id);
    this.anchor = id;
  }

  /** Shift-click, Shift+arrows: the rows from the anchor to `to`, replacing the rest; the anchor stays. */
  extend(order: readonly string[], to: string): void {
    const anchor = this.anchor !== null && order.includes(this.anchor) ? this.anchor : to;
    this.chosen = new Set(rangeBetween(order, anchor, to));
    this.anchor = anchor;
  }

  all(order: readonly string[]): void {
    this.chosen = new Set(order);
  }

  /** Forget rows no longer in the list (deleted, another profile's). */
  keepOnly(ids: ReadonlySet<string>): void {
    for (const id of this.chosen) if (!ids.has(id)) this.chosen.delete(id);
    if (this.anchor !== null && !ids.has(this.anchor)) this.anchor = null;
  }
}

/**
 * After a delete that the person made while on `shownAtDelete`, with `substitute` put on screen in place of the
 * deleted one, is Undo to show the deleted conversation again? Only when it was the one on screen and the person
 * has not moved on since (`shownNow` is still the substitute): Undo then puts back what the delete took. Otherwise
 * they stay where they are; the row only comes back to the list (issue 38, item 7: Undo jumped to it).
 */
export function undoShows(deleted: readonly string[], shownAtDelete: string | null, substitute: string | null, shownNow: string | null): boolean {
  return shownAtDelete !== null && deleted.includes(shownAtDelete) && shownNow === substitute;
}

/** The row to show and focus after `removed` leave the list: the first row after them, else the last before. */
export function rowAfter(order: readonly string[], removed: readonly string[]): string | null {
  const gone = new Set(removed);
  const last = Math.max(...removed.map((id) => order.indexOf(id)));
  if (last < 0) return null;
  const after = order.slice(last + 1).find((id) => !gone.has(id));
  if (after !== undefined) return after;
  const before = order.slice(0, last).filter((id) => !gone.has(id));
  return before[before.length - 1] ?? null;
}
