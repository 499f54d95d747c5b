// A hostile agent over real sockets (a flood of output, an agent that only keeps the line alive): a real Satchel
// server talks to the hostile agent (server/testing/hostile-agent.ts) through its real upstream code, and the test
// watches what a person would: the frames of the turn, the session file on disk, GET /api/session, a ninth
// conversation starting.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REPLY_BYTES, REPLY_CUT_MARKER, toolArgumentsCutMarker } from '../agent/stream/reply.js';
import { turnDeadlineText } from '../agent/turn-texts.js';
import { MAX_CONCURRENT_TURNS } from '../agent/turns.js';
import type { AgentConfig } from '../agent/types.js';
import { MAX_TOOL_ARGUMENT_BYTES } from '../agent/stream/tool-calls.js';
import { DEFAULT_AGENT_TURN_MAX_MS } from '../settings/table.js';
import { startFakeAgent, type FakeAgent } from '../testing/fake-agent.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { flood, FLOOD_TOOL_CALL_ID, keepalivesOnly, LONG_LINE_TOKEN, LONG_LINE_TOKENS, longLine, toolArgumentFlood } from '../testing/hostile-agent.js';
import { openSse, type SseFrame } from '../testing/sse.js';
import { storedJson, storedSessionText } from '../testing/stored-session.js';

const MIB = 1024 * 1024;
/** Generous: the machine is shared, and a bounded turn ends in well under this. */
const TURN_DEADLINE_MS = 170_000;

let srv: TestServer;
let agent: FakeAgent;
let config: AgentConfig;

beforeAll(async () => {
  agent = await startFakeAgent();
  config = { baseUrl: agent.baseUrl, model: 'fake-model', kind: 'openai', idleTimeoutMs: 60_000, turnMaxMs: DEFAULT_AGENT_TURN_MAX_MS, contextChars: 200_000 };
  srv = await startTestServer({ agent: { loadConfig: () => config } });
});
afterAll(async () => {
  await srv?.stop();
  await agent?.close();
});

const data = (frame: SseFrame) => JSON.parse(frame.data!) as Record<string, unknown>;
/** The session's size as stored JSON text (what its session file weighed before the database). */
const storedSize = async (id: string) => Buffer.byteLength(await storedSessionText(srv.stateDir, id));

/**
 * Every frame of a stream up to `stream_end`, resuming after the last frame received whenever the server drops
 * this watcher (a watcher that falls more than 1 MiB behind is dropped and resumes, as EventSource does).
 */
