// What the agent did stays with its reply (issue 23, finding 6), over real sockets against the fake Hermes
// gateway: the tools it ran (name, one-line preview, status, duration) and the usage it reported are stored with
// the assistant row and read back by GET /api/session; a server that reports no usage stores none; a stopped turn
// keeps the tools it had; a key in a tool's arguments reaches neither the session file nor the API.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { forgetSecrets } from '../redact/known.js';
import { chunk, contentChunk, startFakeAgent, toolProgress, usageChunk, type FakeAgent, type Frame } from '../testing/fake-agent.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { openSse, type SseStream } from '../testing/sse.js';
import { MAX_STORED_TOOLS, MAX_TOOL_PREVIEW_CHARS } from '../agent/stream/activity.js';
import { databaseBytes, storedSessionText } from '../testing/stored-session.js';

const TURN_DEADLINE_MS = 15_000;
/** The agent's own key (masked by knowing it) and a vendor-shaped key (masked by its shape). */
const AGENT_KEY = 'agent-key-Zq8wT3vN5bK1pL7m';
const VENDOR_KEY = 'sk-proj-9fK2mQ7vX1bN4tR8wZ3cL6hJ0pY5sD2g';

let srv: TestServer;
let agent: FakeAgent;

beforeAll(async () => {
  forgetSecrets();
  agent = await startFakeAgent({ apiKey: AGENT_KEY, hermes: true });
  srv = await startTestServer();
  const saved = await srv.json('/api/agent/settings', { base_url: agent.baseUrl, api_key: AGENT_KEY, model: 'fake-model', kind: 'hermes' });
  expect(saved.status).toBe(200);
});
afterAll(async () => {
  await srv?.stop();
  await agent?.close();
  forgetSecrets();
});
beforeEach(() => {
  agent.requests.length = 0;
});

/** A progress event with arguments, as Hermes' gateway sends it (toolProgress has no args or failure). */
function progress(tool: string, status: 'running' | 'completed' | 'failed', id: string, label: string, args: unknown = {}): Frame {
  return { event: 'hermes.tool.progress', data: { ...toolProgress(tool, 'running', id, label).data, status, args } };
}

