// Issue 38, item 6: each reply says which agent (the saved connection's name) and model wrote it, kept with the
// row (a reload, an export and its import say the same), and "Regenerate with…" asks another connection or model
// for this turn only. Over real sockets against two fake agents, as a person switches between them.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN_CONNECTION_ID } from '../agent/connections.js';
import { reply, startFakeAgent, type FakeAgent } from '../testing/fake-agent.js';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';
import { runTurn } from '../testing/turns.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

let a: FakeAgent;
let b: FakeAgent;
let srv: TestServer;
let stateDir: string;
let second = '';

beforeAll(async () => {
  a = await startFakeAgent({ models: ['model-a'] });
  b = await startFakeAgent({ models: ['model-b', 'model-b-large'] });
  stateDir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-answered-')), 'state');
  await fs.mkdir(stateDir, { recursive: true });
  await fs.writeFile(path.join(stateDir, 'agent.json'), JSON.stringify({ baseUrl: a.baseUrl, model: 'model-a', kind: 'openai' }), { mode: 0o600 });
  srv = await startTestServer({ stateDir });
  const first = await srv.json('/api/agent/connections', { id: MAIN_CONNECTION_ID, name: 'Home box', base_url: a.baseUrl, model: 'model-a' });
  expect(first.status, await first.text()).toBe(200);
  const added = await srv.json('/api/agent/connections', { name: 'Work box', base_url: b.baseUrl, model: 'model-b' });
  expect(added.status).toBe(200);
  second = ((await added.json()) as Json).id as string;
});
afterAll(async () => {
  await srv?.stop();
  await fs.rm(path.dirname(stateDir), { recursive: true, force: true });
  await a?.close();
  await b?.close();
});

const session = async (id: string): Promise<Json> => ((await (await srv.api(`/api/session?session_id=${id}`)).json()) as Json).session as Json;
const replies = (s: Json) => (s.messages as Json[]).filter((m) => m.role === 'assistant');

/** One member of a zip, as text. */
async function member(bytes: Buffer, name: string): Promise<string | undefined> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true });
  for (;;) {
    const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
      zip.once('entry', resolve).once('end', () => resolve(null)).once('error', reject);
      zip.readEntry();
    });
    if (!entry) return undefined;
    if (entry.fileName !== name) continue;
    const chunks: Buffer[] = [];
    for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
}

describe('who answered (issue 38, item 6)', () => {
  it('each reply keeps the agent and model that wrote it, across a switch of the conversation\'s agent', async () => {
    const id = await srv.newSession();
    await runTurn(srv, a, { session_id: id, message: 'hello' }, reply('from home'));
    // The person switches the conversation to the other agent and a model of its.
    expect((await srv.json('/api/session/settings', { session_id: id, connection: second, model: 'model-b-large' })).status).toBe(200);
    const sent = await runTurn(srv, b, { session_id: id, message: 'and you?' }, reply('from work'));
    expect((sent.body as Json).model).toBe('model-b-large');
    const shown = replies(await session(id));
    expect(shown.map((m) => [m.content, m.answered_by])).toEqual([
      ['from home', { connection: MAIN_CONNECTION_ID, agent: 'Home box', model: 'model-a' }],
      ['from work', { connection: second, agent: 'Work box', model: 'model-b-large' }],
    ]);
  });

  it('a failed turn says who failed; the stop marker is Satchel\'s', async () => {
    const id = await srv.newSession();
    b.next({ status: 500, body: { error: { message: 'boom' } } });
    expect((await srv.json('/api/session/settings', { session_id: id, connection: second })).status).toBe(200);
    const res = await srv.json('/api/chat/start', { session_id: id, message: 'fail please' });
    const { stream_id: streamId } = (await res.json()) as Json;
    const { openSse } = await import('../testing/sse.js');
    await (await openSse(srv.port, `/api/chat/stream?stream_id=${streamId}`)).ended();
    const [failure] = replies(await session(id));
    expect(failure).toMatchObject({ _error: true, answered_by: { connection: second, agent: 'Work box', model: 'model-b' } });
  });

  it('Regenerate with another connection and model: this reply only, the conversation\'s agent unchanged', async () => {
    const id = await srv.newSession();
    await runTurn(srv, a, { session_id: id, message: 'a question' }, reply('home answer'));
    const sent = await runTurn(srv, b, { session_id: id, regenerate: true, connection: second, model: 'model-b-large' }, reply('work answer'));
    expect((sent.body as Json).model).toBe('model-b-large');
    const after = await session(id);
    expect(after.connection).toBeUndefined();
    expect(replies(after).map((m) => [m.content, m.answered_by])).toEqual([['work answer', { connection: second, agent: 'Work box', model: 'model-b-large' }]]);
    // The version it replaced keeps its own.
    const earlier = ((await (await srv.json('/api/session/version', { session_id: id, message_index: 0, version: 0 })).json()) as Json).session as Json;
    expect(replies(earlier)[0]).toMatchObject({ content: 'home answer', answered_by: { agent: 'Home box', model: 'model-a' } });
    // Without a model, another connection's turn asks that connection's own (the conversation's model is its agent's).
    expect((await srv.json('/api/session/settings', { session_id: id, model: 'model-a' })).status).toBe(200);
    const own = await runTurn(srv, b, { session_id: id, regenerate: true, connection: second }, reply('work default'));
    expect((own.body as Json).model).toBe('model-b');
  });

  it('refuses a connection that is no id or no saved one, before anything is stored', async () => {
    const id = await srv.newSession();
    await runTurn(srv, a, { session_id: id, message: 'q' }, reply('r'));
    const bad = await srv.json('/api/chat/start', { session_id: id, regenerate: true, connection: '../x' });
    expect([bad.status, await bad.json()]).toEqual([400, { error: 'Invalid connection id' }]);
    const gone = await srv.json('/api/chat/start', { session_id: id, regenerate: true, connection: 'abcdef0123456789' });
    expect([gone.status, await gone.json()]).toEqual([404, { error: 'Agent connection not found' }]);
    expect(replies(await session(id)).map((m) => m.content)).toEqual(['r']);
  });

  it('an export says who wrote each reply (JSON and Markdown) and its import keeps it', async () => {
    const id = await srv.newSession();
    await runTurn(srv, a, { session_id: id, message: 'q' }, reply('r'));
    // A conversation without files exports as one .json file; the Markdown comes in a .zip.
    const exported = Buffer.from(await (await srv.api(`/api/session/export?session_id=${id}&format=json`)).arrayBuffer());
    const json = JSON.parse(exported.toString('utf8')) as Json;
    expect(json.messages[1].answered_by).toEqual({ connection: MAIN_CONNECTION_ID, agent: 'Home box', model: 'model-a' });
    const md = (await member(Buffer.from(await (await srv.api(`/api/session/export?session_id=${id}&format=md`)).arrayBuffer()), 'conversation.md'))!;
    expect(md).toMatch(/^### Assistant \(Home box · model-a\) · /m);
    const { status, body } = await postMultipart(srv, '/api/session/import', [{ name: 'file', filename: 'c.json', content: exported }]);
    expect(status).toBe(200);
    expect(replies((body as Json).session as Json)[0]!.answered_by).toEqual({ connection: MAIN_CONNECTION_ID, agent: 'Home box', model: 'model-a' });
  });
});
