import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  completion,
  contentChunk,
  reasoningChunk,
  reply,
  startFakeAgent,
  toolCallChunk,
  toolProgress,
  usageChunk,
  type FakeAgent,
} from '../testing/fake-agent.js';
import { AgentError, type AgentConfig, type UpstreamEvent } from './types.js';
import { MAX_LINE_BYTES } from './stream/lines.js';
import { MAX_ERROR_BODY_BYTES, STREAM_ENDED_EARLY, streamTurn } from './upstream.js';
import { agentUrl, retryAfterSeconds } from './upstream-errors.js';

const KEY = 'sk-test-0123456789abcdefghijklmnop';
let agent: FakeAgent;

beforeAll(async () => {
  agent = await startFakeAgent({ apiKey: KEY, models: ['fake-model', 'other'] });
});
afterAll(() => agent.close());
beforeEach(() => {
  agent.requests.length = 0;
});

function config(over: Partial<AgentConfig> = {}): AgentConfig {
  return { baseUrl: agent.baseUrl, apiKey: KEY, model: 'fake-model', kind: 'openai', idleTimeoutMs: 5_000, contextChars: 200_000, ...over };
}
const hello = { sessionId: 'sess1', hermesSessionId: 'satchel-sess1-0badf00d', messages: [{ role: 'user' as const, content: 'hello' }] };

async function collect(over: Partial<AgentConfig> = {}, signal = new AbortController().signal): Promise<UpstreamEvent[]> {
  const events: UpstreamEvent[] = [];
  for await (const event of streamTurn(config(over), hello, signal)) events.push(event);
  return events;
}

async function failure(over: Partial<AgentConfig> = {}): Promise<AgentError> {
  const err = await collect(over).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AgentError);
  expect((err as AgentError).message).not.toContain(KEY);
  return err as AgentError;
}

const text = (events: UpstreamEvent[], kind: 'token' | 'reasoning') =>
  events.flatMap((e) => (e.kind === kind ? [e.text] : [])).join('');

describe('agentUrl', () => {
  it('adds /v1 once, with or without it in the base', () => {
    expect(agentUrl('http://h:1', 'models').href).toBe('http://h:1/v1/models');
    expect(agentUrl('http://h:1/v1/', 'models').href).toBe('http://h:1/v1/models');
    expect(agentUrl('https://h/api/v1', 'chat/completions').href).toBe('https://h/api/v1/chat/completions');
  });
  it('refuses what is not http(s)', () => {
    expect(() => agentUrl('file:///etc/passwd', 'models')).toThrow(AgentError);
    expect(() => agentUrl('not a url', 'models')).toThrow(AgentError);
  });
});

describe('streamTurn: what is sent', () => {
  it('posts the model, stream options, messages, Bearer key and SSE accept', async () => {
    await collect();
    const req = agent.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.accept).toBe('text/event-stream');
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.headers['x-hermes-session-id']).toBeUndefined();
    expect(req.body).toEqual({ model: 'fake-model', stream: true, stream_options: { include_usage: true }, messages: hello.messages });
  });
  it('accepts a base URL ending in /v1, and a per-turn model', async () => {
    const events: UpstreamEvent[] = [];
    for await (const e of streamTurn(config({ baseUrl: `${agent.baseUrl}/v1` }), { ...hello, model: 'other' }, new AbortController().signal)) events.push(e);
    expect(agent.requests[0]!.path).toBe('/v1/chat/completions');
    expect((agent.requests[0]!.body as { model: string }).model).toBe('other');
  });
  it('sends the Hermes session header for kind hermes', async () => {
    await collect({ kind: 'hermes' });
    expect(agent.requests[0]!.headers['x-hermes-session-id']).toBe('satchel-sess1-0badf00d');
  });
  it('sends no Authorization without a key', async () => {
    const open = await startFakeAgent();
    try {
      for await (const _ of streamTurn({ ...config(), baseUrl: open.baseUrl, apiKey: undefined }, hello, new AbortController().signal)) void _;
      expect(open.requests[0]!.headers.authorization).toBeUndefined();
    } finally {
      await open.close();
    }
  });
});

