// Every way a turn can fail, end to end: a real server asks a fake agent over a socket, and the person gets one
// sentence of what happened, one of what to do and the button that does it, in the `apperror` frame and in the
// stored `_error` row alike (a reload shows what the live turn showed). The texts are written out here, not
// imported: they are what a person reads.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../core/errors.js';
import { DEFAULT_AGENT_TURN_MAX_MS } from '../settings/table.js';
import { DISK_FULL_SESSION, SessionStore } from '../store/sessions.js';
import { contentChunk, startFakeAgent, type FakeAgent } from '../testing/fake-agent.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { openSse, type SseFrame } from '../testing/sse.js';
import type { AgentConfig } from './types.js';

const KEY = 'sk-right-0123456789abcdefghij';
let srv: TestServer;
let agent: FakeAgent;
let config: AgentConfig;
/** A port nothing listens on, and a web server that answers every request with a web page. */
let closedPort: number;
let webPage: http.Server;
let webPort: number;

function baseConfig(): AgentConfig {
  return { baseUrl: agent.baseUrl, apiKey: KEY, model: 'fake-model', kind: 'openai', idleTimeoutMs: 60_000, turnMaxMs: DEFAULT_AGENT_TURN_MAX_MS, contextChars: 200_000 };
}

beforeAll(async () => {
  agent = await startFakeAgent({ apiKey: KEY });
  config = baseConfig();
  srv = await startTestServer({ agent: { loadConfig: () => config } });
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  webPage = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Router</title>'));
  await new Promise<void>((r) => webPage.listen(0, '127.0.0.1', r));
  webPort = (webPage.address() as AddressInfo).port;
});
afterAll(async () => {
  await srv?.stop();
  await agent?.close();
  await new Promise((r) => webPage?.close(r));
});

const data = (frame: SseFrame) => JSON.parse(frame.data!) as Record<string, unknown>;

