import { describe, expect, it } from 'vitest';
import { archivedToggleLabel, dayLabel, groupSessions } from './session-groups.js';

/** Local times, so the day boundaries are the reader's, as in the page. Wednesday 11 March 2026, 15:00. */
const NOW = new Date(2026, 2, 11, 15, 0).getTime();
const at = (y: number, m: number, d: number, h = 12, min = 0) => new Date(y, m - 1, d, h, min).toISOString();
const s = (id: string, updated_at: string, flags: { pinned?: boolean; archived?: boolean } = {}) => ({ session_id: id, updated_at, ...flags });
const shape = (g: ReturnType<typeof groupSessions<ReturnType<typeof s>>>) => g.groups.map((x) => [x.label, x.sessions.map((y) => y.session_id)]);

describe('dayLabel', () => {
  it.each([
    [at(2026, 3, 11, 0, 1), 'Today'],
    [at(2026, 3, 11, 23, 59), 'Today'],
    [at(2026, 3, 12, 9), 'Today'],
    [at(2026, 3, 10, 23, 59), 'Yesterday'],
    [at(2026, 3, 10, 0, 0), 'Yesterday'],
    [at(2026, 3, 9), 'Monday'],
    [at(2026, 3, 5), 'Thursday'],
    [at(2026, 3, 4), '4 March'],
    [at(2025, 12, 31), '31 December 2025'],
  ])('%s is %s', (iso, label) => {
    expect(dayLabel(Date.parse(iso), NOW, 'en-GB')).toBe(label);
  });
});

describe('groupSessions', () => {
  it('puts pinned first, then the rest newest first grouped by day', () => {
    const list = [
      s('old', at(2026, 2, 1)),
      s('today-early', at(2026, 3, 11, 8)),
      s('pinned-old', at(2025, 6, 1), { pinned: true }),
      s('yesterday', at(2026, 3, 10)),
      s('today-late', at(2026, 3, 11, 14)),
      s('pinned-new', at(2026, 3, 11, 9), { pinned: true }),
      s('monday', at(2026, 3, 9)),
    ];
    expect(shape(groupSessions(list, NOW, false, 'en-GB'))).toEqual([
      ['Pinned', ['pinned-new', 'pinned-old']],
      ['Today', ['today-late', 'today-early']],
      ['Yesterday', ['yesterday']],
      ['Monday', ['monday']],
      ['1 February', ['old']],
    ]);
  });

  it('keeps archived ones apart, counted, and shown last only when asked (archived wins over pinned)', () => {
    const list = [s('a', at(2026, 3, 11)), s('b', at(2026, 3, 1), { archived: true }), s('c', at(2026, 3, 11, 13), { archived: true, pinned: true })];
    const hidden = groupSessions(list, NOW, false, 'en-GB');
    expect(shape(hidden)).toEqual([['Today', ['a']]]);
    expect(hidden.archivedCount).toBe(2);
    expect(shape(groupSessions(list, NOW, true, 'en-GB'))).toEqual([
      ['Today', ['a']],
      ['Archived', ['c', 'b']],
    ]);
  });

  it('is empty for no sessions, with no toggle to offer', () => {
    expect(groupSessions([], NOW, true)).toEqual({ groups: [], archivedCount: 0 });
  });

  it('names the toggle with the count', () => {
    expect(archivedToggleLabel(3, false)).toBe('Show archived (3)');
    expect(archivedToggleLabel(3, true)).toBe('Hide archived (3)');
  });
});
