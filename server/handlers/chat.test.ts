// The chat contract (docs/spec-notes.md, "Chat: browser side") over real sockets, against a scripted upstream:
// frames and their order, ids, resume, several watchers, cancel, refusals, heartbeat, crash recovery.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CONCURRENT_TURNS } from '../agent/turns.js';
import { AgentError } from '../agent/types.js';
import { WRONG_KEY_HINT } from '../agent/upstream-errors.js';
import { startServer } from '../index.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';
import { scriptedAgent, TEST_AGENT_CONFIG, type ScriptedAgent } from '../testing/scripted-agent.js';
import { openSse, seqOf, type SseFrame } from '../testing/sse.js';
import { editStoredSession, storedJson } from '../testing/stored-session.js';

const HEARTBEAT_MS = 150;
let srv: TestServer;
let agent: ScriptedAgent;
let turnCount = 0;

beforeAll(async () => {
  agent = scriptedAgent();
  srv = await startTestServer({ chatHeartbeatMs: HEARTBEAT_MS, agent: { streamTurn: agent.streamTurn, loadConfig: () => TEST_AGENT_CONFIG } });
});
afterAll(async () => {
  await srv.stop();
});

async function start(body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await srv.json('/api/chat/start', body);
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** Start a turn and return its stream id and the scripted upstream turn behind it. */
async function startTurn(sessionId: string, message = 'Plan a trip to Lisbon') {
  const { status, json } = await start({ session_id: sessionId, message });
  expect(status, JSON.stringify(json)).toBe(200);
  const upstream = await agent.turn(turnCount++);
  return { streamId: json.stream_id as string, upstream, json };
}

const sse = (pathname: string, headers?: Record<string, string>) => openSse(srv.port, pathname, headers);
const events = (frames: SseFrame[]) => frames.map((f) => f.event);
const data = (frame: SseFrame) => JSON.parse(frame.data!) as Record<string, unknown>;
const storedSession = async (id: string) => await storedJson(srv.stateDir, id);

describe('POST /api/chat/start', () => {
  it('refuses with the contract texts', async () => {
    const id = await srv.newSession();
    expect(await start({ message: 'hi' })).toEqual({ status: 400, json: { error: 'Missing required field(s): session_id' } });
    expect(await start({ session_id: id, message: '  ' })).toEqual({ status: 400, json: { error: 'message is required' } });
    expect(await start({ session_id: 'abcdefabcdef', message: 'hi' })).toEqual({ status: 404, json: { error: 'Session not found' } });
    const other = await srv.newSession({ profile: 'work' });
    expect(await start({ session_id: other, message: 'hi' })).toEqual({ status: 404, json: { error: 'Session not found' } });
    expect((await start({ session_id: id, message: 'hi', attachments: [{ path: '/etc/passwd' }] })).json).toEqual({ error: 'Unknown attachment' });
    expect(await start({ session_id: id, message: '[SILENT]' })).toEqual({ status: 200, json: { status: 'suppressed', reason: 'silent_control_message' } });
    expect(agent.turns.length).toBe(turnCount);
    expect((await storedSession(id)).messages).toEqual([]);
  });

  it('records the pending turn before the agent is asked, and refuses a second turn with 409', async () => {
    const id = await srv.newSession();
    const { streamId, upstream, json } = await startTurn(id, 'What is the weather?');
    expect(streamId).toMatch(/^[0-9a-f]{32}$/);
    expect(json).toMatchObject({ session_id: id, title: 'What is the weather?' });
    expect(typeof json.pending_started_at).toBe('number');
    // The upstream has been asked; the session on disk already holds what the person sent.
    expect(await storedSession(id)).toMatchObject({ active_stream_id: streamId, pending_user_message: 'What is the weather?', pending_attachments: [] });
    expect(upstream.request.messages.at(-1)).toEqual({ role: 'user', content: 'What is the weather?' });
    expect(await start({ session_id: id, message: 'again' })).toEqual({
      status: 409,
      json: { error: 'session already has an active stream', active_stream_id: streamId },
    });
    upstream.push({ kind: 'token', text: 'Sunny.' });
    upstream.finish();
    const stream = await sse(`/api/chat/stream?stream_id=${streamId}`);
    await stream.ended();
  });
});

describe('what the agent is sent', () => {
  it('sends rows stored without the agent as history, and an uploaded file of this session as input', async () => {
    const id = await srv.newSession();
    await srv.json('/api/session/message', { session_id: id, text: 'an earlier note' });
    const form = new FormData();
    form.append('session_id', id);
    form.append('file', new Blob(['fig, olive, almond']), 'pantry.txt');
    const uploaded = (await (await srv.api('/api/upload', { method: 'POST', body: form })).json()) as { path: string };
    const { status, json } = await start({ session_id: id, message: 'what can I cook?', attachments: [uploaded] });
    expect(status, JSON.stringify(json)).toBe(200);
    const upstream = await agent.turn(turnCount++);
    const [history, user] = [upstream.request.messages[0]!, upstream.request.messages.at(-1)!];
    expect(history).toEqual({ role: 'user', content: 'an earlier note' });
    expect(JSON.stringify(user.content)).toContain('fig, olive, almond');
    expect((await storedSession(id)).pending_attachments).toMatchObject([{ filename: 'pantry.txt', path: uploaded.path }]);
    upstream.finish();
    const stream = await sse(`/api/chat/stream?stream_id=${json.stream_id}`);
    await stream.ended();
  });
});

describe('regenerate: replacing the last exchange', () => {
  /** Start a turn with `body`, answer it `answer`, and wait until it is stored. */
  async function exchange(body: Record<string, unknown>, answer: string) {
    const { status, json } = await start(body);
    expect(status, JSON.stringify(json)).toBe(200);
    const upstream = await agent.turn(turnCount++);
    upstream.push({ kind: 'token', text: answer });
    upstream.finish();
    const stream = await sse(`/api/chat/stream?stream_id=${json.stream_id}`);
    await stream.ended();
    return upstream;
  }

  it('drops the last user row and its answer, and asks again with that message and its attachments', async () => {
    const id = await srv.newSession();
    const form = new FormData();
    form.append('session_id', id);
    form.append('file', new Blob(['fig, olive, almond']), 'pantry.txt');
    const uploaded = (await (await srv.api('/api/upload', { method: 'POST', body: form })).json()) as { path: string };
    await exchange({ session_id: id, message: 'What is the weather?' }, 'Sunny.');
    await exchange({ session_id: id, message: 'What can I cook?', attachments: [uploaded] }, 'OLD ANSWER: a fig tart.');

    const { status, json } = await start({ session_id: id, regenerate: true });
    expect(status, JSON.stringify(json)).toBe(200);
    const upstream = await agent.turn(turnCount++);
    // Already dropped in the write that recorded the pending turn.
    const pending = await storedSession(id);
    expect(pending.messages.map((m: { content: string }) => m.content)).toEqual(['What is the weather?', 'Sunny.']);
    expect(pending).toMatchObject({ active_stream_id: json.stream_id, pending_user_message: 'What can I cook?', pending_attachments: [{ path: uploaded.path }] });
    const sent = JSON.stringify(upstream.request.messages);
    expect(sent).not.toContain('OLD ANSWER');
    expect(sent.split('What can I cook?')).toHaveLength(2);
    expect(sent).toContain('fig, olive, almond');
    expect(upstream.request.messages.slice(0, 2)).toEqual([
      { role: 'user', content: 'What is the weather?' },
      { role: 'assistant', content: 'Sunny.' },
    ]);
    upstream.push({ kind: 'token', text: 'NEW ANSWER: olive bread.' });
    upstream.finish();
    await (await sse(`/api/chat/stream?stream_id=${json.stream_id}`)).ended();
    const stored = await storedSession(id);
    expect(stored.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'What is the weather?'],
      ['assistant', 'Sunny.'],
      ['user', 'What can I cook?'],
      ['assistant', 'NEW ANSWER: olive bread.'],
    ]);
    expect(stored.messages[2].attachments).toMatchObject([{ path: uploaded.path }]);
  });

  it('replaces the last message when one is given (edit and resend), error rows included', async () => {
    const id = await srv.newSession();
    await exchange({ session_id: id, message: 'What is the weather?' }, 'Sunny.');
    const { json } = await start({ session_id: id, message: 'and tomorow?' });
    const failing = await agent.turn(turnCount++);
    failing.fail(new AgentError('rate_limit', 'The agent is rate-limited (429)'));
    await (await sse(`/api/chat/stream?stream_id=${json.stream_id}`)).ended();
    expect((await storedSession(id)).messages).toHaveLength(4);

    const upstream = await exchange({ session_id: id, regenerate: true, message: 'and tomorrow?' }, 'Rain.');
    expect(JSON.stringify(upstream.request.messages)).not.toContain('tomorow');
    const stored = await storedSession(id);
    expect(stored.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'What is the weather?'],
      ['assistant', 'Sunny.'],
      ['user', 'and tomorrow?'],
      ['assistant', 'Rain.'],
    ]);
  });

  it('drops nothing when the turn cannot start', async () => {
    const empty = await srv.newSession();
    expect(await start({ session_id: empty, regenerate: true })).toEqual({ status: 400, json: { error: 'Nothing to regenerate: the session has no message' } });
    const id = await srv.newSession();
    await exchange({ session_id: id, message: 'What is the weather?' }, 'Sunny.');
    expect(await start({ session_id: id, regenerate: true, message: '  ', attachments: [] })).toEqual({ status: 400, json: { error: 'message is required' } });
    const { streamId, upstream } = await startTurn(id, 'and tomorrow?');
    expect(await start({ session_id: id, regenerate: true })).toEqual({
      status: 409,
      json: { error: 'session already has an active stream', active_stream_id: streamId },
    });
    expect(agent.turns.length).toBe(turnCount);
    expect((await storedSession(id)).messages.map((m: { content: string }) => m.content)).toEqual(['What is the weather?', 'Sunny.']);
    upstream.push({ kind: 'token', text: 'Rain.' });
    upstream.finish();
    await (await sse(`/api/chat/stream?stream_id=${streamId}`)).ended();
    expect((await storedSession(id)).messages).toHaveLength(4);
  });
});

