// The one rule for rows written while a turn runs (queued.ts), on plain sessions: where a row goes, the bound, and
// the order at the turn's end. The paths that call it are tested over sockets (handlers/chat-queued*.test.ts).
import { describe, expect, it } from 'vitest';
import type { Message } from './messages.js';
import { appendWritten, MAX_QUEUED_CHARS, MAX_QUEUED_MESSAGES, QUEUE_FULL, queueHasRoom, storeQueued, writableRows, type QueueHolder } from './queued.js';

const note = (content: string): Message => ({ role: 'user', content });

describe('rows written while a turn runs', () => {
  it('no turn: stored at once; a turn: waiting, then after its rows in the order written', () => {
    const s: QueueHolder = { messages: [note('before')] };
    expect(appendWritten(s, note('a'))).toBe('stored');
    s.active_stream_id = 'f'.repeat(32);
    expect(appendWritten(s, note('b'))).toBe('queued');
    expect(appendWritten(s, note('c'))).toBe('queued');
    expect(s.messages.map((m) => m.content)).toEqual(['before', 'a']);
    // The turn's rows, then the waiting ones.
    s.messages.push(note('question'), { role: 'assistant', content: 'answer' });
    delete s.active_stream_id;
    storeQueued(s);
    expect(s.messages.map((m) => m.content)).toEqual(['before', 'a', 'question', 'answer', 'b', 'c']);
    expect(s.queued_messages).toBeUndefined();
  });

  it('writableRows is the queue while a turn runs, so joining the last row never reaches a row before the turn', () => {
    const s: QueueHolder = { messages: [note('stored')], active_stream_id: 'x' };
    const rows = writableRows(s);
    expect(rows).toBe(s.queued_messages);
    expect(rows).toEqual([]);
    delete s.active_stream_id;
    expect(writableRows(s)).toBe(s.messages);
  });

  it(`refuses past ${MAX_QUEUED_MESSAGES} rows or ${MAX_QUEUED_CHARS} characters: 409 with a sentence, nothing added`, () => {
    const s: QueueHolder = { messages: [], active_stream_id: 'a'.repeat(32) };
    for (let i = 0; i < MAX_QUEUED_MESSAGES; i++) appendWritten(s, note(`n${i}`));
    expect(queueHasRoom(s)).toBe(false);
    expect(() => appendWritten(s, note('one more'))).toThrow(expect.objectContaining({ status: 409, message: QUEUE_FULL, details: { active_stream_id: 'a'.repeat(32) } }));
    expect(s.queued_messages).toHaveLength(MAX_QUEUED_MESSAGES);
    const big: QueueHolder = { messages: [], active_stream_id: 'b' };
    appendWritten(big, note('x'.repeat(MAX_QUEUED_CHARS)));
    expect(() => appendWritten(big, note('y'))).toThrow(QUEUE_FULL);
  });
});