describe('streamTurn: parsing', () => {
  it('turns content, reasoning and usage into events, ignoring keepalives', async () => {
    agent.next(reply('Hello there, friend.', { reasoning: 'Thinking hard', usage: [21, 4] }));
    const events = await collect();
    expect(text(events, 'token')).toBe('Hello there, friend.');
    expect(text(events, 'reasoning')).toBe('Thinking hard');
    expect(events.filter((e) => e.kind === 'token').length).toBe(3);
    expect(events.at(-1)).toEqual({ kind: 'usage', inputTokens: 21, outputTokens: 4 });
  });
  it('reads `reasoning` as well as `reasoning_content`', async () => {
    agent.next({ frames: [{ choices: [{ delta: { reasoning: 'why' } }] }, contentChunk('A')] });
    expect(text(await collect(), 'reasoning')).toBe('why');
  });
  it('maps hermes.tool.progress running/completed to tool/tool_complete with a measured duration', async () => {
    agent.next({
      frames: [
        toolProgress('terminal', 'running', 'call_1', 'ls -la'),
        { comment: 'keepalive' },
        { raw: ': wait\n\n' },
        toolProgress('terminal', 'completed', 'call_1', 'ls -la'),
        contentChunk('Done.'),
      ],
    });
    const events = await collect();
    const tool = events.find((e) => e.kind === 'tool');
    const done = events.find((e) => e.kind === 'tool_complete');
    expect(tool).toEqual({ kind: 'tool', name: 'terminal', preview: 'ls -la', args: {}, tid: 'call_1' });
    expect(done).toMatchObject({ kind: 'tool_complete', name: 'terminal', tid: 'call_1', isError: false });
    expect(text(events, 'token')).toBe('Done.');
  });
  it('measures a tool duration from running to completed', async () => {
    // A hand-written server: two progress events 300 ms apart.
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: hermes.tool.progress\ndata: ${JSON.stringify(toolProgress('t', 'running', 'x').data)}\n\n`);
      setTimeout(() => {
        res.write(`event: hermes.tool.progress\ndata: ${JSON.stringify(toolProgress('t', 'completed', 'x').data)}\n\n`);
        res.end('data: [DONE]\n\n');
      }, 300);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const events: UpstreamEvent[] = [];
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for await (const e of streamTurn(config({ baseUrl: base }), hello, new AbortController().signal)) events.push(e);
      const done = events.find((e) => e.kind === 'tool_complete') as { duration: number };
      expect(done.duration).toBeGreaterThanOrEqual(0.25);
      expect(done.duration).toBeLessThan(2);
    } finally {
      server.close();
    }
  });
  it('turns the _thinking tool into reasoning, not a tool', async () => {
    agent.next({ frames: [toolProgress('_thinking', 'running', 't1', 'pondering the files'), toolProgress('_thinking', 'completed', 't1'), contentChunk('ok')] });
    const events = await collect();
    expect(events.some((e) => e.kind === 'tool' || e.kind === 'tool_complete')).toBe(false);
    expect(text(events, 'reasoning')).toBe('pondering the files');
  });
  it('resets the event name at a blank line: a later data line is a normal chunk', async () => {
    agent.next({ frames: [{ raw: 'event: hermes.tool.progress\n\n' }, contentChunk('plain')] });
    expect(text(await collect(), 'token')).toBe('plain');
  });
  it('collects streamed delta.tool_calls into one tool_calls event at the end', async () => {
    agent.next({
      frames: [
        toolCallChunk(0, { id: 'call_a', name: 'read_file', arguments: '{"pa' }),
        toolCallChunk(1, { id: 'call_b', name: 'ls', arguments: '{}' }),
        toolCallChunk(0, { arguments: 'th":"x"}' }),
        usageChunk(5, 6),
      ],
    });
    const events = await collect();
    expect(events.filter((e) => e.kind === 'tool_calls')).toEqual([
      {
        kind: 'tool_calls',
        calls: [
          { id: 'call_a', function: { name: 'read_file', arguments: '{"path":"x"}' } },
          { id: 'call_b', function: { name: 'ls', arguments: '{}' } },
        ],
      },
    ]);
    expect(events.map((e) => e.kind)).toEqual(['tool_calls', 'usage']);
  });
  it('handles a one-shot JSON completion answered to a streaming request', async () => {
    agent.next(completion('All at once.', [7, 3]));
    expect(await collect()).toEqual([
      { kind: 'token', text: 'All at once.' },
      { kind: 'usage', inputTokens: 7, outputTokens: 3 },
    ]);
  });
  it('yields each token as its line arrives, not at the end', async () => {
    agent.next({ frames: ['a', ' b', ' c', ' d'].map(contentChunk), tokensPerSecond: 5 });
    const arrivals: number[] = [];
    const started = performance.now();
    for await (const e of streamTurn(config(), hello, new AbortController().signal)) if (e.kind === 'token') arrivals.push(performance.now() - started);
    expect(arrivals).toHaveLength(4);
    // Paced at 200 ms per token: the first arrives long before the last.
    expect(arrivals[3]! - arrivals[0]!).toBeGreaterThan(450);
  });
});

describe('streamTurn: failures', () => {
  it('401 is auth_error, and the message never shows the key', async () => {
    const err = await failure({ apiKey: 'wrong-key-abcdefghijklmnopqrstuvwxyz' });
    expect(err.type).toBe('auth_error');
    expect(err.hint).toMatch(/API key/);
    expect(err.message).not.toContain('wrong-key');
  });
  it('403 is auth_error', async () => {
    agent.next({ status: 403, body: { error: { message: `forbidden for ${KEY}` } } });
    const err = await failure();
    expect(err.type).toBe('auth_error');
    expect(err.message).toBe('The agent refused the API key (403).');
  });
  it('a 404 on the model is model_not_found', async () => {
    const err = await failure({ model: 'nope' });
    expect(err.type).toBe('model_not_found');
    expect(err.message).toContain('nope');
  });
  it('429 is rate_limit with the Retry-After seconds', async () => {
    agent.next({ status: 429, headers: { 'retry-after': '7' }, body: { error: { message: 'Slow down' } } });
    const err = await failure();
    expect(err.type).toBe('rate_limit');
    expect(err.retryAfterSeconds).toBe(7);
    expect(err.hint).toBe('Try again in 7 s.');
  });
  it('5xx is upstream_error with the server message, credentials redacted', async () => {
    agent.next({ status: 500, body: { error: { message: `boom near ${KEY} and ghp_abcdefghijklmnopqrstuvwxyz0123456789` } } });
    const err = await failure();
    expect(err.type).toBe('upstream_error');
    expect(err.message).toContain('boom');
    expect(err.message).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  });
  it('a huge error body is read only up to its cap', async () => {
    agent.next({ status: 502, body: { error: { message: 'x'.repeat(MAX_ERROR_BODY_BYTES * 4) } } });
    const err = await failure();
    expect(err.type).toBe('upstream_error');
    expect(err.message.length).toBeLessThan(400);
  });
  it('connection refused is unreachable', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const err = await failure({ baseUrl: `http://127.0.0.1:${port}` });
    expect(err.type).toBe('unreachable');
  });
  it('an error object in a chunk is upstream_error with its message', async () => {
    agent.next({ frames: [contentChunk('par'), { error: { message: 'context length exceeded', type: 'invalid_request_error' } }] });
    const err = await failure();
    expect(err.type).toBe('upstream_error');
    expect(err.message).toContain('context length exceeded');
  });
  it('a stream cut mid-way is upstream_error "ended early"', async () => {
    agent.next({ frames: [contentChunk('half an ans')], end: 'cut' });
    const err = await failure();
    expect(err.type).toBe('upstream_error');
    expect(err.message).toContain(STREAM_ENDED_EARLY);
  });
  it('a stream that closes cleanly without [DONE] or a finish reason ended early too', async () => {
    agent.next({ frames: [contentChunk('half')], end: 'close' });
    expect((await failure()).message).toContain(STREAM_ENDED_EARLY);
  });
  it('a stream with no content and no tool event is no_response', async () => {
    agent.next({ frames: [{ comment: 'keepalive' }, usageChunk(3, 0)] });
    expect((await failure()).type).toBe('no_response');
  });
  it('reasoning alone is no_response', async () => {
    agent.next({ frames: [reasoningChunk('hmm')] });
    expect((await failure()).type).toBe('no_response');
  });
  it('no byte for the idle timeout is timeout', async () => {
    agent.next({ frames: [contentChunk('start')], end: 'stall' });
    const started = Date.now();
    const err = await failure({ idleTimeoutMs: 300 });
    expect(err.type).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
  });
  it('a line over 4 MiB from the server fails the turn', async () => {
    agent.next({ frames: [{ raw: `data: ${'y'.repeat(MAX_LINE_BYTES + 10)}` }] });
    const err = await failure();
    expect(err.type).toBe('upstream_error');
    expect(err.message).toMatch(/longer than 4 MiB/);
  });
});