describe('GET /api/chat/stream', () => {
  it('sends a turn as numbered frames ending done → metering → title → stream_end, and stores it', async () => {
    const id = await srv.newSession();
    const { streamId, upstream } = await startTurn(id, '  Plan   a trip\nto Lisbon in spring, with a day in Sintra and two in Porto please  ');
    const stream = await sse(`/api/chat/stream?stream_id=${streamId}`);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers['cache-control']).toBe('no-cache');
    expect(stream.headers['content-encoding']).toBeUndefined();
    upstream.push(
      { kind: 'reasoning', text: 'Think of trains.' },
      { kind: 'tool', name: 'search', preview: 'trains', args: { q: 'trains' }, tid: 't1' },
      { kind: 'tool_complete', name: 'search', preview: 'trains', args: { q: 'trains' }, tid: 't1', duration: 0.5, isError: false },
      { kind: 'token', text: 'Day 1: ' },
      { kind: 'token', text: 'Alfama.' },
      { kind: 'tool_calls', calls: [{ id: 'c1', function: { name: 'search', arguments: '{"q":"trains"}' } }] },
      { kind: 'usage', inputTokens: 12, outputTokens: 4 },
    );
    upstream.finish();
    await stream.ended();
    const frames = stream.frames();
    // Who is asked comes first (issue 38, item 6: the reply's header says it while it streams).
    expect(events(frames)).toEqual(['answered_by', 'reasoning', 'tool', 'tool_complete', 'token', 'token', 'done', 'metering', 'title', 'stream_end']);
    expect(frames.map((f) => f.id)).toEqual(frames.map((_, i) => `${streamId}:${i + 1}`));
    expect(data(frames[0]!)).toEqual({ model: TEST_AGENT_CONFIG.model, session_id: id });
    expect(data(frames[2]!)).toEqual({ event_type: 'tool.started', name: 'search', preview: 'trains', args: { q: 'trains' }, tid: 't1' });
    expect(data(frames[3]!)).toMatchObject({ duration: 0.5, is_error: false, tid: 't1' });
    const done = data(frames[6]!) as { session: Record<string, unknown>; usage: Record<string, unknown> };
    expect(done.usage).toMatchObject({ input_tokens: 12, output_tokens: 4 });
    expect(typeof done.usage.duration_seconds).toBe('number');
    expect(typeof done.usage.ttft_ms).toBe('number');
    const title = 'Plan a trip to Lisbon in spring, with a day in Sintra and…';
    expect(data(frames[8]!)).toEqual({ session_id: id, title });
    expect(title.length).toBeLessThanOrEqual(60);
    expect(data(frames[9]!)).toEqual({ session_id: id });
    const stored = await storedSession(id);
    expect(stored.active_stream_id).toBeUndefined();
    expect(stored.pending_user_message).toBeUndefined();
    expect(stored.title).toBe(title);
    expect(stored.messages).toMatchObject([
      { role: 'user', content: '  Plan   a trip\nto Lisbon in spring, with a day in Sintra and two in Porto please  ', attachments: [] },
      { role: 'assistant', content: 'Day 1: Alfama.', reasoning: 'Think of trains.', tool_calls: [{ id: 'c1', function: { name: 'search' } }] },
    ]);
    expect(typeof stored.messages[1].timestamp).toBe('number');
    // `done` carries the session's summary (as GET /api/sessions lists it), not its messages: it stays small
    // whatever the reply, and the client reads the stored turn with GET /api/session.
    const viaApi = (await (await srv.api(`/api/session?session_id=${id}`)).json()) as { session: Record<string, unknown> };
    const { messages: _messages, attachments: _attachments, ...header } = viaApi.session;
    expect(done.session).toEqual({ ...header, message_count: 2 });
    expect(done.session).not.toHaveProperty('messages');
  });

  it('resumes after_seq and Last-Event-ID with no duplicate and no gap, to several watchers at once', async () => {
    const id = await srv.newSession();
    const { streamId, upstream } = await startTurn(id);
    const first = await sse(`/api/chat/stream?stream_id=${streamId}`);
    upstream.push({ kind: 'token', text: 'Hi' }, { kind: 'token', text: ' you' }, { kind: 'token', text: ' all' });
    // Seq 1 is `answered_by`, then the three tokens.
    await first.until((f) => seqOf(f) === 4);
    const bySeq = await sse(`/api/chat/stream?stream_id=${streamId}&after_seq=2`);
    const byHeader = await sse(`/api/chat/stream?stream_id=${streamId}`, { 'Last-Event-ID': `${streamId}:3` });
    const original = await sse(`/api/chat/stream?stream_id=${streamId}&replay=1&after_event_id=${streamId}:4`);
    await bySeq.until((f) => seqOf(f) === 4);
    upstream.push({ kind: 'token', text: ' now.' });
    upstream.finish();
    for (const s of [first, bySeq, byHeader, original]) await s.ended();
    const seqs = (s: typeof first) => s.frames().map(seqOf);
    const all = first.frames();
    expect(events(all)).toEqual(['answered_by', 'token', 'token', 'token', 'token', 'done', 'title', 'stream_end']);
    expect(seqs(first)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(seqs(bySeq)).toEqual([3, 4, 5, 6, 7, 8]);
    expect(seqs(byHeader)).toEqual([4, 5, 6, 7, 8]);
    expect(seqs(original)).toEqual([5, 6, 7, 8]);
    // The same bytes to every watcher.
    expect(bySeq.frames()).toEqual(all.slice(2));
    // An ended stream is still replayable.
    const late = await sse(`/api/chat/stream?stream_id=${streamId}&after_seq=5`);
    await late.ended();
    expect(late.frames()).toEqual(all.slice(5));
    const status = (await (await srv.api(`/api/chat/stream/status?stream_id=${streamId}`)).json()) as Record<string, unknown>;
    expect(status).toEqual({ active: false, stream_id: streamId, replay_available: true, last_seq: 8, terminal: true });
  });

  it('answers 404 for an unknown stream, 400 without a stream id', async () => {
    const unknown = await srv.api('/api/chat/stream?stream_id=0123456789abcdef0123456789abcdef');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'stream not found' });
    const missing = await srv.api('/api/chat/stream');
    expect(await missing.json()).toEqual({ error: 'stream_id required' });
    const status = (await (await srv.api('/api/chat/stream/status?stream_id=nope')).json()) as Record<string, unknown>;
    expect(status).toEqual({ active: false, stream_id: 'nope', replay_available: false, last_seq: 0, terminal: false });
  });

  it('masks a credential the agent streams split across tokens, live and stored', async () => {
    const secret = 'AKIAIOSFODNN7EXAMPLE';
    const id = await srv.newSession();
    const { streamId, upstream } = await startTurn(id);
    const stream = await sse(`/api/chat/stream?stream_id=${streamId}`);
    upstream.push(
      ...['Your key is ', 'AK', 'IAIO', 'SFOD', 'NN7E', 'XAMPLE', ' — rotate it.'].map((text) => ({ kind: 'token' as const, text })),
    );
    upstream.finish();
    await stream.ended();
    const live = stream
      .frames()
      .filter((f) => f.event === 'token')
      .map((f) => data(f).text as string)
      .join('');
    expect(live).toBe('Your key is AKIAIO...MPLE — rotate it.');
    expect(JSON.stringify(stream.frames())).not.toContain('SFODNN7E');
  });

  it('sends a heartbeat comment when the agent is silent', async () => {
    const id = await srv.newSession();
    const { streamId, upstream } = await startTurn(id);
    const stream = await sse(`/api/chat/stream?stream_id=${streamId}`);
    const t0 = Date.now();
    await stream.until((b) => b.comments.includes(' heartbeat'), HEARTBEAT_MS * 10);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(HEARTBEAT_MS - 20);
    const status = (await (await srv.api(`/api/chat/stream/status?stream_id=${streamId}`)).json()) as Record<string, unknown>;
    // Only `answered_by` so far.
    expect(status).toMatchObject({ active: true, terminal: false, last_seq: 1 });
    upstream.finish();
    await stream.ended();
  });

  it('ends a failed turn with apperror then stream_end, and stores the message with an error row', async () => {
    const id = await srv.newSession();
    const { streamId, upstream } = await startTurn(id, 'hello');
    upstream.push({ kind: 'token', text: 'Hal' });
    upstream.fail(new AgentError('auth_error', 'The agent refused the API key (401).', WRONG_KEY_HINT));
    const stream = await sse(`/api/chat/stream?stream_id=${streamId}`);
    await stream.ended();
    const frames = stream.frames();
    expect(events(frames)).toEqual(['answered_by', 'token', 'apperror', 'stream_end']);
    expect(data(frames[2]!)).toEqual({
      message: 'The agent refused the API key (401).',
      type: 'auth_error',
      hint: 'Enter the right API key in Agent settings → Chat agent.',
      action: 'agent_settings',
      session_id: id,
    });
    const stored = await storedSession(id);
    expect(stored.messages).toMatchObject([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'Hal', _partial: true },
      {
        role: 'assistant',
        content: '**Error:** The agent refused the API key (401).',
        _error: true,
        error_type: 'auth_error',
        error_hint: 'Enter the right API key in Agent settings → Chat agent.',
        error_action: 'agent_settings',
      },
    ]);
    expect(stored.active_stream_id).toBeUndefined();
  });
});

