// Issue 34's three scripts over real sockets, against the fake agent (chat-queued-gateway.test.ts runs the first
// against the real Hermes gateway, chat-queued-kill.test.ts kills Satchel mid-turn):
// 1. a message stored while a reply streams (POST /api/session/message without message_index, quick capture into
//    the current conversation) is seen by a Hermes agent on the next turn;
// 2. it is stored after the turn's rows (all agents), also a file opened with Satchel into the conversation;
// 3. a conversation whose first row is the agent's (an import) sends that row.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_OPENING_NOTE } from '../agent/input.js';
import { chunk, contentChunk, startFakeAgent, type FakeAgent, type Frame, type RecordedRequest } from '../testing/fake-agent.js';
import { postMultipart, startTestServer, waitUntil, type TestServer } from '../testing/harness.js';
import { openSse } from '../testing/sse.js';
import { runTurn } from '../testing/turns.js';
import { reply } from '../testing/fake-agent.js';
import { openStore } from '../testing/fresh-store.js';

const KEY = 'gateway-key-0123456789abcdef';
const HEADER = 'x-hermes-session-id';
let srv: TestServer;
let hermes: FakeAgent;
let plain: FakeAgent;

interface Row {
  role: string;
  content: string;
  _error?: boolean;
  arrival?: unknown;
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

async function useAgent(agent: FakeAgent): Promise<void> {
  const kind = agent === plain ? 'openai' : 'hermes';
  const res = await srv.json('/api/agent/settings', { base_url: agent.baseUrl, api_key: KEY, model: 'fake-model', kind });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function session(id: string): Promise<{ messages: Row[]; queued_messages?: Row[]; active_stream_id?: string }> {
  const res = await srv.api(`/api/session?session_id=${id}`);
  return ((await res.json()) as { session: { messages: Row[]; queued_messages?: Row[] } }).session;
}

const rowsOf = (rows: Row[]) => rows.map((r) => ({ role: r.role, content: r.content }));
const user = (content: string) => ({ role: 'user', content });
const assistant = (content: string) => ({ role: 'assistant', content });
const messagesOf = (r: RecordedRequest) => (r.body as { messages: { role: string; content: unknown }[] }).messages;

/** A reply that writes its first words, then waits for `release` before the rest. */
function heldReply(first: string, rest: string): { frames: AsyncIterable<Frame>; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  async function* frames(): AsyncGenerator<Frame> {
    yield chunk({ role: 'assistant', content: '' });
    yield contentChunk(first);
    await gate;
    yield contentChunk(rest);
    yield chunk({}, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  }
  return { frames: frames(), release };
}

/** Start a turn whose reply holds after its first words; resolves once they streamed. */
async function startHeld(agent: FakeAgent, id: string, message: string, first: string, rest: string) {
  const held = heldReply(first, rest);
  agent.next({ frames: held.frames });
  const before = agent.requests.length;
  const res = await srv.json('/api/chat/start', { session_id: id, message });
  const started = (await res.json()) as { stream_id: string };
  expect(res.status, JSON.stringify(started)).toBe(200);
  const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${started.stream_id}`);
  // The live text is redacted as it streams (agent/stream-redact.ts): a word is sent once the space after it came.
  await stream.until((f) => f.event === 'token');
  return {
    async finish(): Promise<RecordedRequest> {
      held.release();
      await stream.ended();
      return agent.requests.slice(before).find((r) => r.path.endsWith('/chat/completions'))!;
    },
  };
}

/** The two ways a person stores a message while the reply streams; both answer 200 and say it waits. */
async function writeNotes(id: string, note: string, captured: string): Promise<void> {
  const res = await srv.json('/api/session/message', { session_id: id, text: note, answer: 'summary' });
  const body = (await res.json()) as { queued?: boolean; message_index: number | null; message: Row };
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body).toMatchObject({ queued: true, message_index: null, message: { role: 'user', content: note } });
  const cap = await srv.json('/api/capture/send', { destination: 'current', session_id: id, text: captured });
  const capBody = (await cap.json()) as { ok: boolean; queued?: boolean };
  expect(cap.status, JSON.stringify(capBody)).toBe(200);
  expect(capBody.queued).toBe(true);
}

describe('a message written while a reply streams (issue 34)', () => {
  it('Hermes: the note is shown after the streaming reply, stored after it, and the next turn sends the whole history without the header', async () => {
    await useAgent(hermes);
    const id = await srv.newSession();
    const held = await startHeld(hermes, id, 'm1', 'R1 begins ', 'and ends');
    await writeNotes(id, 'm2 (a note)', 'm2b (captured)');
    // On screen while the reply is written: the stored rows, the pending turn, then the notes after it.
    const during = await session(id);
    expect(rowsOf(during.messages)).toEqual([]);
    expect(rowsOf(during.queued_messages ?? [])).toEqual([user('m2 (a note)'), user('m2b (captured)')]);
    const first = await held.finish();
    expect(first.headers[HEADER]).toBeDefined();
    expect(rowsOf((await session(id)).messages)).toEqual([user('m1'), assistant('R1 begins and ends'), user('m2 (a note)'), user('m2b (captured)')]);
    expect((await session(id)).queued_messages).toBeUndefined();

    const next = await runTurn(srv, hermes, { session_id: id, message: 'm3' }, reply('R3'));
    // The gateway never received the notes: the whole shown history goes in the body, with no header.
    expect(next.headers[HEADER]).toBeUndefined();
    expect(messagesOf(next)).toEqual([user('m1'), assistant('R1 begins and ends'), user('m2 (a note)'), user('m2b (captured)'), user('m3')]);
  });

  it('any agent: the note and a file opened with Satchel into the conversation are stored after the turn, in the order written, also after a restart', async () => {
    await useAgent(plain);
    const id = await srv.newSession();
    await runTurn(srv, plain, { session_id: id, message: 'm0' }, reply('R0'));
    const held = await startHeld(plain, id, 'm1', 'R1 is ', 'done');
    const file = path.join(srv.tmp, 'scan.txt');
    await fs.writeFile(file, 'a scanned page');
    const opened = await srv.desktop.addToInbox([file], 'current');
    expect(opened.sessionId).toBe(id);
    await waitUntil(async () => ((await session(id)).queued_messages ?? []).length === 1, 'the arrival row waiting');
    await writeNotes(id, 'note after the file', 'captured last');
    const first = await held.finish();
    expect(messagesOf(first)).toEqual([user('m0'), assistant('R0'), user('m1')]);
    const expected = [user('m0'), assistant('R0'), user('m1'), assistant('R1 is done'), { role: 'system', content: 'scan.txt arrived (opened with Satchel)' }, user('note after the file'), user('captured last')];
    expect(rowsOf((await session(id)).messages)).toEqual(expected);

    // The order is what is stored: the database itself, read by a store of its own (a second server may not
    // open a state folder one already owns), holds the same rows.
    const stored = await openStore(srv.stateDir);
    try {
      expect(rowsOf((await stored.get(id))!.messages as Row[])).toEqual(expected);
    } finally {
      await stored.close();
    }
    // The next turn sends them too (the file was read into that turn as an arrival).
    const next = await runTurn(srv, plain, { session_id: id, message: 'm3' }, reply('R3'));
    const sent = JSON.stringify(messagesOf(next));
    expect(sent).toContain('note after the file');
    expect(sent).toContain('a scanned page');
  });

  it('a new version (message_index) is still refused while a turn runs: 409, nothing stored', async () => {
    await useAgent(plain);
    const id = await srv.newSession();
    await runTurn(srv, plain, { session_id: id, message: 'first' }, reply('One'));
    const held = await startHeld(plain, id, 'second', 'Two ', 'more.');
    const res = await srv.json('/api/session/message', { session_id: id, text: 'first, edited', message_index: 0 });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: string }).error).toBe('session already has an active stream');
    await held.finish();
    expect(rowsOf((await session(id)).messages)).toEqual([user('first'), assistant('One'), user('second'), assistant('Two more.')]);
  });
});

describe('a conversation that opens with the agent (issue 34, 3)', () => {
  it('an imported conversation whose first row is the agent’s sends that row, after a line saying so', async () => {
    await useAgent(plain);
    const doc = {
      satchel_export: 1,
      title: 'Greeting',
      messages: [
        { role: 'assistant', content: 'Welcome! The secret word is "heliotrope".', timestamp: 1_700_000_000 },
        { role: 'user', content: 'Thanks', timestamp: 1_700_000_001 },
        { role: 'assistant', content: 'Any time.', timestamp: 1_700_000_002 },
      ],
      attachments: [],
    };
    const imported = await postMultipart(srv, '/api/session/import', [{ name: 'file', filename: 'greeting.json', content: JSON.stringify(doc) }]);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const id = imported.body.session.session_id as string;
    const sent = await runTurn(srv, plain, { session_id: id, message: 'What was the secret word?' }, reply('Heliotrope.'));
    expect(messagesOf(sent)).toEqual([
      user(AGENT_OPENING_NOTE),
      assistant('Welcome! The secret word is "heliotrope".'),
      user('Thanks'),
      assistant('Any time.'),
      user('What was the secret word?'),
    ]);
  });
});
