// Several saved agent connections over the HTTP API against two fake agents: a state folder from before keeps its
// agent as the default, a second connection is added, a conversation on it talks to it with its key and model
// while another on the default talks to the first, a deleted connection falls back to the default, and no key
// is ever in a response, a log line or a file other than the 0600 ones that keep it.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLogSink } from '../core/log.js';
import { CONNECTIONS_FILE, MAIN_CONNECTION_ID } from '../agent/connections.js';
import { reply, startFakeAgent, type FakeAgent } from '../testing/fake-agent.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { runTurn } from '../testing/turns.js';

const KEY_A = 'sk-connection-a-never-shown-7d1e0c9b';
const KEY_B = 'sk-connection-b-never-shown-2a8f4e61';
let a: FakeAgent;
let b: FakeAgent;
let srv: TestServer;
let stateDir: string;
let agentJsonBefore: string;
const lines: string[] = [];
const bodies: string[] = [];
let restoreLog: () => void;
let logLevelBefore: string | undefined;

interface Listed {
  connections: { id: string; name: string; base_url: string; model: string | null; has_api_key: boolean; is_default: boolean }[];
  default_id: string;
  max_connections: number;
  id?: string;
}

/** The response's body, kept to be searched for the keys at the end. */
async function body<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  bodies.push(text);
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}

beforeAll(async () => {
  a = await startFakeAgent({ apiKey: KEY_A, models: ['model-a'] });
  b = await startFakeAgent({ apiKey: KEY_B, models: ['model-b', 'model-b-large'] });
  restoreLog = setLogSink((l) => lines.push(l));
  // Every line the server writes, debug included, is searched for the keys.
  logLevelBefore = process.env.SATCHEL_LOG_LEVEL;
  process.env.SATCHEL_LOG_LEVEL = 'debug';
  // A state folder as the one-agent version left it: agent.json with the address, the key and the model.
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-conn-'));
  stateDir = path.join(tmp, 'state');
  await fs.mkdir(stateDir, { recursive: true });
  agentJsonBefore = JSON.stringify({ baseUrl: a.baseUrl, apiKey: KEY_A, model: 'model-a', kind: 'openai' }, null, 2) + '\n';
  await fs.writeFile(path.join(stateDir, 'agent.json'), agentJsonBefore, { mode: 0o600 });
  srv = await startTestServer({ stateDir });
});
afterAll(async () => {
  restoreLog();
  if (logLevelBefore === undefined) delete process.env.SATCHEL_LOG_LEVEL;
  else process.env.SATCHEL_LOG_LEVEL = logLevelBefore;
  await srv.stop();
  await fs.rm(path.dirname(stateDir), { recursive: true, force: true });
  await a.close();
  await b.close();
});

