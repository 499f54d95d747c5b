import { describe, expect, it } from 'vitest';
import type { MessageRow } from './message-rows.js';
import { switcherPlaces, versionLevels, versionText } from './version-switcher.js';

const row = (index: number, role: MessageRow['role'], versions?: MessageRow['versions']): MessageRow => ({
  index,
  role,
  text: '',
  time: undefined,
  attachments: [],
  reasoning: '',
  tools: [],
  partial: false,
  error: false,
  versions,
});

describe('the versions switcher', () => {
  it('counts from 1 for people', () => {
    expect(versionText({ index: 0, count: 2, edited: false })).toBe('1/2');
    expect(versionText({ index: 2, count: 3, edited: true })).toBe('3/3');
  });

  it('sits under the reply for a Regenerate, under the message for an Edit, and under the message when no reply follows', () => {
    const regenerated = row(0, 'user', { index: 1, count: 2, edited: false, message: { index: 0, count: 1, versions: [1] }, reply: { index: 1, count: 2, versions: [0, 1] } });
    const edited = row(2, 'user', { index: 0, count: 3, edited: true, message: { index: 0, count: 3, versions: [0, 1, 2] }, reply: { index: 0, count: 1, versions: [0] } });
    const alone = row(4, 'user', { index: 1, count: 2, edited: false, message: { index: 0, count: 1, versions: [1] }, reply: { index: 1, count: 2, versions: [0, 1] } });
    const rows = [regenerated, row(1, 'assistant'), edited, row(3, 'assistant'), alone];
    const places = switcherPlaces(rows);
    expect([...places.entries()].map(([at, p]) => [at, p.fork.index, versionText(p.level)])).toEqual([
      [1, 0, '2/2'],
      [2, 2, '1/3'],
      [4, 4, '2/2'],
    ]);
  });

  it('an Edit after a Regenerate: both switchers, "2/2" under the message and the reply’s own under the reply', () => {
    // Was one "3/3" under the message, two of its three versions the same message (issue 38).
    const both = row(0, 'user', { index: 1, count: 3, edited: true, message: { index: 0, count: 2, versions: [1, 2] }, reply: { index: 1, count: 2, versions: [0, 1] } });
    const places = switcherPlaces([both, row(1, 'assistant')]);
    expect([...places.entries()].map(([at, p]) => [at, versionText(p.level), p.level.versions])).toEqual([
      [0, '1/2', [1, 2]],
      [1, '2/2', [0, 1]],
    ]);
  });

  it('a summary without its levels gets them from `edited`; malformed levels are not trusted', () => {
    expect(versionLevels({ index: 2, count: 3, edited: true })).toEqual({ message: { index: 2, count: 3, versions: [0, 1, 2] }, reply: { index: 0, count: 1, versions: [2] } });
    const bad = { index: 0, count: 2, edited: false, message: { index: 0, count: 1, versions: [7] }, reply: { index: 0, count: 2, versions: [0, 1] } };
    expect(versionLevels(bad)).toEqual({ message: { index: 0, count: 1, versions: [0] }, reply: { index: 0, count: 2, versions: [0, 1] } });
  });
});