describe('cancel', () => {
  it('aborts the upstream, stores the partial answer, emits cancel then stream_end', async () => {
    const id = await srv.newSession();
    const { streamId, upstream } = await startTurn(id, 'write a long story');
    const stream = await sse(`/api/chat/stream?stream_id=${streamId}`);
    upstream.push({ kind: 'token', text: 'Once upon' });
    await stream.until((f) => f.event === 'token');
    const foreign = await srv.api(`/api/chat/cancel?stream_id=${streamId}`, { headers: { Origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    const crossSite = await srv.api(`/api/chat/cancel?stream_id=${streamId}`, { headers: { 'Sec-Fetch-Site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    expect((await srv.api('/api/chat/cancel')).status).toBe(400);
    const res = await srv.api(`/api/chat/cancel?stream_id=${streamId}`);
    expect(await res.json()).toEqual({ ok: true, cancelled: true, stream_id: streamId });
    await stream.ended();
    expect(upstream.signal.aborted).toBe(true);
    const frames = stream.frames();
    expect(events(frames)).toEqual(['answered_by', 'token', 'cancel', 'stream_end']);
    expect(data(frames[2]!)).toEqual({ message: 'Cancelled by user', type: 'cancelled', status: 'cancelled', stopped_by: 'user', session_id: id });
    const stored = await storedSession(id);
    expect(stored.messages).toMatchObject([
      { role: 'user', content: 'write a long story' },
      { role: 'assistant', content: 'Once upon', _partial: true },
      { role: 'assistant', content: '**Task cancelled:** Cancelled by user', _error: true, error_type: 'cancelled', stopped_by: 'user' },
    ]);
    expect(stored.active_stream_id).toBeUndefined();
    // Nothing left to cancel; POST works the same.
    const again = await srv.json('/api/chat/cancel', { stream_id: streamId });
    expect(await again.json()).toEqual({ ok: true, cancelled: false, stream_id: streamId });
  });
});

describe('the bound on turns', () => {
  it(`runs at most ${MAX_CONCURRENT_TURNS} turns at once, then refuses with 503 until one ends`, async () => {
    const running = [];
    for (let i = 0; i < MAX_CONCURRENT_TURNS; i++) running.push(await startTurn(await srv.newSession(), `turn ${i}`));
    const extra = await srv.newSession();
    const refused = await start({ session_id: extra, message: 'one more' });
    expect(refused.status).toBe(503);
    expect(refused.json.error).toMatch(/Too many conversations/);
    expect((await storedSession(extra)).active_stream_id).toBeUndefined();
    const first = running[0]!;
    first.upstream.finish();
    await (await sse(`/api/chat/stream?stream_id=${first.streamId}`)).ended();
    const next = await startTurn(extra, 'one more');
    for (const t of [...running.slice(1), next]) {
      expect(await (await srv.api(`/api/chat/cancel?stream_id=${t.streamId}`)).json()).toMatchObject({ cancelled: true });
      await (await sse(`/api/chat/stream?stream_id=${t.streamId}`)).ended();
    }
  });
});

describe('without an agent, across a restart', () => {
  it('answers 503 with a hint when no agent is configured', async () => {
    const bare = await startTestServer({ agent: { loadConfig: () => undefined } });
    try {
      const id = await bare.newSession();
      const res = await bare.json('/api/chat/start', { session_id: id, message: 'hi' });
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: string; hint: string };
      expect(body).toEqual({
        error: 'No agent is configured',
        hint: 'Connect one in Agent settings → Chat agent, or start Satchel with SATCHEL_AGENT_BASE_URL.',
        action: 'agent_settings',
      });
    } finally {
      await bare.stop();
    }
  });

  it('marks a turn Satchel did not finish as interrupted, keeping what was sent', async () => {
    const first = await startTestServer();
    const id = await first.newSession();
    await first.close();
    await editStoredSession(first.stateDir, id, (session) => {
      Object.assign(session, { active_stream_id: 'f'.repeat(32), pending_user_message: 'are you there?', pending_attachments: [], pending_started_at: 1700000000.5 });
    });
    const second = await startServer({ host: '127.0.0.1', port: 0, stateDir: first.stateDir, token: TEST_TOKEN, maxUploadBytes: 1024, defaultWorkspace: first.workspace });
    try {
      const res = await fetch(`${second.origin}/api/session?session_id=${id}`, { headers: { Authorization: `Bearer ${TEST_TOKEN}` } });
      const { session: after } = (await res.json()) as { session: Record<string, unknown> & { messages: Record<string, unknown>[] } };
      expect(after.active_stream_id).toBeUndefined();
      expect(after.pending_user_message).toBeUndefined();
      expect(after.messages).toMatchObject([
        { role: 'user', content: 'are you there?', timestamp: 1700000000.5 },
        {
          role: 'assistant',
          content: '**Interrupted:** Satchel stopped before the agent finished answering.',
          _error: true,
          error_type: 'interrupted',
          error_hint: 'Try again.',
          error_action: 'retry',
        },
      ]);
    } finally {
      await second.close();
      await fs.rm(first.tmp, { recursive: true, force: true });
    }
  });

  it('cancels and stores a running turn when the server stops', async () => {
    const scripted = scriptedAgent();
    const own = await startTestServer({ agent: { streamTurn: scripted.streamTurn, loadConfig: () => TEST_AGENT_CONFIG } });
    const id = await own.newSession();
    const res = await own.json('/api/chat/start', { session_id: id, message: 'long job' });
    const { stream_id } = (await res.json()) as { stream_id: string };
    const upstream = await scripted.turn(0);
    upstream.push({ kind: 'token', text: 'work' });
    const stream = await openSse(own.port, `/api/chat/stream?stream_id=${stream_id}`);
    await stream.until((f) => f.event === 'token');
    await own.close();
    await stream.ended();
    expect(events(stream.frames())).toEqual(['answered_by', 'token', 'cancel', 'stream_end']);
    const stored = await storedJson(own.stateDir, id);
    expect(stored.active_stream_id).toBeUndefined();
    expect(stored.messages.map((m: { _partial?: boolean; _error?: boolean }) => [m._partial, m._error])).toEqual([
      [undefined, undefined],
      [true, undefined],
      [undefined, true],
    ]);
    // A stop by the shutdown is the same quiet kind as the person's Stop: a stop row, not a failure.
    expect(data(stream.frames()[2]!)).toMatchObject({ type: 'cancelled', stopped_by: 'shutdown', message: 'Satchel stopped while the agent was answering' });
    expect(stored.messages[2]).toMatchObject({ content: '**Task cancelled:** Satchel stopped while the agent was answering', error_type: 'cancelled', stopped_by: 'shutdown' });
    await fs.rm(own.tmp, { recursive: true, force: true });
  });
});
