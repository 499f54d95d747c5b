// Issue 23, finding 2, over real sockets against the fake agent in Hermes' dialect: what the gateway is sent
// is exactly the conversation Satchel shows. With `X-Hermes-Session-Id` the real gateway ignores the body's
// history and loads its own, so the header may only go out while its database holds exactly the shown rows
// (agent/hermes-continuity.ts); otherwise the body carries the whole shown history and there is no header.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chunk, contentChunk, reply, startFakeAgent, type FakeAgent, type RecordedRequest, type Script } from '../testing/fake-agent.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { openSse } from '../testing/sse.js';
import { runTurn } from '../testing/turns.js';

const KEY = 'gateway-key-0123456789abcdef';
const HEADER = 'x-hermes-session-id';
let srv: TestServer;
let hermes: FakeAgent;
let plain: FakeAgent;

interface Row {
  role: string;
  content: string;
}

beforeAll(async () => {
  hermes = await startFakeAgent({ apiKey: KEY, hermes: true });
  plain = await startFakeAgent({ apiKey: KEY });
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.stop();
  await hermes.close();
  await plain.close();
});
beforeEach(async () => {
  await useAgent(hermes);
});

/** Saves `agent` in Settings (its kind detected as Satchel detects it), with `key` (default: the agent's). */
async function useAgent(agent: FakeAgent, key = KEY): Promise<void> {
  // A new address has its kind detected (the `kind` sent is ignored then); the same address keeps the one sent.
  const kind = agent === plain ? 'openai' : 'hermes';
  const res = await srv.json('/api/agent/settings', { base_url: agent.baseUrl, api_key: key, model: 'fake-model', kind });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(((await res.json()) as { kind: string }).kind).toBe(kind);
}

/** What Satchel shows of the session as the conversation: its rows, without the error and stop markers. */
async function shown(id: string): Promise<Row[]> {
  const res = await srv.api(`/api/session?session_id=${id}`);
  const { session } = (await res.json()) as { session: { messages: (Row & { _error?: boolean })[] } };
  return session.messages.filter((m) => !m._error).map(({ role, content }) => ({ role, content }));
}

/** Runs one turn to its end with `script` answering it; the chat completion the agent received. */
const turn = (agent: FakeAgent, body: Record<string, unknown>, script: Script): Promise<RecordedRequest> => runTurn(srv, agent, body, script);