/** One turn in a new session: its apperror frame and its stored last row. */
async function failedTurn(): Promise<{ frame: Record<string, unknown>; row: Record<string, unknown> }> {
  const id = await srv.newSession();
  const res = await srv.json('/api/chat/start', { session_id: id, message: 'hello' });
  const started = (await res.json()) as { stream_id: string };
  expect(res.status, JSON.stringify(started)).toBe(200);
  const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${started.stream_id}`);
  await stream.ended(30_000);
  const frames = stream.frames();
  expect(frames.map((f) => f.event).slice(-2)).toEqual(['apperror', 'stream_end']);
  const session = (await (await srv.api(`/api/session?session_id=${id}`)).json()) as { session: { messages: Record<string, unknown>[] } };
  return { frame: data(frames.at(-2)!), row: session.session.messages.at(-1)! };
}

interface Said {
  type: string;
  message: string;
  hint: string;
  /** Absent: no button (nothing to open, and the same request would fail the same way). */
  action?: 'agent_settings' | 'retry';
}

async function expectFailure(said: Said): Promise<void> {
  const { frame, row } = await failedTurn();
  expect(frame).toEqual({ message: said.message, type: said.type, hint: said.hint, ...(said.action ? { action: said.action } : {}), session_id: expect.any(String) });
  expect(row).toEqual({
    role: 'assistant',
    content: `**Error:** ${said.message}`,
    timestamp: expect.any(Number),
    _error: true,
    error_type: said.type,
    error_hint: said.hint,
    ...(said.action ? { error_action: said.action } : {}),
    // Who the failed turn was asking (issue 38, item 6): kept on failure rows as on replies.
    answered_by: { model: expect.any(String) },
  });
}

const SETTINGS = 'Agent settings → Chat agent';

describe('each failure says what happened, what to do, and which button does it', () => {
  it('refused connection: nothing listens at the address', async () => {
    config = { ...baseConfig(), baseUrl: `http://127.0.0.1:${closedPort}` };
    await expectFailure({
      type: 'unreachable',
      message: `Cannot reach the agent at 127.0.0.1:${closedPort} (ECONNREFUSED).`,
      hint: `Start the agent, or correct its address in ${SETTINGS}.`,
      action: 'agent_settings',
    });
  });

  it('wrong key: the agent refuses it (401)', async () => {
    config = { ...baseConfig(), apiKey: 'sk-wrong-0123456789abcdefghij' };
    await expectFailure({ type: 'auth_error', message: 'The agent refused the API key (401).', hint: `Enter the right API key in ${SETTINGS}.`, action: 'agent_settings' });
  });

  it('no key where one is needed (401)', async () => {
    config = { ...baseConfig(), apiKey: undefined };
    await expectFailure({ type: 'auth_error', message: 'The agent needs an API key (401).', hint: `Enter the agent's API key in ${SETTINGS}.`, action: 'agent_settings' });
  });

  it('model missing (404 naming the model)', async () => {
    config = { ...baseConfig(), model: 'gpt-nope' };
    await expectFailure({ type: 'model_not_found', message: 'The agent has no model "gpt-nope" (404).', hint: `Choose one of the agent's models in ${SETTINGS}.`, action: 'agent_settings' });
  });

  it('not OpenAI-compatible: no chat completions at the address (404)', async () => {
    config = { ...baseConfig(), baseUrl: `${agent.baseUrl}/somewhere-else` };
    await expectFailure({
      type: 'upstream_error',
      message: `127.0.0.1:${agent.port} does not answer like an OpenAI-compatible agent (POST /v1/chat/completions: 404).`,
      hint: `Correct the agent's address in ${SETTINGS}.`,
      action: 'agent_settings',
    });
  });

  it('not OpenAI-compatible: a web page answers (200 text/html)', async () => {
    config = { ...baseConfig(), baseUrl: `http://127.0.0.1:${webPort}` };
    await expectFailure({
      type: 'upstream_error',
      message: `127.0.0.1:${webPort} does not answer like an OpenAI-compatible agent (POST /v1/chat/completions: a web page).`,
      hint: `Correct the agent's address in ${SETTINGS}.`,
      action: 'agent_settings',
    });
  });

  it('timeout: the agent goes silent past SATCHEL_AGENT_TIMEOUT_MS', async () => {
    config = { ...baseConfig(), idleTimeoutMs: 500 };
    agent.next({ frames: [], end: 'stall' });
    await expectFailure({
      type: 'timeout',
      message: 'The agent sent nothing for 1 s.',
      hint: 'Try again; an agent busy with a slow tool may need a larger SATCHEL_AGENT_TIMEOUT_MS.',
      action: 'retry',
    });
  });

  it('turn deadline: the whole turn past SATCHEL_AGENT_TURN_MAX_MS', async () => {
    config = { ...baseConfig(), turnMaxMs: 600 };
    agent.next({ frames: [contentChunk('still')], end: 'stall' });
    await expectFailure({ type: 'timeout', message: 'The agent did not finish within 0.6 s.', hint: 'Ask for less in one turn, or raise SATCHEL_AGENT_TURN_MAX_MS.', action: 'retry' });
  });

  it('too large: 413 (no button: the same request would be refused again)', async () => {
    config = baseConfig();
    agent.next({ status: 413, body: { error: { message: 'Request Entity Too Large' } } });
    await expectFailure({
      type: 'upstream_error',
      message: 'The agent refused the request as too large (413: Request Entity Too Large).',
      hint: 'Send less at once: fewer or smaller attachments, or a new session.',
    });
  });

  it("too large: a 400 over the model's context", async () => {
    config = baseConfig();
    agent.next({ status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens." } } });
    await expectFailure({
      type: 'upstream_error',
      message: "The agent refused the request as too large (400: This model's maximum context length is 8192 tokens).",
      hint: 'Send less at once: fewer or smaller attachments, or a new session.',
    });
  });

  it('rate limited: 429 with Retry-After', async () => {
    config = baseConfig();
    agent.next({ status: 429, headers: { 'retry-after': '7' }, body: { error: { message: 'Slow down' } } });
    await expectFailure({ type: 'rate_limit', message: 'The agent is rate-limited (429).', hint: 'Try again in 7 s.', action: 'retry' });
  });

  it('5xx: the agent failed, in its own words', async () => {
    config = baseConfig();
    agent.next({ status: 502, body: { error: { message: 'Bad gateway.' } } });
    await expectFailure({ type: 'upstream_error', message: 'The agent failed (502: Bad gateway).', hint: "Try again; if it keeps failing, the agent's own log says why.", action: 'retry' });
  });

  it('no answer: a stream with nothing in it', async () => {
    config = baseConfig();
    agent.next({ frames: [] });
    await expectFailure({ type: 'no_response', message: 'The agent ended its turn without saying anything.', hint: 'Try again.', action: 'retry' });
  });

  it('broken off: the connection closes mid-answer', async () => {
    config = baseConfig();
    agent.next({ frames: [contentChunk('half an ans')], end: 'cut' });
    await expectFailure({ type: 'upstream_error', message: "The agent's answer broke off: its connection closed before the end.", hint: 'Try again.', action: 'retry' });
  });

  it('disk full: the answer arrived but could not be saved (frame only: nothing could be stored)', async () => {
    config = baseConfig();
    agent.next({ frames: [contentChunk('a whole answer')] });
    const id = await srv.newSession();
    const res = await srv.json('/api/chat/start', { session_id: id, message: 'hello' });
    const { stream_id } = (await res.json()) as { stream_id: string };
    // The pending turn is written already; the next write (the answer) meets a full disk.
    const full = vi.spyOn(SessionStore.prototype, 'update').mockRejectedValueOnce(new HttpError(507, DISK_FULL_SESSION));
    try {
      const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${stream_id}`);
      await stream.ended(30_000);
      const frame = stream.frames().find((f) => f.event === 'apperror')!;
      expect(data(frame)).toEqual({
        message: 'The answer could not be saved: the disk is full.',
        type: 'upstream_error',
        hint: 'Free some disk space, then try again.',
        action: 'retry',
        session_id: id,
      });
    } finally {
      full.mockRestore();
    }
  });
});
