// Versions over real sockets (issue 23, "nothing is removed without a trace"): Regenerate and Edit keep what they
// replace, POST /api/session/version switches, and the version shown is what the agent is sent next.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { scriptedAgent, TEST_AGENT_CONFIG, type ScriptedAgent } from '../testing/scripted-agent.js';
import { openSse } from '../testing/sse.js';
import { recoverInterruptedTurns } from '../agent/turns.js';
import { INTERRUPTED } from '../agent/turn-texts.js';
import { branch, NO_SUCH_MESSAGE, NO_SUCH_VERSION, NO_VERSIONS, showVersion, versionSummary } from '../store/versions.js';
import { storedSessionText } from '../testing/stored-session.js';
import { openStore } from '../testing/fresh-store.js';

let srv: TestServer;
let agent: ScriptedAgent;
let turnCount = 0;

beforeAll(async () => {
  agent = scriptedAgent();
  srv = await startTestServer({ agent: { streamTurn: agent.streamTurn, loadConfig: () => TEST_AGENT_CONFIG } });
});
afterAll(async () => {
  await srv.stop();
});

type Row = { role: string; content: string; versions?: { index: number; count: number; edited: boolean } };

async function post(pathname: string, body: Record<string, unknown>) {
  const res = await srv.json(pathname, body);
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

/** One turn answered `answer`; the request the agent got. */
async function exchange(body: Record<string, unknown>, answer: string) {
  const { status, json } = await post('/api/chat/start', body);
  expect(status, JSON.stringify(json)).toBe(200);
  const upstream = await agent.turn(turnCount++);
  upstream.push({ kind: 'token', text: answer });
  upstream.finish();
  await (await openSse(srv.port, `/api/chat/stream?stream_id=${json.stream_id}`)).ended();
  return upstream.request;
}

async function shown(id: string): Promise<Row[]> {
  const res = await srv.api(`/api/session?session_id=${id}`);
  return ((await res.json()) as { session: { messages: Row[] } }).session.messages;
}
const said = (rows: Row[]) => rows.map((r) => r.content);
const sentTexts = (request: { messages: { content: unknown }[] }) => request.messages.map((m) => m.content);

describe('versions', () => {
  it('Regenerate keeps the earlier reply: 2/2 shown, 1/2 brings it back, and the next turn sends the version shown', async () => {
    const id = await srv.newSession();
    await exchange({ session_id: id, message: 'Name a colour' }, 'Teal.');
    await exchange({ session_id: id, regenerate: true }, 'Amber.');
    let rows = await shown(id);
    expect(said(rows)).toEqual(['Name a colour', 'Amber.']);
    expect(rows[0]!.versions).toMatchObject({ index: 1, count: 2, edited: false });
    // The other version is kept on disk, never sent in the session (only its summary).
    const body = JSON.stringify(rows);
    expect(body).not.toContain('Teal.');
    expect(body).not.toContain('_versions');
    expect(await storedSessionText(srv.stateDir, id)).toContain('Teal.');

    const switched = await post('/api/session/version', { session_id: id, message_index: 0, version: 0 });
    expect(switched.status).toBe(200);
    expect(said(switched.json.session.messages)).toEqual(['Name a colour', 'Teal.']);
    rows = await shown(id);
    expect(rows[0]!.versions).toMatchObject({ index: 0, count: 2, edited: false });
    const next = await exchange({ session_id: id, message: 'And another?' }, 'Coral.');
    expect(sentTexts(next)).toEqual(['Name a colour', 'Teal.', 'And another?']);
  });

  it('Edit of an earlier message branches from there; switching back brings the whole later conversation', async () => {
    const id = await srv.newSession();
    await exchange({ session_id: id, message: 'Plan a day in Porto' }, 'Start at the Ribeira.');
    await exchange({ session_id: id, message: 'Where to eat?' }, 'Try a francesinha.');
    const edited = await exchange({ session_id: id, regenerate: true, message_index: 0, message: 'Plan a day in Lisbon' }, 'Start in Alfama.');
    // The agent is sent the edited message alone: nothing of the version it replaces.
    expect(sentTexts(edited)).toEqual(['Plan a day in Lisbon']);
    let rows = await shown(id);
    expect(said(rows)).toEqual(['Plan a day in Lisbon', 'Start in Alfama.']);
    expect(rows[0]!.versions).toMatchObject({ index: 1, count: 2, edited: true });

    await post('/api/session/version', { session_id: id, message_index: 0, version: 0 });
    expect(said(await shown(id))).toEqual(['Plan a day in Porto', 'Start at the Ribeira.', 'Where to eat?', 'Try a francesinha.']);
    // A version inside a version: Regenerate the second answer, then switch the first message away and back.
    await exchange({ session_id: id, regenerate: true }, 'Try tripas.');
    await post('/api/session/version', { session_id: id, message_index: 0, version: 1 });
    expect(said(await shown(id))).toEqual(['Plan a day in Lisbon', 'Start in Alfama.']);
    await post('/api/session/version', { session_id: id, message_index: 0, version: 0 });
    rows = await shown(id);
    expect(said(rows)).toEqual(['Plan a day in Porto', 'Start at the Ribeira.', 'Where to eat?', 'Try tripas.']);
    expect(rows[2]!.versions).toMatchObject({ index: 1, count: 2, edited: false });
    const next = await exchange({ session_id: id, message: 'And dessert?' }, 'Pastel de nata.');
    expect(sentTexts(next)).toEqual(['Plan a day in Porto', 'Start at the Ribeira.', 'Where to eat?', 'Try tripas.', 'And dessert?']);
  });

  it('a stopped Regenerate keeps the earlier reply too', async () => {
    const id = await srv.newSession();
    await exchange({ session_id: id, message: 'Tell a story' }, 'Once upon a time.');
    const { json } = await post('/api/chat/start', { session_id: id, regenerate: true });
    const upstream = await agent.turn(turnCount++);
    const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${json.stream_id}`);
    upstream.push({ kind: 'token', text: 'Long ago' });
    await stream.until((f) => f.event === 'token');
    await srv.api(`/api/chat/cancel?stream_id=${json.stream_id}`);
    await stream.ended();
    const rows = await shown(id);
    expect(rows[0]!.versions).toMatchObject({ index: 1, count: 2, edited: false });
    await post('/api/session/version', { session_id: id, message_index: 0, version: 0 });
    expect(said(await shown(id))).toEqual(['Tell a story', 'Once upon a time.']);
  });

  it('refuses a switch while a turn runs (409), and what names no message, no versions or no version (400)', async () => {
    const id = await srv.newSession();
    await exchange({ session_id: id, message: 'Q' }, 'A1');
    await exchange({ session_id: id, regenerate: true }, 'A2');
    expect(await post('/api/session/version', { session_id: id, message_index: 1, version: 0 })).toEqual({ status: 400, json: { error: NO_VERSIONS } });
    expect(await post('/api/session/version', { session_id: id, message_index: 7, version: 0 })).toEqual({ status: 400, json: { error: NO_SUCH_MESSAGE } });
    expect(await post('/api/session/version', { session_id: id, message_index: 0, version: 2 })).toEqual({ status: 400, json: { error: NO_SUCH_VERSION } });
    expect(await post('/api/session/version', { session_id: id, message_index: 0 })).toEqual({ status: 400, json: { error: 'Missing required field(s): version' } });
    expect(await post('/api/chat/start', { session_id: id, regenerate: true, message_index: 1 })).toEqual({ status: 400, json: { error: NO_SUCH_MESSAGE } });
    expect(await post('/api/chat/start', { session_id: id, regenerate: true, message_index: 'first' })).toEqual({ status: 400, json: { error: NO_SUCH_MESSAGE } });
    const other = await srv.newSession({ profile: 'work' });
    expect(await post('/api/session/version', { session_id: other, message_index: 0, version: 0 })).toEqual({ status: 404, json: { error: 'Session not found' } });

    const { json } = await post('/api/chat/start', { session_id: id, message: 'Q2' });
    const upstream = await agent.turn(turnCount++);
    expect(await post('/api/session/version', { session_id: id, message_index: 0, version: 0 })).toEqual({
      status: 409,
      json: { error: 'session already has an active stream', active_stream_id: json.stream_id },
    });
    upstream.finish();
    await (await openSse(srv.port, `/api/chat/stream?stream_id=${json.stream_id}`)).ended();
    // The refused switch changed nothing: the turn's rows went onto the version it was started on.
    expect(said(await shown(id))).toEqual(['Q', 'A2', 'Q2', '']);
  });
});

describe('versions without an agent', () => {
  it('POST /api/session/message with message_index stores the edited message as a new version, the old one kept', async () => {
    const id = await srv.newSession();
    await post('/api/session/message', { session_id: id, text: 'first note' });
    await post('/api/session/message', { session_id: id, text: 'second note' });
    const edited = await post('/api/session/message', { session_id: id, text: 'first note, better', message_index: 0 });
    expect(edited.status).toBe(200);
    expect(said(edited.json.session.messages)).toEqual(['first note, better']);
    expect(edited.json.session.messages[0].versions).toMatchObject({ index: 1, count: 2, edited: true });
    await post('/api/session/version', { session_id: id, message_index: 0, version: 0 });
    expect(said(await shown(id))).toEqual(['first note', 'second note']);
    expect(await post('/api/session/message', { session_id: id, text: 'x', message_index: 5 })).toEqual({ status: 400, json: { error: NO_SUCH_MESSAGE } });
  });
});

describe('versions across a restart', () => {
  it('a turn that made a new version and was cut by a restart keeps the version it replaced', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-versions-'));
    try {
      const store = await openStore(dir);
      const { session_id: id } = await store.create({ workspace: dir, profile: 'default' });
      await store.update(id, (s) => {
        s.messages = [
          { role: 'user', content: 'Q', timestamp: 1 },
          { role: 'assistant', content: 'A1', timestamp: 2 },
        ];
      });
      // What start() writes for a Regenerate: the exchange moved into the pending fork, the turn pending.
      await store.update(id, (s) => {
        const { kept, fork } = branch(s.messages, 0);
        s.messages = kept;
        s._pending_versions = fork;
        s.active_stream_id = 'f'.repeat(32);
        s.pending_user_message = 'Q';
        s.pending_attachments = [];
        s.pending_started_at = 3;
      });
      const after = await openStore(dir);
      expect(await recoverInterruptedTurns(after)).toBe(1);
      const rows = (await after.get(id))!.messages;
      expect(rows.map((r) => r.content)).toEqual(['Q', `**Interrupted:** ${INTERRUPTED}`]);
      expect(versionSummary(rows[0]!)).toMatchObject({ index: 1, count: 2, edited: false });
      expect(showVersion(rows, 0, 0).map((r) => r.content)).toEqual(['Q', 'A1']);
      expect(after.get(id)).not.toHaveProperty('_pending_versions');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
