// Issue 23, finding 2, against the REAL Hermes Agent gateway (testing/hermes-gateway.ts): Satchel in-process
// through its HTTP API, the gateway in front of a fake model that records every request in full. After each
// step (send, Stop, Regenerate, Edit, a switch to another agent and back) the conversation the model received
// through the gateway (its user and assistant texts; the gateway's system prompt and its tool messages are its
// own) equals the conversation Satchel shows, up to the message being answered. Skips, saying why, where the
// gateway is not set up (CI).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAgent, type FakeAgent } from '../testing/fake-agent.js';
import { findGatewaySetup, startFakeModel, startGateway, type FakeModel, type ModelMessage, type RunningGateway } from '../testing/hermes-gateway.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { openSse } from '../testing/sse.js';
import type { AgentKind } from '../agent/types.js';

/** The gateway refuses to start with a key under 16 characters. */
const KEY = 'hermes-gateway-test-key-0123456789';
/** Start (≈5 s), six turns through the agent loop (≈1 s each) and a stop: well under a minute. */
const WHOLE_RUN_MS = 60_000;
/** The gateway's first turn loads its agent (≈4 s before it asks the model); later ones take ≈1 s. */
const TURN_MS = 20_000;
const setup = findGatewaySetup();
if ('missing' in setup) console.warn(`[skipped] the real Hermes gateway test: ${setup.missing}`);

interface Row {
  role: string;
  content: string;
}

let srv: TestServer;
let model: FakeModel;
let gateway: RunningGateway;
let other: FakeAgent;
let compared = 0;