async function watch(streamId: string, afterSeq = 0): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  for (let attempt = 0; attempt < 100; attempt++) {
    const last = frames.length ? Number(frames.at(-1)!.id!.split(':')[1]) : afterSeq;
    const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${streamId}&after_seq=${last}`);
    expect(stream.status).toBe(200);
    await stream.ended(TURN_DEADLINE_MS);
    // Not push(...frames): a reply of 200,000 token frames is more arguments than a call may take.
    for (const frame of stream.frames()) frames.push(frame);
    if (frames.at(-1)?.event === 'stream_end') return frames;
  }
  throw new Error('the stream never reached stream_end');
}

/** Start a turn in a new session; resolves with the stream once it has ended. */
async function turn(message: string): Promise<{ id: string; streamId: string; frames: SseFrame[]; ms: number }> {
  const id = await srv.newSession();
  const t0 = performance.now();
  const res = await srv.json('/api/chat/start', { session_id: id, message });
  const started = (await res.json()) as { stream_id: string };
  expect(res.status, JSON.stringify(started)).toBe(200);
  const frames = await watch(started.stream_id);
  return { id, streamId: started.stream_id, frames, ms: performance.now() - t0 };
}

const reply = (frames: SseFrame[]) =>
  frames
    .filter((f) => f.event === 'token')
    .map((f) => data(f).text)
    .join('');

describe('finding 2: a reply has a size limit', () => {
  it('a reply on one long line (200,000 "a " tokens, no newline) completes and is stored whole', async () => {
    agent.next(longLine());
    const { id, frames } = await turn('one long line, please');
    // A watcher that fell behind was dropped and resumed, and 200,000 token frames are more than the replay log
    // keeps: what it saw live may have a gap, what is stored may not.
    expect(frames.map((f) => f.event).slice(-4)).toEqual(['done', 'metering', 'title', 'stream_end']);
    const whole = LONG_LINE_TOKEN.repeat(LONG_LINE_TOKENS);
    const stored = await storedJson(srv.stateDir, id);
    expect(stored.messages.at(-1)).toMatchObject({ role: 'assistant', content: whole });
  }, 180_000);

  it('a 400 MB flood is cut at MAX_REPLY_BYTES with the marker, the agent is stopped, the session stays small and loads', async () => {
    const script = flood({ mib: 400 });
    agent.next(script);
    const { id, frames } = await turn('flood me');
    const events = frames.map((f) => f.event);
    expect(events.slice(-3)).toEqual(['done', 'title', 'stream_end']);
    // The last token frame ends with the marker (earlier ones may have left the replay log before a resume).
    expect(reply(frames).endsWith(REPLY_CUT_MARKER)).toBe(true);
    expect(REPLY_CUT_MARKER).toBe('\n\n…[reply cut by Satchel at 4 MiB]');
    // The upstream request was closed: the agent made little more than what Satchel kept (socket buffers).
    expect(script.madeBytes()).toBeLessThan(MAX_REPLY_BYTES + 32 * MIB);

    const size = await storedSize(id);
    expect(size).toBeLessThan(MAX_REPLY_BYTES + MIB);
    const stored = await storedJson(srv.stateDir, id);
    expect(stored.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    expect(stored.messages[1].content.endsWith(REPLY_CUT_MARKER)).toBe(true);
    expect(Buffer.byteLength(stored.messages[1].content) - Buffer.byteLength(REPLY_CUT_MARKER)).toBe(MAX_REPLY_BYTES);
    expect(stored.messages[1]._error).toBeUndefined();

    const t0 = performance.now();
    const res = await srv.api(`/api/session?session_id=${id}`);
    expect(res.status).toBe(200);
    const got = (await res.json()) as { session: { messages: { content: string }[] } };
    expect(got.session.messages[1]!.content.length).toBe(stored.messages[1].content.length);
    expect(performance.now() - t0).toBeLessThan(5_000);
    // And the next reply is an ordinary one.
    agent.next({ frames: [{ choices: [{ index: 0, delta: { content: 'Fine again.' }, finish_reason: null }] }] });
    const next = await turn('and now?');
    expect(reply(next.frames)).toBe('Fine again.');
  }, 120_000);

  it('a reasoning flood is cut by the same bound', async () => {
    agent.next(flood({ mib: 50, field: 'reasoning' }));
    const { id, frames } = await turn('think hard');
    const stored = await storedJson(srv.stateDir, id);
    expect(Buffer.byteLength(stored.messages[1].reasoning)).toBe(MAX_REPLY_BYTES);
    expect(stored.messages[1].content).toBe(REPLY_CUT_MARKER);
    expect(reply(frames)).toBe(REPLY_CUT_MARKER);
  }, 120_000);

  it('30 MB of tool-call arguments are cut at MAX_TOOL_ARGUMENT_BYTES, with the marker in the reply', async () => {
    const script = toolArgumentFlood({ mib: 30 });
    agent.next(script);
    const { id, frames } = await turn('write a big file');
    expect(frames.map((f) => f.event).slice(-3)).toEqual(['done', 'title', 'stream_end']);
    const marker = toolArgumentsCutMarker(MAX_TOOL_ARGUMENT_BYTES);
    expect(marker).toBe('\n\n…[tool-call arguments cut by Satchel at 4 MiB]');
    expect(reply(frames)).toBe(marker);
    const stored = await storedJson(srv.stateDir, id);
    const call = stored.messages[1].tool_calls[0];
    expect(call.id).toBe(FLOOD_TOOL_CALL_ID);
    expect(call.function.arguments.startsWith('{"content": "xxx')).toBe(true);
    // The call's id and name count against the same bound as its arguments (upstream.ts).
    expect(Buffer.byteLength(call.id + call.function.name + call.function.arguments)).toBe(MAX_TOOL_ARGUMENT_BYTES);
    expect(stored.messages[1].content).toBe(marker);
    expect(await storedSize(id)).toBeLessThan(MAX_TOOL_ARGUMENT_BYTES + MIB);
    expect(script.madeBytes()).toBeLessThan(MAX_TOOL_ARGUMENT_BYTES + 16 * MIB);
  }, 120_000);

  it('a resume after a big reply (3 MiB, over the 2 MiB replay log) still receives `done`', async () => {
    agent.next(flood({ mib: 3 }));
    const { id, streamId, frames } = await turn('a big but allowed reply');
    expect(frames.map((f) => f.event)).toContain('done');
    // A tab that reloads now replays the ended turn from its start: the oldest tokens are gone, `done` is not.
    const resumed = await watch(streamId, 0);
    expect(resumed.map((f) => f.event).slice(-3)).toEqual(['done', 'title', 'stream_end']);
    // Small whatever the reply: the session's summary; the turn itself is read from the session.
    const done = resumed.find((f) => f.event === 'done')!;
    expect(done.data!.length).toBeLessThan(1024);
    expect(data(done)).toMatchObject({ session: { session_id: id, message_count: 2 } });
    const got = (await (await srv.api(`/api/session?session_id=${id}`)).json()) as { session: { messages: { content: string }[] } };
    expect(got.session.messages[1]!.content.length).toBe(3 * MIB);
  }, 120_000);
});

describe('finding 3: a turn has an overall deadline', () => {
  it('keepalives do not extend it: eight such turns end at SATCHEL_AGENT_TURN_MAX_MS and free their slots', async () => {
    config = { ...config, idleTimeoutMs: 1_000, turnMaxMs: 1_500 };
    try {
      // Every 250 ms, well inside the 1 s idle timeout, so only the turn deadline can end these turns.
      for (let i = 0; i < MAX_CONCURRENT_TURNS; i++) agent.next(keepalivesOnly({ everyMs: 250 }));
      const ids = await Promise.all(Array.from({ length: MAX_CONCURRENT_TURNS }, () => srv.newSession()));
      const t0 = performance.now();
      const streams = await Promise.all(
        ids.map(async (id) => {
          const res = await srv.json('/api/chat/start', { session_id: id, message: 'are you there?' });
          expect(res.status).toBe(200);
          return openSse(srv.port, `/api/chat/stream?stream_id=${((await res.json()) as { stream_id: string }).stream_id}`);
        }),
      );
      // Every slot is held: a ninth conversation is refused while they run.
      const ninth = await srv.newSession();
      expect((await srv.json('/api/chat/start', { session_id: ninth, message: 'me too' })).status).toBe(503);
      await Promise.all(streams.map((s) => s.ended(10_000)));
      const elapsed = performance.now() - t0;
      expect(elapsed).toBeGreaterThanOrEqual(1_400);
      expect(elapsed).toBeLessThan(6_000);
      for (const stream of streams) {
        const frames = stream.frames();
        expect(frames.map((f) => f.event)).toEqual(['answered_by', 'apperror', 'stream_end']);
        expect(data(frames[1]!)).toMatchObject({ type: 'timeout', message: turnDeadlineText(1_500) });
      }
      expect(turnDeadlineText(1_500)).toBe('The agent did not finish within 1.5 s.');
      expect(turnDeadlineText(DEFAULT_AGENT_TURN_MAX_MS)).toBe('The agent did not finish within 30 min.');
      const stored = await storedJson(srv.stateDir, ids[0]!);
      expect(stored.messages.at(-1)).toMatchObject({
        content: '**Error:** The agent did not finish within 1.5 s.',
        _error: true,
        error_type: 'timeout',
        error_hint: 'Ask for less in one turn, or raise SATCHEL_AGENT_TURN_MAX_MS.',
        error_action: 'retry',
      });
      expect(stored.active_stream_id).toBeUndefined();

      // The slots are free again: the ninth conversation starts and is answered.
      config = { ...config, idleTimeoutMs: 60_000, turnMaxMs: DEFAULT_AGENT_TURN_MAX_MS };
      agent.next({ frames: [{ choices: [{ index: 0, delta: { content: 'Here.' }, finish_reason: null }] }] });
      const res = await srv.json('/api/chat/start', { session_id: ninth, message: 'me too' });
      expect(res.status).toBe(200);
      const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${((await res.json()) as { stream_id: string }).stream_id}`);
      await stream.ended(TURN_DEADLINE_MS);
      expect(reply(stream.frames())).toBe('Here.');
    } finally {
      config = { ...config, idleTimeoutMs: 60_000, turnMaxMs: DEFAULT_AGENT_TURN_MAX_MS };
    }
  }, 60_000);

  it('the idle timeout works as before: an agent silent past it fails the turn as `timeout`', async () => {
    config = { ...config, idleTimeoutMs: 500 };
    try {
      agent.next({ frames: [], end: 'stall' });
      const { frames, ms } = await turn('hello?');
      expect(frames.map((f) => f.event)).toEqual(['answered_by', 'apperror', 'stream_end']);
      expect(data(frames[1]!)).toMatchObject({ type: 'timeout', message: 'The agent sent nothing for 1 s.' });
      expect(ms).toBeLessThan(5_000);
    } finally {
      config = { ...config, idleTimeoutMs: 60_000 };
    }
  }, 30_000);
});