describe('streamTurn: abort', () => {
  it('aborting destroys the request at once and throws the reason', async () => {
    agent.next({ frames: [contentChunk('one')], end: 'stall' });
    const controller = new AbortController();
    const reason = new Error('cancelled by test');
    const got: UpstreamEvent[] = [];
    const started = Date.now();
    const err = await (async () => {
      for await (const e of streamTurn(config({ idleTimeoutMs: 60_000 }), hello, controller.signal)) {
        got.push(e);
        setTimeout(() => controller.abort(reason), 20);
      }
    })().catch((e: unknown) => e);
    expect(err).toBe(reason);
    expect(got).toEqual([{ kind: 'token', text: 'one' }]);
    expect(Date.now() - started).toBeLessThan(2_000);
    // The fake sees the connection go.
    await new Promise((r) => setTimeout(r, 50));
  });
  it('an already aborted signal sends nothing', async () => {
    const controller = new AbortController();
    controller.abort(new Error('early'));
    await expect(collect({}, controller.signal)).rejects.toThrow('early');
    expect(agent.requests).toHaveLength(0);
  });
});

describe('retryAfterSeconds', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterSeconds('12')).toBe(12);
    expect(retryAfterSeconds(new Date(1_000_000 + 30_000).toUTCString(), 1_000_000)).toBe(30);
    expect(retryAfterSeconds('soon')).toBeUndefined();
  });
});
