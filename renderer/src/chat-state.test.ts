import { describe, expect, it } from 'vitest';
import { frameSeq, initialTurn, reduceFrame, usageLine, type TurnState } from './chat-state.js';

const fold = (frames: [string, unknown, number?][], start: TurnState = initialTurn('s1', 'sess')) =>
  frames.reduce((st, [name, data, seq]) => reduceFrame(st, name, data, seq), start);

describe('reduceFrame', () => {
  it('appends tokens and reasoning in order and ends with the stored session summary and usage', () => {
    const session = { session_id: 'sess', title: 'Untitled', workspace: '/w', profile: 'default', created_at: 'c', updated_at: 'u', message_count: 2 };
    const usage = { input_tokens: 12, output_tokens: 3, duration_seconds: 1.5, ttft_ms: 200 };
    const st = fold([
      ['reasoning', { text: 'hm' }, 1],
      ['token', { text: 'Hel' }, 2],
      ['reasoning', { text: 'm.' }, 3],
      ['token', { text: 'lo' }, 4],
      ['done', { session, usage }, 5],
      ['title', { session_id: 'sess', title: 'Greeting' }, 6],
      ['stream_end', { session_id: 'sess' }, 7],
    ]);
    expect(st).toMatchObject({ text: 'Hello', reasoning: 'hmm.', status: 'done', ended: true, title: 'Greeting', usage, session, lastSeq: 7 });
  });

  it('skips frames it has already folded in, so a replay overlap never doubles text', () => {
    const once = fold([['token', { text: 'a' }, 1], ['token', { text: 'b' }, 2]]);
    const again = fold([['token', { text: 'a' }, 1], ['token', { text: 'b' }, 2], ['token', { text: 'c' }, 3]], once);
    expect(again.text).toBe('abc');
  });

  it('turns a tool start and its completion into one card with its duration, failures marked', () => {
    const st = fold([
      ['tool', { event_type: 'tool.started', name: 'search', preview: 'q=cats', args: {}, tid: 't1' }],
      ['tool', { event_type: 'tool.started', name: 'read', preview: 'a.txt', args: {}, tid: 't2' }],
      ['tool_complete', { event_type: 'tool.completed', name: 'search', preview: 'q=cats', args: {}, tid: 't1', duration: 0.42, is_error: false }],
    ]);
    expect(st.tools).toEqual([
      { tid: 't1', name: 'search', preview: 'q=cats', status: 'done', duration: 0.42 },
      { tid: 't2', name: 'read', preview: 'a.txt', status: 'running', duration: undefined },
    ]);
    const failed = reduceFrame(st, 'tool_complete', { name: 'read', tid: 't2', duration: 1, is_error: true });
    expect(failed.tools[1]).toMatchObject({ status: 'failed', duration: 1 });
  });

  it('keeps the partial text when the turn is cancelled or fails', () => {
    const cancelled = fold([['token', { text: 'half' }], ['cancel', { message: 'Cancelled by user', type: 'cancelled' }]]);
    expect(cancelled).toMatchObject({ text: 'half', status: 'cancelled' });
    const failed = fold([['token', { text: 'x' }], ['apperror', { message: 'HTTP 401', type: 'auth_error', hint: 'Set a key' }]]);
    expect(failed).toMatchObject({ text: 'x', status: 'error', error: { type: 'auth_error', message: 'HTTP 401', hint: 'Set a key' } });
  });

  it('reads an error type it does not know (a newer server, a broken one) as upstream_error', () => {
    expect(fold([['apperror', { message: 'odd', type: 'quota_exceeded' }]]).error).toEqual({ type: 'upstream_error', message: 'odd', hint: undefined });
    expect(fold([['apperror', { message: 'odd', type: 'toString' }]]).error?.type).toBe('upstream_error');
    expect(fold([['apperror', { message: 'late', type: 'timeout' }]]).error?.type).toBe('timeout');
  });

  it('ignores unknown events and malformed data', () => {
    const st = fold([['token', null], ['future_event', { text: 'x' }], ['token', { text: 5 }]]);
    expect(st.text).toBe('');
    expect(st.status).toBe('streaming');
  });
});

describe('frameSeq', () => {
  it('reads the seq of this stream’s frame ids only', () => {
    expect(frameSeq('abc:12', 'abc')).toBe(12);
    expect(frameSeq('other:12', 'abc')).toBeNull();
    expect(frameSeq('abc:x', 'abc')).toBeNull();
    expect(frameSeq('abc', 'abc')).toBeNull();
  });
});

