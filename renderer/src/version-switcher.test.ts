import { describe, expect, it } from 'vitest';
import type { MessageRow } from './message-rows.js';
import { switcherPlaces, versionText } from './version-switcher.js';

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
    const regenerated = row(0, 'user', { index: 1, count: 2, edited: false });
    const edited = row(2, 'user', { index: 0, count: 3, edited: true });
    const alone = row(4, 'user', { index: 1, count: 2, edited: false });
    const rows = [regenerated, row(1, 'assistant'), edited, row(3, 'assistant'), alone];
    const places = switcherPlaces(rows);
    expect([...places.entries()].map(([at, fork]) => [at, fork.index])).toEqual([
      [1, 0],
      [2, 2],
      [4, 4],
    ]);
  });
});
