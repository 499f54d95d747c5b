import { describe, expect, it } from 'vitest';
import type { Message, Session } from './api.js';
import { visibleRows } from './message-rows.js';
import { initialState, type AppState } from './store.js';
import { canRegenerate, rowContext, rowKey, rowOffer, rowSignature } from './thread-rows.js';

const msg = (role: Message['role'], content: string, extra: Partial<Message> = {}): Message => ({ role, content, timestamp: 1, ...extra });
const session = (messages: Message[], extra: Partial<Session> = {}): Session =>
  ({ session_id: 's1', title: 't', workspace: '/w', profile: 'default', created_at: 'a', updated_at: 'b', messages, attachments: [], ...extra }) as Session;
const state = (s: Session | null, extra: Partial<AppState> = {}): AppState => ({ ...initialState(), session: s, agentReady: true, ...extra });

const conversation = [
  msg('user', 'first'),
  msg('assistant', 'one'),
  msg('user', 'second', { versions: { index: 1, count: 2, edited: true } }),
  msg('tool', 'tool output'),
  msg('assistant', 'two'),
];

describe('rowOffer', () => {
  it('offers Edit on the person’s rows and Regenerate on the last reply, neither while a turn runs', () => {
    const s = state(session(conversation));
    const rows = visibleRows(conversation);
    const idle = rowContext(s, rows, false);
    expect(rows.map((r, i) => rowOffer(idle, i, rows.length, r)).map(({ edit, regenerate, last }) => [edit, regenerate, last])).toEqual([
      [true, false, false],
      [false, false, false],
      [true, false, false],
      [false, true, true],
    ]);
    const busy = rowContext(s, rows, true);
    expect(rows.some((r, i) => rowOffer(busy, i, rows.length, r).edit || rowOffer(busy, i, rows.length, r).regenerate)).toBe(false);
    const noAgent = rowContext(state(session(conversation), { agentReady: false }), rows, false);
    expect(rowOffer(noAgent, 3, rows.length, rows[3]!).regenerate).toBe(false);
  });

  it('places the version switcher on the message with versions (the tool row is not a visible row)', () => {
    const rows = visibleRows(conversation);
    const context = rowContext(state(session(conversation)), rows, false);
    expect(rows.map((r, i) => rowOffer(context, i, rows.length, r).fork?.fork.index)).toEqual([undefined, undefined, 2, undefined]);
  });
});

describe('rowSignature and rowKey', () => {
  it('a row is drawn again when what it offers changes, and only then', () => {
    const s = session(conversation);
    const rows = visibleRows(conversation);
    const key = (i: number) => rowKey('s1', i, rows[i]!);
    const sig = (st: AppState, busy: boolean, i: number) => rowSignature(rowContext(st, rows, busy), i, rows.length, key(i), rows[i]!);
    expect(sig(state(s), false, 1)).toBe(sig(state(s), false, 1));
    // A turn starts: Edit and Regenerate go away.
    expect(sig(state(s), true, 0)).not.toBe(sig(state(s), false, 0));
    // The last reply's usage line belongs to the last row only.
    const said = state(s, { outcome: { sessionId: 's1', usage: '12 tokens' } });
    expect(sig(said, false, 3)).not.toBe(sig(state(s), false, 3));
    expect(sig(said, false, 1)).toBe(sig(state(s), false, 1));
    // The message being edited is marked.
    const editing = state(s, { editing: { sessionId: 's1', index: 2, saved: { text: '', chips: [] } } });
    expect(sig(editing, false, 2)).not.toBe(sig(state(s), false, 2));
    expect(sig(editing, false, 0)).toBe(sig(state(s), false, 0));
  });

  it('a row keeps its key while it stays, and gets a new one when a version replaces it', () => {
    const rows = visibleRows(conversation);
    expect(rowKey('s1', 1, rows[1]!)).toBe(rowKey('s1', 1, visibleRows(conversation)[1]!));
    const replaced = visibleRows([...conversation.slice(0, 2), msg('user', 'second, edited', { versions: { index: 2, count: 3, edited: true } })]);
    expect(rowKey('s1', 2, replaced[2]!)).not.toBe(rowKey('s1', 2, rows[2]!));
  });
});

describe('canRegenerate', () => {
  it('needs an agent, no turn running, and a reply last', () => {
    expect(canRegenerate(state(session(conversation)))).toBe(true);
    expect(canRegenerate(state(session(conversation), { agentReady: false }))).toBe(false);
    expect(canRegenerate(state(session(conversation, { active_stream_id: 'st' })))).toBe(false);
    expect(canRegenerate(state(session(conversation.slice(0, 3))))).toBe(false);
    expect(canRegenerate(state(session([])))).toBe(false);
    expect(canRegenerate(state(null))).toBe(false);
  });
});
