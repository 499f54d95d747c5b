import { describe, expect, it } from 'vitest';
import type { Message, MessageSummaryAnswer, Session } from './api.js';
import { foldMessage } from './message-answer.js';

const row = (content: string): Message => ({ role: 'user', content, timestamp: 1, attachments: [] });
const held: Session = {
  session_id: 'aaaaaaaaaaaa',
  title: 'Trip',
  workspace: '/w',
  profile: 'default',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:01.000Z',
  pinned: false,
  archived: false,
  messages: [row('one'), row('two')],
  attachments: [],
  model: 'm',
};
const answer = (at: number, content: string, extra: Partial<MessageSummaryAnswer['session']> = {}): MessageSummaryAnswer => ({
  session: { ...held, message_count: at + 1, updated_at: '2026-01-01T00:00:02.000Z', ...extra },
  message_index: at,
  message: row(content),
});

describe('foldMessage', () => {
  it('appends the stored row and takes the summary header, keeping what the summary does not carry', () => {
    const folded = foldMessage(held, answer(2, 'three', { title: 'Trip to Lisbon' }))!;
    expect(folded.messages.map((m) => m.content)).toEqual(['one', 'two', 'three']);
    expect(folded).toMatchObject({ title: 'Trip to Lisbon', updated_at: '2026-01-01T00:00:02.000Z', model: 'm' });
    expect(folded).not.toHaveProperty('message_count');
    expect(held.messages).toHaveLength(2);
  });

  it('replaces every row from the index on for a new version', () => {
    expect(foldMessage(held, answer(0, 'one, edited'))!.messages.map((m) => m.content)).toEqual(['one, edited']);
  });

  it('gives up (the caller reads the session whole) when the copy held cannot take it', () => {
    expect(foldMessage(null, answer(2, 'x'))).toBeNull();
    expect(foldMessage({ ...held, session_id: 'bbbbbbbbbbbb' }, answer(2, 'x'))).toBeNull();
    // Another window added a row this one has not seen.
    expect(foldMessage(held, answer(3, 'x'))).toBeNull();
    expect(foldMessage(held, { ...answer(2, 'x'), message_index: -1 })).toBeNull();
    expect(foldMessage(held, answer(2, 'x', { message_count: 7 }))).toBeNull();
  });
});
