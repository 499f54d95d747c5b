import { describe, expect, it } from 'vitest';
import type { Message } from './api.js';
import { lastExchangeStart as serverLastExchangeStart } from '../../server/store/messages.js';
import { activeStream, lastExchangeStart, lastUserTurn, normalizeMessage, versionBase, visibleRows } from './message-rows.js';

describe('normalizeMessage', () => {
  it('reads a stored row, the one shape the server sends (it normalizes older rows as it loads them)', () => {
    expect(normalizeMessage({ role: 'user', content: 'hi', timestamp: 1704067200, attachments: [] })).toMatchObject({
      role: 'user',
      text: 'hi',
      time: 1704067200,
      partial: false,
      error: false,
    });
    expect(
      normalizeMessage({
        role: 'assistant',
        content: 'yes',
        timestamp: 1700000000.5,
        reasoning: 'because',
        tool_calls: [{ id: 'c1', function: { name: 'search', arguments: '{}' } }],
      }),
    ).toMatchObject({ role: 'assistant', text: 'yes', time: 1700000000.5, reasoning: 'because', tools: ['search'], attachments: [] });
  });

  it('marks stopped and failed rows', () => {
    expect(normalizeMessage({ role: 'assistant', content: 'half', timestamp: 1, _partial: true }).partial).toBe(true);
    expect(normalizeMessage({ role: 'assistant', content: '**Task cancelled:** x', timestamp: 1, _error: true }).error).toBe(true);
  });

  it('reads a stop row as a stop (a quiet marker), never as a failure, stored now or before error_type', () => {
    const now = { role: 'assistant', content: '**Task cancelled:** Cancelled by user', timestamp: 1, _error: true, error_type: 'cancelled', stopped_by: 'user' } as const;
    expect(normalizeMessage(now)).toMatchObject({ stoppedBy: 'user', failure: null });
    const shutdown = { role: 'assistant', content: '**Task cancelled:** Satchel stopped while the agent was answering', timestamp: 1, _error: true } as const;
    expect(normalizeMessage(shutdown)).toMatchObject({ stoppedBy: 'shutdown', failure: null });
    expect(normalizeMessage({ ...shutdown, content: '**Task cancelled:** Cancelled by user' })).toMatchObject({ stoppedBy: 'user', failure: null });
    // Words alone make no stop: a reply that says so is a reply.
    expect(normalizeMessage({ role: 'assistant', content: '**Task cancelled:** not really', timestamp: 1 }).stoppedBy).toBeNull();
  });

  it('reads a failure row as its two sentences and its button, the label taken off', () => {
    const row = {
      role: 'assistant',
      content: '**Error:** The agent refused the API key (401).',
      timestamp: 1,
      _error: true,
      error_type: 'auth_error',
      error_hint: 'Enter the right API key in Agent settings → Chat agent.',
      error_action: 'agent_settings',
    } as const;
    expect(normalizeMessage(row)).toMatchObject({
      stoppedBy: null,
      failure: { message: 'The agent refused the API key (401).', hint: 'Enter the right API key in Agent settings → Chat agent.', action: 'agent_settings' },
    });
    const interrupted = { role: 'assistant', content: '**Interrupted:** Satchel stopped before the agent finished answering.', timestamp: 1, _error: true, error_type: 'interrupted' } as const;
    expect(normalizeMessage(interrupted).failure).toEqual({ message: 'Satchel stopped before the agent finished answering.', hint: undefined, action: undefined });
    // A row stored before hints: its words, no button.
    expect(normalizeMessage({ role: 'assistant', content: '**Error:** boom', timestamp: 1, _error: true }).failure).toEqual({ message: 'boom', hint: undefined, action: undefined });
    expect(normalizeMessage({ role: 'assistant', content: 'fine', timestamp: 1 }).failure).toBeNull();
  });
});

describe('visibleRows and lastUserTurn', () => {
  const messages: Message[] = [
    { role: 'user', content: 'first', timestamp: 1 },
    { role: 'assistant', content: 'a', timestamp: 2 },
    { role: 'user', content: 'second', timestamp: 3, attachments: [{ filename: 'a.txt', path: '/x/a.txt', size: 1, mime: 'text/plain', is_image: false }] },
    { role: 'tool', tool_call_id: 'c1', content: 'result' },
    { role: 'assistant', content: 'b', timestamp: 4 },
  ];
  it('hides tool result rows and finds the last user turn with its attachments', () => {
    const rows = visibleRows(messages);
    expect(rows.map((r) => r.text)).toEqual(['first', 'a', 'second', 'b']);
    expect(lastUserTurn(rows)).toMatchObject({ index: 2, text: 'second', attachments: [{ filename: 'a.txt' }] });
    expect(lastUserTurn([])).toBeNull();
  });
  it('names the running stream of a session', () => {
    expect(activeStream({ active_stream_id: 'abc' } as never)).toBe('abc');
    expect(activeStream({} as never)).toBeNull();
    expect(activeStream(null)).toBeNull();
  });
  it('drops the last exchange as the server does (its last user row and every row after it), and nothing when there is none', () => {
    const none: Message[] = [{ role: 'assistant', content: 'hello', timestamp: 1 }];
    for (const rows of [messages, none, [], [...messages, { role: 'user', content: 'third', timestamp: 5 }]] as Message[][]) {
      expect(lastExchangeStart(rows)).toBe(serverLastExchangeStart(rows));
    }
    expect(lastExchangeStart(messages)).toBe(2);
    expect(lastExchangeStart(none)).toBe(-1);
    expect(versionBase(messages).map((m) => m.content)).toEqual(['first', 'a']);
    expect(versionBase(none)).toEqual(none);
    // An Edit of an earlier message: the rows before it.
    expect(versionBase(messages, 0)).toEqual([]);
  });
  it('keeps each row’s place in messages (tool rows skipped) and its versions, when they make sense', () => {
    const rows = visibleRows([
      { role: 'user', content: 'q', timestamp: 1, versions: { index: 1, count: 2, edited: false } },
      { role: 'tool', content: 'result', timestamp: 2 },
      { role: 'assistant', content: 'a', timestamp: 3 },
      { role: 'user', content: 'q2', timestamp: 4, versions: { index: 2, count: 2, edited: true } },
    ]);
    expect(rows.map((r) => r.index)).toEqual([0, 2, 3]);
    // A summary without its two levels (an older server's) gets them from `edited`: Regenerate's, the replies.
    expect(rows[0]!.versions).toEqual({ index: 1, count: 2, edited: false, message: { index: 0, count: 1, versions: [1] }, reply: { index: 1, count: 2, versions: [0, 1] } });
    expect(rows[2]!.versions).toBeUndefined();
  });
});