/** A turn the person stops after the first words. */
async function stopped(agent: FakeAgent, id: string, message: string): Promise<RecordedRequest> {
  agent.next({ frames: [chunk({ role: 'assistant', content: '' }), contentChunk('Once upon')], end: 'stall' });
  const before = agent.requests.length;
  const { stream_id } = (await (await srv.json('/api/chat/start', { session_id: id, message })).json()) as { stream_id: string };
  const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${stream_id}`);
  await stream.until((f) => f.event === 'token');
  expect(await (await srv.api(`/api/chat/cancel?stream_id=${stream_id}`)).json()).toMatchObject({ cancelled: true });
  await stream.ended();
  return agent.requests.slice(before).find((r) => r.path.endsWith('/chat/completions'))!;
}

const messagesOf = (r: RecordedRequest) => (r.body as { messages: Row[] }).messages;
const user = (content: string): Row => ({ role: 'user', content });

/** The request carried the whole shown conversation and the new message, and no Hermes header. */
function expectHistory(r: RecordedRequest, history: Row[], message: string): void {
  expect(r.headers[HEADER]).toBeUndefined();
  expect(messagesOf(r)).toEqual([...history, user(message)]);
}

describe("Hermes' gateway sees exactly the shown conversation", () => {
  it('first turn: a fresh Hermes id and the one message; second turn in step: the same id and the one message', async () => {
    const id = await srv.newSession();
    const first = await turn(hermes, { session_id: id, message: 'Add a todo: buy figs' }, reply('Added.'));
    expect(first.headers[HEADER]).toMatch(new RegExp(`^satchel-${id}-[0-9a-f]{8}$`));
    expect(messagesOf(first)).toEqual([user('Add a todo: buy figs')]);
    const second = await turn(hermes, { session_id: id, message: 'And olives' }, reply('Added too.'));
    expect(second.headers[HEADER]).toBe(first.headers[HEADER]);
    expect(messagesOf(second)).toEqual([user('And olives')]);
    // The Hermes id is Satchel's own bookkeeping: not in what the page receives.
    expect(JSON.stringify(await (await srv.api(`/api/session?session_id=${id}`)).json())).not.toContain(first.headers[HEADER] as string);
  });

  it('after Stop, the next turn carries the whole shown history and no header, and so do the turns after it', async () => {
    const id = await srv.newSession();
    await turn(hermes, { session_id: id, message: 'Tell me a story' }, reply('A short one.'));
    const cut = await stopped(hermes, id, 'A longer one, about a todo list');
    expect(cut.headers[HEADER]).toBeDefined();
    const history = await shown(id);
    expect(history.at(-1)).toEqual({ role: 'assistant', content: 'Once upon' });
    const next = await turn(hermes, { session_id: id, message: 'Shorter please' }, reply('Fine.'));
    expectHistory(next, history, 'Shorter please');
    const later = await turn(hermes, { session_id: id, message: 'Thanks' }, reply('Welcome.'));
    expectHistory(later, await shown(id).then((rows) => rows.slice(0, -2)), 'Thanks');
  });

  it('Regenerate after a failure sends the history without the failed turn, and no header', async () => {
    const id = await srv.newSession();
    await turn(hermes, { session_id: id, message: 'What is the weather?' }, reply('Sunny.'));
    const failed = await turn(hermes, { session_id: id, message: 'And tomorrow?' }, { status: 500, body: { error: { message: 'model crashed' } } });
    expect(failed.headers[HEADER]).toBeDefined();
    const again = await turn(hermes, { session_id: id, regenerate: true }, reply('Rain.'));
    expectHistory(again, [user('What is the weather?'), { role: 'assistant', content: 'Sunny.' }], 'And tomorrow?');
    expect(await shown(id)).toEqual([user('What is the weather?'), { role: 'assistant', content: 'Sunny.' }, user('And tomorrow?'), { role: 'assistant', content: 'Rain.' }]);
  });

  it('Edit of the first message starts a fresh Hermes id: its database holds nothing yet', async () => {
    const id = await srv.newSession();
    const first = await turn(hermes, { session_id: id, message: 'Plan a trip to Lisbn' }, reply('Where?'));
    const edited = await turn(hermes, { session_id: id, regenerate: true, message: 'Plan a trip to Lisbon' }, reply('Day 1: Alfama.'));
    expect(edited.headers[HEADER]).toMatch(new RegExp(`^satchel-${id}-[0-9a-f]{8}$`));
    expect(edited.headers[HEADER]).not.toBe(first.headers[HEADER]);
    expect(messagesOf(edited)).toEqual([user('Plan a trip to Lisbon')]);
  });

  it('switching to an OpenAI-compatible agent and back: each gets the whole shown history', async () => {
    const id = await srv.newSession();
    await turn(hermes, { session_id: id, message: 'Hello Hermes' }, reply('Hello.'));
    await useAgent(plain);
    const away = await turn(plain, { session_id: id, message: 'Hello other' }, reply('Hi from elsewhere.'));
    expectHistory(away, [user('Hello Hermes'), { role: 'assistant', content: 'Hello.' }], 'Hello other');
    await useAgent(hermes);
    const history = await shown(id);
    const back = await turn(hermes, { session_id: id, message: 'Back again' }, reply('Welcome back.'));
    expectHistory(back, history, 'Back again');
  });

  it("switching a conversation's connection between the gateway and an OpenAI server: each gets the whole shown history", async () => {
    // The gateway is the default (beforeEach); the plain server is a second saved connection.
    const added = await srv.json('/api/agent/connections', { name: 'Plain', base_url: plain.baseUrl, api_key: KEY, model: 'fake-model', kind: 'openai' });
    expect(added.status, await added.clone().text()).toBe(200);
    const other = ((await added.json()) as { id: string }).id;
    const pick = async (id: string, connection: string | null) => expect((await srv.json('/api/session/settings', { session_id: id, connection })).status).toBe(200);
    try {
      const id = await srv.newSession();
      const first = await turn(hermes, { session_id: id, message: 'Hello Hermes' }, reply('Hello.'));
      expect(first.headers[HEADER]).toMatch(new RegExp(`^satchel-${id}-`));
      await pick(id, other);
      const away = await turn(plain, { session_id: id, message: 'Hello other' }, reply('Hi from elsewhere.'));
      expectHistory(away, [user('Hello Hermes'), { role: 'assistant', content: 'Hello.' }], 'Hello other');
      await pick(id, null);
      const history = await shown(id);
      const back = await turn(hermes, { session_id: id, message: 'Back again' }, reply('Welcome back.'));
      expectHistory(back, history, 'Back again');
      // Another conversation on the default meanwhile kept its own continuity with the gateway.
      const still = await srv.newSession();
      expect((await turn(hermes, { session_id: still, message: 'Solo' }, reply('Yes.'))).headers[HEADER]).toMatch(new RegExp(`^satchel-${still}-`));
    } finally {
      expect((await srv.json('/api/agent/connections/delete', { id: other })).status).toBe(200);
    }
  });

  it('never sends the header without a key (the gateway would answer 403)', async () => {
    const open = await startFakeAgent({ hermes: true });
    try {
      await useAgent(open, '');
      const id = await srv.newSession();
      const first = await turn(open, { session_id: id, message: 'hi' }, reply('hello'));
      expectHistory(first, [], 'hi');
      const second = await turn(open, { session_id: id, message: 'again' }, reply('hello again'));
      expectHistory(second, [user('hi'), { role: 'assistant', content: 'hello' }], 'again');
    } finally {
      await open.close();
    }
  });
});

describe('Inbox arrivals reach the agent (server/agent/arrivals-input.ts)', () => {
  /** The files opened with Satchel into the Inbox, once their row is written; the Inbox's id. */
  async function arrive(name: string, text: string): Promise<string> {
    const file = path.join(srv.tmp, name);
    fs.writeFileSync(file, text);
    const { sessionId } = await srv.desktop.addToInbox([file]);
    for (let i = 0; i < 100; i++) {
      const { session } = (await (await srv.api(`/api/session?session_id=${sessionId}`)).json()) as { session: { messages: { content: string }[] } };
      if (session.messages.some((m) => m.content.startsWith(`${name} arrived`))) return sessionId!;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no row for ${name}`);
  }
  const textOf = (r: RecordedRequest) => JSON.stringify(messagesOf(r).at(-1)!.content);

  it("the first question gets the arrived file's text, with the gateway keeping the history; a later arrival keeps it in step", async () => {
    const inbox = await arrive('invoice-0425.txt', 'Invoice 0425: 3 hours of plumbing, 180 euros.');
    const first = await turn(hermes, { session_id: inbox, message: 'what came in today?' }, reply('An invoice for plumbing.'));
    expect(first.headers[HEADER]).toMatch(new RegExp(`^satchel-${inbox}-[0-9a-f]{8}$`));
    expect(messagesOf(first)).toHaveLength(1);
    expect(textOf(first)).toContain('Files that arrived since the last message (from watched folders or opened with Satchel):');
    expect(textOf(first)).toContain('Invoice 0425: 3 hours of plumbing, 180 euros.');

    await arrive('receipt.txt', 'Receipt: paid 180 euros on 26 November.');
    const second = await turn(hermes, { session_id: inbox, message: 'and now?' }, reply('A receipt.'));
    // Still in step: the same Hermes id, only the new turn, which carries the new file and not the old one again.
    expect(second.headers[HEADER]).toBe(first.headers[HEADER]);
    expect(messagesOf(second)).toHaveLength(1);
    expect(textOf(second)).toContain('Receipt: paid 180 euros on 26 November.');
    expect(textOf(second)).not.toContain('Invoice 0425');
  });

  it('an OpenAI-compatible server gets the earlier arrival read again in the history, on the person\'s side', async () => {
    await useAgent(plain);
    const inbox = await arrive('scan-7.txt', 'Scanned page seven.');
    await turn(plain, { session_id: inbox, message: 'file it' }, reply('Filed.'));
    await arrive('scan-8.txt', 'Scanned page eight.');
    const r = await turn(plain, { session_id: inbox, message: 'summarize everything' }, reply('Done.'));
    const sent = messagesOf(r);
    expect(sent.every((m) => m.role !== 'system')).toBe(true);
    // Earlier: read again where it arrived, joined to the person's next message (issue 36); new: read into this turn.
    const earlier = sent.find((m) => JSON.stringify(m.content).includes('Scanned page seven.'));
    expect(earlier?.role).toBe('user');
    expect(JSON.stringify(earlier?.content)).toContain('file it');
    expect(JSON.stringify(sent.at(-1)!.content)).toContain('Scanned page eight.');
    expect(JSON.stringify(sent.at(-1)!.content)).not.toContain('Scanned page seven.');
    expect(JSON.stringify(sent)).not.toContain(srv.stateDir);
  });
});