describe('saved agent connections', () => {
  let second = '';

  it('a state folder from before: its agent is the one default connection, agent.json untouched', async () => {
    const listed = await body<Listed>(await srv.api('/api/agent/connections'));
    expect(listed).toMatchObject({ default_id: MAIN_CONNECTION_ID, max_connections: 16 });
    expect(listed.connections).toEqual([
      expect.objectContaining({ id: MAIN_CONNECTION_ID, name: `127.0.0.1:${a.port}`, base_url: a.baseUrl, model: 'model-a', has_api_key: true, is_default: true }),
    ]);
    expect(await body(await srv.api('/api/agent/settings'))).toMatchObject({ base_url: a.baseUrl, model: 'model-a', has_api_key: true });
    expect(await fs.readFile(path.join(stateDir, 'agent.json'), 'utf8')).toBe(agentJsonBefore);
    const id = await srv.newSession();
    const sent = await runTurn(srv, a, { session_id: id, message: 'hello A' }, reply('from A'));
    expect(sent.headers.authorization).toBe(`Bearer ${KEY_A}`);
  });

  it('adds a second connection, keeps its key in a 0600 file and never shows it', async () => {
    const added = await body<Listed>(await srv.json('/api/agent/connections', { name: 'Second box', base_url: b.baseUrl, api_key: KEY_B, model: 'model-b' }));
    second = added.id!;
    expect(second).toMatch(/^[0-9a-f]{16}$/);
    expect(added.default_id).toBe(MAIN_CONNECTION_ID);
    expect(added.connections.map((c) => [c.name, c.base_url, c.model, c.has_api_key, c.is_default])).toEqual([
      [`127.0.0.1:${a.port}`, a.baseUrl, 'model-a', true, true],
      ['Second box', b.baseUrl, 'model-b', true, false],
    ]);
    expect((await fs.stat(path.join(stateDir, CONNECTIONS_FILE))).mode & 0o777).toBe(0o600);
    const models = await body(await srv.api(`/api/agent/models?connection=${second}`));
    expect(models).toEqual({ ok: true, models: ['model-b', 'model-b-large'], model: 'model-b' });
    const tested = await body<{ ok: boolean; message: string }>(await srv.json('/api/agent/test', { connection: second }));
    expect(tested).toMatchObject({ ok: true, message: `Connected to an OpenAI-compatible server at 127.0.0.1:${b.port}: 2 models, key accepted.` });
    // Renamed without a key: the key stays (same address).
    const renamed = await body<Listed>(await srv.json('/api/agent/connections', { id: second, name: 'B', base_url: b.baseUrl, model: 'model-b' }));
    expect(renamed.connections[1]).toMatchObject({ name: 'B', has_api_key: true });
  });

  it('a conversation on the second connection talks to it; another on the default talks to the first', async () => {
    const onB = await srv.newSession();
    const onA = await srv.newSession();
    const picked = await body<{ session: { connection?: string } }>(await srv.json('/api/session/settings', { session_id: onB, connection: second }));
    expect(picked.session.connection).toBe(second);
    const toB = await runTurn(srv, b, { session_id: onB, message: 'hello B' }, reply('from B'));
    expect(toB.headers.authorization).toBe(`Bearer ${KEY_B}`);
    expect((toB.body as { model: string }).model).toBe('model-b');
    const toA = await runTurn(srv, a, { session_id: onA, message: 'hello A' }, reply('from A'));
    expect(toA.headers.authorization).toBe(`Bearer ${KEY_A}`);
    expect((toA.body as { model: string }).model).toBe('model-a');
    // The conversation's own model wins over its connection's; picking another connection clears it.
    await body(await srv.json('/api/session/settings', { session_id: onB, model: 'model-b-large' }));
    expect(((await runTurn(srv, b, { session_id: onB, message: 'bigger' }, reply('ok'))).body as { model: string }).model).toBe('model-b-large');
    const back = await body<{ session: { connection?: string; model?: string } }>(await srv.json('/api/session/settings', { session_id: onB, connection: null }));
    expect(back.session).not.toHaveProperty('connection');
    expect(back.session).not.toHaveProperty('model');
  });

  it('makes the second the default: the settings routes act on it; the default cannot be deleted', async () => {
    const made = await body<Listed>(await srv.json('/api/agent/connections/default', { id: second }));
    expect(made.default_id).toBe(second);
    expect(await body(await srv.api('/api/agent/settings'))).toMatchObject({ base_url: b.baseUrl, model: 'model-b', has_api_key: true });
    const refused = await body<{ error: string }>(await srv.json('/api/agent/connections/delete', { id: second }), 409);
    expect(refused.error).toBe('This is the default connection: make another one the default before deleting it');
    // POST /api/agent/settings (the original's clients) saves to the default: the second connection.
    await body(await srv.json('/api/agent/settings', { base_url: b.baseUrl, model: 'model-b-large' }));
    const listed = await body<Listed>(await srv.api('/api/agent/connections'));
    expect(listed.connections.find((c) => c.id === second)).toMatchObject({ model: 'model-b-large', has_api_key: true });
    expect(listed.connections.find((c) => c.id === MAIN_CONNECTION_ID)).toMatchObject({ model: 'model-a' });
    await body(await srv.json('/api/agent/connections/default', { id: MAIN_CONNECTION_ID }));
  });

  it('a deleted connection: its conversations fall back to the default', async () => {
    const onB = await srv.newSession();
    await body(await srv.json('/api/session/settings', { session_id: onB, connection: second }));
    const left = await body<Listed>(await srv.json('/api/agent/connections/delete', { id: second }));
    expect(left.connections.map((c) => c.id)).toEqual([MAIN_CONNECTION_ID]);
    const sent = await runTurn(srv, a, { session_id: onB, message: 'still there?' }, reply('from A'));
    expect(sent.headers.authorization).toBe(`Bearer ${KEY_A}`);
    expect(await body(await srv.json('/api/session/settings', { session_id: onB, connection: second }), 404)).toEqual({ error: 'Agent connection not found' });
  });

  it('no key in any response, any log line, or any file but the two that keep them', async () => {
    for (const key of [KEY_A, KEY_B]) {
      expect(bodies.filter((t) => t.includes(key))).toEqual([]);
      expect(lines.filter((l) => l.includes(key))).toEqual([]);
    }
    expect(lines.length).toBeGreaterThan(0);
    const holders: string[] = [];
    for (const entry of await fs.readdir(stateDir, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile()) continue;
      const file = path.join(entry.parentPath, entry.name);
      const bytes = await fs.readFile(file);
      if (bytes.includes(KEY_A) || bytes.includes(KEY_B)) holders.push(path.relative(stateDir, file));
    }
    // B was deleted: its key went with it.
    expect(holders.sort()).toEqual(['agent.json']);
  });
});
