import { describe, expect, it } from 'vitest';
import type { Session } from './api.js';
import { FreshSessions, untouched } from './fresh-session.js';
import type { Draft } from './store.js';

const session = (over: Partial<Session> = {}): Session =>
  ({ session_id: 'aaaaaaaaaaaa', title: 'Untitled', workspace: '/w', profile: 'default', created_at: 't0', updated_at: 't0', messages: [], attachments: [], ...over }) as Session;

function harness(now: Session, draft = { text: '', attachments: [] as unknown[] }) {
  const removed: string[] = [];
  const fresh = new FreshSessions({ read: async () => now, draft: async () => draft, remove: async (id) => void removed.push(id) });
  return { fresh, removed };
}

describe('a new conversation left untouched', () => {
  it('is deleted when left with nothing in it', async () => {
    const { fresh, removed } = harness(session());
    fresh.made(session());
    expect(await fresh.left('aaaaaaaaaaaa', 'bbbbbbbbbbbb')).toBe(true);
    expect(removed).toEqual(['aaaaaaaaaaaa']);
  });
  it('is kept once a message, a file, a change, a draft or typing touched it', async () => {
    for (const now of [session({ messages: [{} as Session['messages'][number]] }), session({ attachments: [{} as Session['attachments'][number]] }), session({ updated_at: 't1' }), session({ active_stream_id: 's' })]) {
      const { fresh, removed } = harness(now);
      fresh.made(session());
      expect(await fresh.left('aaaaaaaaaaaa', undefined)).toBe(false);
      expect(removed).toEqual([]);
    }
    const drafted = harness(session(), { text: 'hello', attachments: [] });
    drafted.fresh.made(session());
    expect(await drafted.fresh.left('aaaaaaaaaaaa', undefined)).toBe(false);
    const typed = harness(session());
    typed.fresh.made(session());
    typed.fresh.noteDraft({ owner: 'aaaaaaaaaaaa', text: 'h', chips: [] } as Draft);
    expect(await typed.fresh.left('aaaaaaaaaaaa', undefined)).toBe(false);
    expect(typed.removed).toEqual([]);
  });
  it('only the one made here, only when it leaves the screen', async () => {
    const { fresh, removed } = harness(session());
    expect(await fresh.left('aaaaaaaaaaaa', 'bbbbbbbbbbbb')).toBe(false);
    fresh.made(session());
    expect(await fresh.left('cccccccccccc', 'aaaaaaaaaaaa')).toBe(false);
    expect(await fresh.left('aaaaaaaaaaaa', 'aaaaaaaaaaaa')).toBe(false);
    expect(removed).toEqual([]);
    expect(untouched(session(), session({ messages_offset: 3 }))).toBe(false);
  });
});
