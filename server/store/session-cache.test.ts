// The sessions kept whole in memory (session-cache.ts): the least recently used go first, within both limits,
// never the one just kept nor one that must stay, and the characters counted stay exact as sessions change.
import { describe, expect, it } from 'vitest';
import type { Message } from './messages.js';
import { keptChars, SessionCache } from './session-cache.js';
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
});
