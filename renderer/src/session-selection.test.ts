import { describe, expect, it } from 'vitest';
import { ListSelection, moveFocus, rangeBetween, rowAfter, undoShows } from './session-selection.js';

const order = ['a', 'b', 'c', 'd', 'e'];

describe('moveFocus', () => {
  it('moves one row and stops at either end; Home and End go to the ends', () => {
    expect(moveFocus(order, 'b', 'ArrowDown')).toBe('c');
    expect(moveFocus(order, 'b', 'ArrowUp')).toBe('a');
    expect(moveFocus(order, 'a', 'ArrowUp')).toBe('a');
    expect(moveFocus(order, 'e', 'ArrowDown')).toBe('e');
    expect(moveFocus(order, 'c', 'Home')).toBe('a');
    expect(moveFocus(order, 'c', 'End')).toBe('e');
  });
  it('from a row not shown: Down to the first, Up to the last; nothing in an empty list', () => {
    expect(moveFocus(order, 'zz', 'ArrowDown')).toBe('a');
    expect(moveFocus(order, null, 'ArrowUp')).toBe('e');
    expect(moveFocus([], 'a', 'Home')).toBeNull();
  });
});

describe('ListSelection', () => {
  it('a click selects one row; Ctrl toggles; Shift takes the range from the anchor, either way', () => {
    const s = new ListSelection();
    s.only('b');
    expect(s.inOrder(order)).toEqual(['b']);
    s.extend(order, 'd');
    expect(s.inOrder(order)).toEqual(['b', 'c', 'd']);
    // The anchor stays: a Shift range the other way replaces the first.
    s.extend(order, 'a');
    expect(s.inOrder(order)).toEqual(['a', 'b']);
    s.toggle('e');
    expect(s.inOrder(order)).toEqual(['a', 'b', 'e']);
    s.toggle('a');
    expect(s.inOrder(order)).toEqual(['b', 'e']);
    expect(s.anchor).toBe('a');
  });
  it('forgets rows that left the list, the anchor too', () => {
    const s = new ListSelection();
    s.only('b');
    s.extend(order, 'c');
    s.keepOnly(new Set(['c', 'd']));
    expect(s.inOrder(order)).toEqual(['c']);
    expect(s.anchor).toBeNull();
    expect(rangeBetween(order, null, 'c')).toEqual(['c']);
  });
});

describe('after a delete', () => {
  it('the next row after the deleted ones, else the one before', () => {
    expect(rowAfter(order, ['b'])).toBe('c');
    expect(rowAfter(order, ['b', 'c'])).toBe('d');
    expect(rowAfter(order, ['d', 'e'])).toBe('c');
    expect(rowAfter(['a'], ['a'])).toBeNull();
  });
  it('Undo shows the deleted conversation again only when it was on screen and the person has not moved on', () => {
    // On A, deleted B: Undo keeps A.
    expect(undoShows(['b'], 'a', null, 'a')).toBe(false);
    // On B, deleted B, C took its place and is still shown: B comes back.
    expect(undoShows(['b'], 'b', 'c', 'c')).toBe(true);
    // …but not once the person opened D meanwhile.
    expect(undoShows(['b'], 'b', 'c', 'd')).toBe(false);
    // The last conversation deleted: nothing took its place, so it comes back on screen.
    expect(undoShows(['a'], 'a', null, null)).toBe(true);
  });
});