describe('how a turn ended, and usageLine', () => {
  it('an apperror keeps its two sentences and its action, adding none of its own', () => {
    const hint = 'Enter the right API key in Agent settings → Chat agent.';
    const failed = reduceFrame(initialTurn('s', 'x'), 'apperror', { message: 'The agent refused the API key (401).', type: 'auth_error', hint, action: 'agent_settings' });
    expect(failed.status).toBe('error');
    expect(failed.error).toEqual({ type: 'auth_error', message: 'The agent refused the API key (401).', hint, action: 'agent_settings' });
    // An action this page does not know (a newer server's) gives no button rather than a wrong one.
    expect(reduceFrame(initialTurn('s', 'x'), 'apperror', { message: 'm', type: 'timeout', action: 'reboot' }).error?.action).toBeUndefined();
  });
  it('a cancel is a stop, not an error, and says who stopped', () => {
    const stopped = reduceFrame(initialTurn('s', 'x'), 'cancel', { message: 'Cancelled by user', type: 'cancelled', status: 'cancelled', stopped_by: 'user' });
    expect(stopped).toMatchObject({ status: 'cancelled', stoppedBy: 'user' });
    expect(stopped.error).toBeUndefined();
    expect(reduceFrame(initialTurn('s', 'x'), 'cancel', { stopped_by: 'shutdown' }).stoppedBy).toBe('shutdown');
    // The original's server sends no stopped_by: the person's Stop.
    expect(reduceFrame(initialTurn('s', 'x'), 'cancel', { message: 'Cancelled by user' }).stoppedBy).toBe('user');
  });
  it('says what a turn used', () => {
    expect(usageLine({ input_tokens: 12, output_tokens: 40, duration_seconds: 3.24, ttft_ms: 410.2 })).toBe('12 in · 40 out · 3.2 s · first token 410 ms');
    expect(usageLine(undefined)).toBe('');
  });
  it('says nothing of tokens the agent did not report, rather than "0 in · 0 out"', () => {
    expect(usageLine({ input_tokens: 0, output_tokens: 0, duration_seconds: 1.5, ttft_ms: 200, reported: false })).toBe('');
    expect(usageLine({ input_tokens: 0, output_tokens: 3, duration_seconds: 1.5, ttft_ms: null, reported: true })).toBe('0 in · 3 out · 1.5 s');
  });
});

describe('the context frame (issue 36)', () => {
  it('keeps what the turn gave the agent of the documents; a frame of another session, or malformed, changes nothing', () => {
    const frame = { session_id: 'x', documents: [{ name: 'report.pdf', origin: 'attachment', state: 'passages', where: 'pages 2–3' }], summary: 'The agent has 0 of 1 documents whole', via: 'sent' };
    const st = reduceFrame(initialTurn('s', 'x'), 'context', frame, 3);
    expect(st.context).toEqual({ documents: [{ name: 'report.pdf', origin: 'attachment', state: 'passages', where: 'pages 2–3' }], summary: 'The agent has 0 of 1 documents whole', via: 'sent' });
    expect(st.lastSeq).toBe(3);
    expect(reduceFrame(initialTurn('s', 'x'), 'context', { ...frame, session_id: 'y' }).context).toBeUndefined();
    expect(reduceFrame(initialTurn('s', 'x'), 'context', { session_id: 'x', summary: 'no documents list' }).context).toBeUndefined();
  });

  it('folds `answered_by` (who is asked) for this session only, its strings only', () => {
    const st = reduceFrame(initialTurn('s', 'x'), 'answered_by', { connection: 'main', agent: 'Home box', model: 'model-a', session_id: 'x' }, 1);
    expect(st.answeredBy).toEqual({ agent: 'Home box', model: 'model-a' });
    expect(reduceFrame(st, 'token', { text: 'Hi' }, 2).answeredBy).toEqual({ agent: 'Home box', model: 'model-a' });
    expect(reduceFrame(initialTurn('s', 'x'), 'answered_by', { agent: 'Home box', session_id: 'y' }).answeredBy).toBeUndefined();
    expect(reduceFrame(initialTurn('s', 'x'), 'answered_by', { agent: 7, model: '', session_id: 'x' }).answeredBy).toBeUndefined();
    expect(reduceFrame(initialTurn('s', 'x'), 'answered_by', { model: 'model-b', session_id: 'x' }).answeredBy).toEqual({ model: 'model-b' });
  });
});
