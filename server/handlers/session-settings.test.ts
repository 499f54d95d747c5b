// A conversation's own model and system prompt (issue 24, "Per conversation") over real sockets against the fake
// agent: stored on the session (POST /api/session/settings, shown by GET /api/session and kept on disk), and
// sent with every turn exactly: the model as the body's `model`, the prompt as the first `system` message, to a
// plain server and to Hermes' gateway in step (where the header carries the history and the prompt still goes).
// GET /api/agent/models lists the saved agent's models for the picker.
import fs from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SYSTEM_PROMPT_CHARS, SYSTEM_PROMPT_TOO_LONG } from '../store/sessions.js';
import { reply, startFakeAgent, type FakeAgent, type RecordedRequest } from '../testing/fake-agent.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { storedJson } from '../testing/stored-session.js';
import { runTurn } from '../testing/turns.js';

const KEY = 'settings-key-0123456789abcdef';
const MODELS = ['fake-model', 'big-model', `model-${KEY}`];
let srv: TestServer;
let plain: FakeAgent;
let hermes: FakeAgent;

beforeAll(async () => {
  plain = await startFakeAgent({ apiKey: KEY, models: MODELS });
  hermes = await startFakeAgent({ apiKey: KEY, hermes: true, models: MODELS });
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.stop();
  await plain.close();
  await hermes.close();
});

