// The sessions kept whole in memory (session-cache.ts): the least recently used go first, within both limits,
// never the one just kept nor one that must stay, and the characters counted stay exact as sessions change.
import { describe, expect, it } from 'vitest';
import type { Message } from './messages.js';
import { IDLE_KEPT_CHARS, IDLE_KEPT_SESSIONS, keptChars, SessionCache } from './session-cache.js';
import type { Session } from './session-shapes.js';

function row(content: string, reasoning?: string): Message {
  return Object.freeze({ role: 'user', content, timestamp: 0, ...(reasoning === undefined ? {} : { reasoning }) }) as Message;
}

function session(id: string, messages: Message[] = [], extra: Partial<Session> = {}): Session {
  return { session_id: id, title: id, workspace: '/w', profile: 'default', created_at: '', updated_at: '', messages, attachments: [], ...extra };
}

const roomy = { sessions: 100, chars: 1_000_000 };

describe('SessionCache', () => {
  it('lets go of the least recently used beyond the count, a use making one the most recent', () => {
    const cache = new SessionCache({ sessions: 2, chars: 1_000_000 }, () => false);
    cache.hold(session('a'));
    cache.hold(session('b'));
    expect(cache.use('a')?.session_id).toBe('a');
    cache.hold(session('c'));
    expect([cache.has('a'), cache.has('b'), cache.has('c')]).toEqual([true, false, true]);
    // A peek leaves the order as it is: `a` is now the least recently used and goes next.
    cache.peek('a');
    cache.hold(session('d'));
    expect([cache.has('a'), cache.has('c'), cache.has('d')]).toEqual([false, true, true]);
    expect(cache.count).toBe(2);
  });

  it('counts the text and reasoning of every row and keeps within the characters, never the session just kept', () => {
    const cache = new SessionCache({ sessions: 100, chars: 10 }, () => false);
    cache.hold(session('a', [row('12345', '67')]));
    expect(cache.chars).toBe(7);
    // Over the limit alone: the most recent stays, the older one goes.
    cache.hold(session('b', [row('x'.repeat(20))]));
    expect([cache.has('a'), cache.has('b')]).toEqual([false, true]);
    expect(cache.chars).toBe(20);
  });

  it('never lets go of a session that must stay', () => {
    const cache = new SessionCache({ sessions: 1, chars: 1_000_000 }, (_id, s) => s.active_stream_id !== undefined);
    cache.hold(session('a', [], { active_stream_id: 'turn' }));
    cache.hold(session('b'));
    cache.hold(session('c'));
    expect([cache.has('a'), cache.has('b'), cache.has('c')]).toEqual([true, false, true]);
  });

  it('keeps the count exact as a session changes its tail, is forgotten or cleared', () => {
    const cache = new SessionCache(roomy, () => false);
    const first = [row('hello'), row('world', 'why')];
    cache.hold(session('a', first));
    expect(cache.chars).toBe(13);
    // An append and a replaced last row (a new version) share the rows before them.
    const appended = session('a', [...first, row('again')]);
    cache.hold(appended);
    expect(cache.chars).toBe(keptChars(appended));
    const replaced = session('a', [first[0]!, row('other text')]);
    cache.hold(replaced);
    expect(cache.chars).toBe(15);
    cache.hold(session('b', [row('abc')]));
    cache.forget('a');
    expect(cache.chars).toBe(3);
    cache.clear();
    expect([cache.chars, cache.count, cache.has('b')]).toEqual([0, 0, false]);
  });

  it('once idle keeps the last used within IDLE_KEPT_SESSIONS and IDLE_KEPT_CHARS, the last one whatever its size, and those that must stay', () => {
    const cache = new SessionCache({ sessions: 100, chars: 10 * IDLE_KEPT_CHARS }, (_id, s) => s.active_stream_id !== undefined);
    cache.hold(session('turning', [row('t')], { active_stream_id: 'turn' }));
    for (let i = 0; i < 20; i++) cache.hold(session(`s${i}`, [row('x'.repeat(100))]));
    cache.releaseIdle();
    // The one with a turn running, however old, counts among the 8: with it the 7 last used (s13..s19).
    expect(Array.from({ length: 20 }, (_, i) => cache.has(`s${i}`))).toEqual(Array.from({ length: 20 }, (_, i) => i > 20 - IDLE_KEPT_SESSIONS));
    expect(cache.has('turning')).toBe(true);
    expect(cache.count).toBe(IDLE_KEPT_SESSIONS);
    expect(cache.chars).toBe((IDLE_KEPT_SESSIONS - 1) * 100 + 1);

    // A long conversation used last stays alone, over IDLE_KEPT_CHARS; the busy limits are as before afterwards.
    cache.hold(session('long', [row('y'.repeat(IDLE_KEPT_CHARS + 1))]));
    cache.releaseIdle();
    expect([cache.has('long'), cache.has('s19'), cache.has('turning')]).toEqual([true, false, true]);
    cache.hold(session('next', [row('z')]));
    expect([cache.has('long'), cache.has('next')]).toEqual([true, true]);
  });
});