async function turn(sessionId: string, message: string): Promise<SseStream> {
  const res = await srv.json('/api/chat/start', { session_id: sessionId, message });
  const body = (await res.json()) as { stream_id: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return openSse(srv.port, `/api/chat/stream?stream_id=${body.stream_id}`);
}

const sessionFile = (id: string) => storedSessionText(srv.stateDir, id);
async function apiMessages(id: string): Promise<Record<string, unknown>[]> {
  const res = await srv.api(`/api/session?session_id=${id}`);
  return ((await res.json()) as { session: { messages: Record<string, unknown>[] } }).session.messages;
}
const frameData = (s: SseStream, event: string) => JSON.parse(s.frames().find((f) => f.event === event)!.data!) as Record<string, unknown>;

describe('tool activity and usage stored with the reply', () => {
  it('stores each tool (name, one-line redacted preview, status, duration) and the reported usage, and GET /api/session returns them', async () => {
    const id = await srv.newSession();
    const script = `export OPENAI_API_KEY=${VENDOR_KEY}\ncurl -H "Authorization: Bearer ${AGENT_KEY}" https://api.example.com/v1/models`;
    agent.next({
      frames: [
        chunk({ role: 'assistant', content: '' }),
        progress('read_file', 'running', 'call_1', 'notes/todo.md', { path: 'notes/todo.md' }),
        progress('read_file', 'completed', 'call_1', 'notes/todo.md'),
        progress('terminal', 'running', 'call_2', script, { command: script, env: { OPENAI_API_KEY: VENDOR_KEY } }),
        progress('terminal', 'failed', 'call_2', script),
        contentChunk('You have two todos.'),
        usageChunk(1234, 56),
      ],
    });
    const stream = await turn(id, 'What is in my todo file?');
    await stream.ended(TURN_DEADLINE_MS);
    expect(stream.frames().map((f) => f.event)).toEqual(['answered_by', 'tool', 'tool_complete', 'tool', 'tool_complete', 'token', 'done', 'metering', 'title', 'stream_end']);

    const file = await sessionFile(id);
    const everything = await databaseBytes(srv.stateDir);
    for (const bytes of [file, everything]) {
      expect(bytes).not.toContain(AGENT_KEY);
      expect(bytes).not.toContain(VENDOR_KEY.slice(8, 30));
    }
    const [, answer] = JSON.parse(file).messages as Record<string, unknown>[];
    expect(answer).toMatchObject({ role: 'assistant', content: 'You have two todos.' });
    const activity = answer!.tool_activity as Record<string, unknown>[];
    expect(activity.map((t) => [t.name, t.status])).toEqual([
      ['read_file', 'finished'],
      ['terminal', 'failed'],
    ]);
    expect(activity[0]!.preview).toBe('notes/todo.md');
    expect(typeof activity[0]!.duration_seconds).toBe('number');
    // One line, cut at its bound, the keys masked before the cut.
    const preview = activity[1]!.preview as string;
    expect(preview).not.toContain('\n');
    expect(preview.length).toBeLessThanOrEqual(MAX_TOOL_PREVIEW_CHARS);
    expect(preview).toMatch(/^export OPENAI_API_KEY=\S+ curl -H "Authorization: Bearer /);
    expect(answer!.usage).toEqual({ input_tokens: 1234, output_tokens: 56, duration_seconds: expect.any(Number), ttft_ms: expect.any(Number) });

    const viaApi = await apiMessages(id);
    expect(viaApi[1]!.tool_activity).toEqual(activity);
    expect(viaApi[1]!.usage).toEqual(answer!.usage);
    expect(JSON.stringify(viaApi)).not.toContain(AGENT_KEY);
    expect(frameData(stream, 'done').usage).toMatchObject({ input_tokens: 1234, output_tokens: 56, reported: true });
  });

  it('stores no usage when the agent reported none, and `done` says it is unknown instead of 0', async () => {
    const id = await srv.newSession();
    agent.next({ frames: [chunk({ role: 'assistant', content: '' }), contentChunk('No counts here.')] });
    const stream = await turn(id, 'Hello');
    await stream.ended(TURN_DEADLINE_MS);
    const [, answer] = JSON.parse(await sessionFile(id)).messages as Record<string, unknown>[];
    expect(answer).toMatchObject({ role: 'assistant', content: 'No counts here.' });
    expect(answer).not.toHaveProperty('usage');
    expect(answer).not.toHaveProperty('tool_activity');
    expect((await apiMessages(id))[1]).not.toHaveProperty('usage');
    expect(frameData(stream, 'done').usage).toMatchObject({ input_tokens: 0, output_tokens: 0, reported: false });
    expect(stream.frames().some((f) => f.event === 'metering')).toBe(false);
  });

  it('keeps the tools of a stopped turn on its partial row: the finished one finished, the running one stopped', async () => {
    const id = await srv.newSession();
    agent.next({
      frames: [
        progress('search_files', 'running', 'call_1', 'TODO'),
        progress('search_files', 'completed', 'call_1', 'TODO'),
        progress('terminal', 'running', 'call_2', 'sleep 60'),
      ],
      end: 'stall',
    });
    const stream = await turn(id, 'Find my todos');
    await stream.until((f) => f.event === 'tool' && f.data!.includes('call_2'), TURN_DEADLINE_MS);
    const streamId = stream.frames()[0]!.id!.split(':')[0]!;
    expect((await srv.api(`/api/chat/cancel?stream_id=${streamId}`)).status).toBe(200);
    await stream.ended(TURN_DEADLINE_MS);
    const messages = JSON.parse(await sessionFile(id)).messages as Record<string, unknown>[];
    expect(messages.map((m) => [m.role, m._partial ?? m._error ?? false])).toEqual([
      ['user', false],
      ['assistant', true],
      ['assistant', true],
    ]);
    expect(messages[1]!.tool_activity).toEqual([
      { name: 'search_files', preview: 'TODO', status: 'finished', duration_seconds: expect.any(Number) },
      { name: 'terminal', preview: 'sleep 60', status: 'stopped' },
    ]);
  });

  it(`keeps at most ${MAX_STORED_TOOLS} tools of one reply and counts the rest`, async () => {
    const id = await srv.newSession();
    const extra = 5;
    const frames: Frame[] = [];
    for (let i = 0; i < MAX_STORED_TOOLS + extra; i++) frames.push(progress('read_file', 'running', `c${i}`, `f${i}.txt`), progress('read_file', 'completed', `c${i}`, `f${i}.txt`));
    agent.next({ frames: [...frames, contentChunk('Read them all.')] });
    const stream = await turn(id, 'Read everything');
    await stream.ended(TURN_DEADLINE_MS);
    const [, answer] = JSON.parse(await sessionFile(id)).messages as Record<string, unknown>[];
    expect((answer!.tool_activity as unknown[]).length).toBe(MAX_STORED_TOOLS);
    expect(answer!.tool_activity_omitted).toBe(extra);
  });
});
