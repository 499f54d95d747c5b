import { describe, expect, it } from 'vitest';
import { groupSessions } from './session-groups.js';
import { arrangeFolders } from './session-folders.js';

const NOW = new Date(2026, 2, 11, 15, 0).getTime();
const at = (d: number) => new Date(2026, 2, d, 12, 0).toISOString();
const s = (id: string, day: number, more: { folder?: string; pinned?: boolean; archived?: boolean } = {}) => ({ session_id: id, updated_at: at(day), ...more });
const folder = (id: string, name: string) => ({ id, name, created_at: at(1), count: 0 });

const shape = (sessions: ReturnType<typeof s>[], collapsed: string[] = [], onlyMatching = false, showArchived = true) =>
  arrangeFolders(groupSessions(sessions, NOW, showArchived, 'en-GB'), [folder('aaaaaaaaaaaa', 'Car'), folder('bbbbbbbbbbbb', 'Work')], new Set(collapsed), onlyMatching).groups.map((g) => [
    g.label,
    g.sessions.map((x) => x.session_id),
  ]);

describe('arrangeFolders', () => {
  it('puts folders after the pinned group, each conversation in its folder by last activity, the rest by day', () => {
    const list = [s('p', 11, { pinned: true, folder: 'aaaaaaaaaaaa' }), s('c1', 10, { folder: 'aaaaaaaaaaaa' }), s('c2', 11, { folder: 'aaaaaaaaaaaa' }), s('d', 11), s('x', 9, { archived: true, folder: 'aaaaaaaaaaaa' })];
    expect(shape(list)).toEqual([
      ['Pinned', ['p']],
      ['Car', ['c2', 'c1']],
      ['Work', []],
      ['Today', ['d']],
      ['Archived', ['x']],
    ]);
  });

  it('a conversation naming a folder that is gone stays among the days; a folded folder shows no rows; a search hides empty folders', () => {
    const list = [s('g', 11, { folder: 'ffffffffffff' }), s('c', 10, { folder: 'aaaaaaaaaaaa' })];
    expect(shape(list)).toEqual([['Car', ['c']], ['Work', []], ['Today', ['g']]]);
    expect(shape(list, ['aaaaaaaaaaaa'])).toEqual([['Car', []], ['Work', []], ['Today', ['g']]]);
    expect(shape(list, [], true)).toEqual([['Car', ['c']], ['Today', ['g']]]);
  });
});