async function useAgent(agent: FakeAgent): Promise<void> {
  const res = await srv.json('/api/agent/settings', { base_url: agent.baseUrl, api_key: KEY, model: 'fake-model' });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function settings(body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await srv.json('/api/session/settings', body);
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const stored = async (id: string) => (await storedJson(srv.stateDir, id)) as Record<string, unknown>;
const shown = async (id: string) => ((await (await srv.api(`/api/session?session_id=${id}`)).json()) as { session: Record<string, unknown> }).session;

/** One turn to its end, answered `answer`; the chat completion the agent received. */
const turn = (agent: FakeAgent, body: Record<string, unknown>, answer = 'Fine.'): Promise<RecordedRequest> => runTurn(srv, agent, body, reply(answer));

/** A loopback port nothing listens on: one the system just handed out, closed again. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const bodyOf = (r: RecordedRequest) => r.body as { model: string; messages: { role: string; content: unknown }[] };

describe('POST /api/session/settings', () => {
  it('stores the model and the system prompt, shows them, and removes them with null', async () => {
    const id = await srv.newSession();
    const set = await settings({ session_id: id, model: '  big-model ', system_prompt: 'Answer in French.' });
    expect(set.status).toBe(200);
    expect(set.json.session).toMatchObject({ session_id: id, model: 'big-model', system_prompt: 'Answer in French.' });
    expect(await shown(id)).toMatchObject({ model: 'big-model', system_prompt: 'Answer in French.' });
    expect(await stored(id)).toMatchObject({ model: 'big-model', system_prompt: 'Answer in French.' });
    // A field not given is kept; null removes.
    expect((await settings({ session_id: id, system_prompt: null })).status).toBe(200);
    const afterPrompt = await stored(id);
    expect(afterPrompt.model).toBe('big-model');
    expect('system_prompt' in afterPrompt).toBe(false);
    expect((await settings({ session_id: id, model: '' })).status).toBe(200);
    expect('model' in (await stored(id))).toBe(false);
    expect('model' in (await shown(id))).toBe(false);
  });

  it('refuses bad input with a clear 400 or 404, and stores nothing', async () => {
    const id = await srv.newSession();
    expect(await settings({ model: 'x' })).toEqual({ status: 400, json: { error: 'Missing required field(s): session_id' } });
    expect(await settings({ session_id: 'abcdefabcdef', model: 'x' })).toEqual({ status: 404, json: { error: 'Session not found' } });
    expect(await settings({ session_id: id, model: 7 })).toEqual({ status: 400, json: { error: 'model must be a string or null' } });
    expect(await settings({ session_id: id, system_prompt: ['a'] })).toEqual({ status: 400, json: { error: 'system_prompt must be a string or null' } });
    expect(await settings({ session_id: id, system_prompt: 'x'.repeat(MAX_SYSTEM_PROMPT_CHARS + 1) })).toEqual({ status: 400, json: { error: SYSTEM_PROMPT_TOO_LONG } });
    expect(await settings({ session_id: id, model: 'm'.repeat(201) })).toEqual({ status: 400, json: { error: 'Model name too long (max 200 characters)' } });
    const file = await stored(id);
    expect('model' in file || 'system_prompt' in file).toBe(false);
    // The bound itself is accepted.
    expect((await settings({ session_id: id, system_prompt: 'x'.repeat(MAX_SYSTEM_PROMPT_CHARS) })).status).toBe(200);
  });

  it('is not reachable from another profile', async () => {
    const other = await srv.newSession({ profile: 'work' });
    expect(await settings({ session_id: other, model: 'big-model' })).toEqual({ status: 404, json: { error: 'Session not found' } });
  });
});

describe('a turn sends the conversation’s model and system prompt', () => {
  it('to a plain server: the stored model, the prompt first, then the history and the new turn', async () => {
    await useAgent(plain);
    const id = await srv.newSession();
    const first = await turn(plain, { session_id: id, message: 'Hello' }, 'Hi there.');
    expect(bodyOf(first).model).toBe('fake-model');
    expect(bodyOf(first).messages).toEqual([{ role: 'user', content: 'Hello' }]);

    await settings({ session_id: id, model: 'big-model', system_prompt: 'Answer in French.' });
    const second = await turn(plain, { session_id: id, message: 'And now?' });
    expect(bodyOf(second).model).toBe('big-model');
    expect(bodyOf(second).messages).toEqual([
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi there.' },
      { role: 'user', content: 'And now?' },
    ]);
    // A model named by the request wins over the stored one (the original's clients send it).
    expect(bodyOf(await turn(plain, { session_id: id, message: 'Once more', model: 'fake-model' })).model).toBe('fake-model');
    // Regenerate asks the stored model again, with the prompt.
    const again = await turn(plain, { session_id: id, regenerate: true });
    expect(bodyOf(again).model).toBe('big-model');
    expect(bodyOf(again).messages[0]).toEqual({ role: 'system', content: 'Answer in French.' });
  });

  it('to Hermes in step: the header with the prompt and the new turn only; a changed prompt keeps it in step', async () => {
    await useAgent(hermes);
    const id = await srv.newSession();
    await settings({ session_id: id, system_prompt: 'Be brief.' });
    const first = await turn(hermes, { session_id: id, message: 'Hello' }, 'Hi.');
    const header = first.headers['x-hermes-session-id'];
    expect(header).toMatch(new RegExp(`^satchel-${id}-[0-9a-f]{8}$`));
    expect(bodyOf(first).messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
    ]);
    // The gateway takes body system messages as an ephemeral prompt for that request (api_server.py) and stores
    // only the user and assistant turns: its history is still the one shown, so the header goes on.
    await settings({ session_id: id, system_prompt: 'Be verbose.', model: 'big-model' });
    const second = await turn(hermes, { session_id: id, message: 'More?' });
    expect(second.headers['x-hermes-session-id']).toBe(header);
    expect(bodyOf(second).model).toBe('big-model');
    expect(bodyOf(second).messages).toEqual([
      { role: 'system', content: 'Be verbose.' },
      { role: 'user', content: 'More?' },
    ]);
  });
});

describe('GET /api/agent/models', () => {
  it('lists the saved agent’s models and its settings’ model, without a name holding the key', async () => {
    await useAgent(plain);
    const res = await srv.api('/api/agent/models');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, models: ['fake-model', 'big-model'], model: 'fake-model' });
  });

  it('says what went wrong when the agent cannot be reached, never the key', async () => {
    const port = await closedPort();
    const saved = await srv.json('/api/agent/settings', { base_url: `http://127.0.0.1:${port}`, api_key: KEY, model: 'fake-model' });
    expect(saved.status).toBe(200);
    const res = await srv.api('/api/agent/models');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(KEY);
    expect(JSON.parse(text)).toMatchObject({ ok: false, type: 'unreachable', message: `Nothing is listening at 127.0.0.1:${port}.` });
  });
});