describe.skipIf('missing' in setup)("the real Hermes gateway sees exactly the conversation Satchel shows", () => {
  beforeAll(async () => {
    if ('missing' in setup) return;
    model = await startFakeModel();
    other = await startFakeAgent({ apiKey: KEY });
    srv = await startTestServer();
    const t0 = performance.now();
    gateway = await startGateway(setup, model.baseUrl, KEY);
    console.log(`[hermes gateway] healthy after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }, WHOLE_RUN_MS);
  afterAll(async () => {
    await gateway?.stop();
    await srv?.stop();
    await other?.close();
    await model?.close();
  }, WHOLE_RUN_MS);

  async function useAgent(baseUrl: string, kind: AgentKind, modelName: string): Promise<void> {
    const res = await srv.json('/api/agent/settings', { base_url: baseUrl, api_key: KEY, model: modelName, kind });
    expect(res.status).toBe(200);
    // Detected from the address (the real gateway answers /v1/capabilities as Hermes).
    expect(((await res.json()) as { kind: string }).kind).toBe(kind);
  }

  async function shown(id: string): Promise<Row[]> {
    const { session } = (await (await srv.api(`/api/session?session_id=${id}`)).json()) as { session: { messages: (Row & { _error?: boolean })[] } };
    return session.messages.filter((m) => !m._error).map(({ role, content }) => ({ role, content }));
  }

  /**
   * Texts compared without their outer whitespace: after a tool call the gateway streams a "\n\n" before the
   * answer's text (Satchel shows it, as rendered Markdown: invisibly) and stores the text without it.
   */
  const trimmed = (rows: Row[]) => rows.map((r) => ({ role: r.role, content: r.content.trim() }));

  /** The conversation in the model's last agent-loop request since `from`: its user and assistant texts. */
  function received(from: number): Row[] {
    const loop = model.requests.slice(from).filter((r) => r.tools.length > 0);
    expect(loop.length, 'the gateway asked the model nothing').toBeGreaterThan(0);
    return loop
      .at(-1)!
      .messages.filter((m: ModelMessage) => (m.role === 'user' || m.role === 'assistant') && !m.toolCalls && m.text)
      .map((m) => ({ role: m.role, content: m.text }));
  }

  /** What Satchel shows, up to the user message being answered, equals what the model received. */
  async function expectSame(id: string, from: number, step: string): Promise<void> {
    const rows = await shown(id);
    const upTo = rows.findLastIndex((r) => r.role === 'user');
    expect(trimmed(received(from)), step).toEqual(trimmed(rows.slice(0, upTo + 1)));
    compared++;
    console.log(`[hermes gateway] ${step}: the model received the ${upTo + 1} messages Satchel shows`);
  }

  async function start(body: Record<string, unknown>): Promise<string> {
    const res = await srv.json('/api/chat/start', body);
    const json = (await res.json()) as { stream_id: string };
    expect(res.status, JSON.stringify(json)).toBe(200);
    return json.stream_id;
  }

  /** A turn run to its end; returns where in the model's log it began. */
  async function turn(body: Record<string, unknown>): Promise<number> {
    const from = model.requests.length;
    const streamId = await start(body);
    const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${streamId}`, {});
    await stream.ended(TURN_MS);
    expect(stream.frames().map((f) => f.event)).toContain('done');
    return from;
  }

  /** A turn answered by the other (OpenAI) agent: it received the whole conversation Satchel shows. */
  async function turnAway(id: string, message: string, step: string): Promise<void> {
    other.next(reply('Hello from another agent.'));
    const before = other.requests.length;
    await turn({ session_id: id, message });
    const away = other.requests.slice(before).find((r) => r.path.endsWith('/chat/completions'))!;
    const rows = await shown(id);
    expect((away.body as { messages: Row[] }).messages).toEqual(rows.slice(0, -1));
    compared++;
    console.log(`[hermes gateway] ${step}: the other agent received the ${rows.length - 1} messages Satchel shows`);
  }

  it(
    'send (a todo), stop, regenerate, edit, switch away and back, send',
    async () => {
      const t0 = performance.now();
      await useAgent(gateway.baseUrl, 'hermes', 'hermes-agent');
      const id = await srv.newSession();

      let from = await turn({ session_id: id, message: 'Please add a todo: buy figs' });
      expect(model.requests.slice(from).some((r) => r.messages.some((m) => m.role === 'tool')), "the gateway ran its todo tool").toBe(true);
      await expectSame(id, from, 'send (the todo tool ran)');

      from = await turn({ session_id: id, message: 'What else should I buy?' });
      await expectSame(id, from, 'send again (in step: the gateway kept the history)');

      // Stop mid-reply: the gateway's database may now hold a turn Satchel shows as stopped.
      model.slow = true;
      from = model.requests.length;
      const streamId = await start({ session_id: id, message: 'Tell me slowly about figs' });
      const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${streamId}`, {});
      await stream.until((f) => f.event === 'token', TURN_MS);
      expect(await (await srv.api(`/api/chat/cancel?stream_id=${streamId}`)).json()).toMatchObject({ cancelled: true });
      await stream.ended(TURN_MS);
      model.slow = false;
      await expectSame(id, from, 'stop');

      from = await turn({ session_id: id, regenerate: true });
      await expectSame(id, from, 'regenerate');

      from = await turn({ session_id: id, regenerate: true, message: 'Tell me about olives instead' });
      await expectSame(id, from, 'edit');

      await useAgent(other.baseUrl, 'openai', 'fake-model');
      await turnAway(id, 'Hello, other agent', 'switch away');

      await useAgent(gateway.baseUrl, 'hermes', 'hermes-agent');
      from = await turn({ session_id: id, message: 'Back to Hermes: a todo for olives' });
      await expectSame(id, from, 'switch back and send');

      from = await turn({ session_id: id, message: 'Thanks' });
      await expectSame(id, from, 'send once more');
      console.log(`[hermes gateway] ${compared} requests compared, all equal to Satchel's conversation, in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    },
    WHOLE_RUN_MS,
  );

  it(
    "a conversation's connection switched from the gateway to an OpenAI server and back: each sees exactly what Satchel shows",
    async () => {
      await useAgent(gateway.baseUrl, 'hermes', 'hermes-agent');
      const added = await srv.json('/api/agent/connections', { name: 'Other', base_url: other.baseUrl, api_key: KEY, model: 'fake-model', kind: 'openai' });
      expect(added.status).toBe(200);
      const otherId = ((await added.json()) as { id: string }).id;
      const id = await srv.newSession();
      const pick = async (connection: string | null) => expect((await srv.json('/api/session/settings', { session_id: id, connection })).status).toBe(200);

      let from = await turn({ session_id: id, message: 'Please add a todo: buy dates' });
      await expectSame(id, from, 'connection: the gateway, send');
      from = await turn({ session_id: id, message: 'And what is on the list?' });
      await expectSame(id, from, 'connection: the gateway, send again (in step)');

      await pick(otherId);
      await turnAway(id, 'Hello, other connection', 'connection switched away');

      await pick(null);
      from = await turn({ session_id: id, message: 'Back on the gateway' });
      await expectSame(id, from, 'connection switched back to the gateway');
      from = await turn({ session_id: id, message: 'Thanks again' });
      await expectSame(id, from, 'connection: the gateway, send once more');
    },
    WHOLE_RUN_MS,
  );
});
