// The agent connection routes under hostile input: ids that are not ids, names too long to be names, addresses
// that are not http(s), more connections than the limit, a key too big for its file, and fields of the wrong
// type. Each is a clear 4xx naming the problem, nothing half-written, and the server keeps answering.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECTIONS_FILE, MAX_AGENT_CONNECTIONS, MAX_CONNECTION_NAME_CHARS } from '../agent/connections.js';
import { startFakeAgent, type FakeAgent } from '../testing/fake-agent.js';
import { startTestServer, type TestServer } from '../testing/harness.js';

let srv: TestServer;
let agent: FakeAgent;

beforeAll(async () => {
  agent = await startFakeAgent();
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.stop();
  await agent.close();
});

async function refused(res: Response, status: number): Promise<string> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (JSON.parse(text) as { error: string }).error;
}

const add = (body: Record<string, unknown>) => srv.json('/api/agent/connections', { base_url: agent.baseUrl, model: 'fake-model', kind: 'openai', ...body });

describe('agent connection routes under attack', () => {
  it('refuses ids that are not connection ids, on every route, before looking anything up', async () => {
    const bad: unknown[] = ['../agent', 'main/..', 'MAIN', '0123456789abcdeg', 'a'.repeat(100_000), 42, { id: 'main' }, ['main'], true];
    for (const id of bad) {
      expect(await refused(await srv.json('/api/agent/connections/delete', { id }), 400)).toBe('Invalid connection id');
      expect(await refused(await srv.json('/api/agent/connections/default', { id }), 400)).toBe('Invalid connection id');
      expect(await refused(await add({ id }), 400)).toBe('Invalid connection id');
      expect(await refused(await srv.json('/api/agent/test', { connection: id }), 400)).toBe('Invalid connection id');
    }
    expect(await refused(await srv.api(`/api/agent/models?connection=${encodeURIComponent('../../etc')}`), 400)).toBe('Invalid connection id');
    const session = await srv.newSession();
    expect(await refused(await srv.json('/api/session/settings', { session_id: session, connection: '../x' }), 400)).toBe('Invalid connection id');
    expect(await refused(await srv.json('/api/session/settings', { session_id: session, connection: { id: 'main' } }), 400)).toBe('connection must be a string or null');
    // Well-formed but unknown: 404, and nothing stored.
    expect(await refused(await srv.json('/api/agent/connections/delete', { id: 'ffffffffffffffff' }), 404)).toBe('Agent connection not found');
    expect(await refused(await srv.json('/api/agent/connections/default', { id: 'ffffffffffffffff' }), 404)).toBe('Agent connection not found');
    expect(await refused(await add({ id: 'ffffffffffffffff' }), 404)).toBe('Agent connection not found');
    expect(await refused(await srv.json('/api/session/settings', { session_id: session, connection: 'ffffffffffffffff' }), 404)).toBe('Agent connection not found');
    await expect(fs.stat(path.join(srv.stateDir, CONNECTIONS_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a name too long, a name of the wrong type, and an address that is not http(s)', async () => {
    for (const name of ['x'.repeat(MAX_CONNECTION_NAME_CHARS + 1), 'y'.repeat(5_000_000)]) {
      expect(await refused(await add({ name }), 400)).toBe(`Connection name too long (max ${MAX_CONNECTION_NAME_CHARS} characters)`);
    }
    expect(await refused(await add({ name: { toString: 'x' } }), 400)).toBe('Invalid agent setting name');
    for (const base_url of ['file:///etc/passwd', 'javascript:alert(1)', 'ftp://127.0.0.1/', 'data:text/plain,hi', 'not a url']) {
      expect(await refused(await add({ base_url }), 400)).toBe('Invalid agent setting baseUrl: expected an http(s) URL');
    }
    expect(await refused(await add({ base_url: 42 }), 400)).toBe('base_url is required');
    await expect(fs.stat(path.join(srv.stateDir, CONNECTIONS_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a key too big for the file is refused and nothing is written', async () => {
    const ok = await add({ name: 'one' });
    expect(ok.status).toBe(200);
    const before = await fs.readFile(path.join(srv.stateDir, CONNECTIONS_FILE));
    expect(await refused(await add({ name: 'huge', api_key: 'k'.repeat(1024 * 1024) }), 400)).toBe('The agent connections would not fit their file: use shorter keys');
    expect(await fs.readFile(path.join(srv.stateDir, CONNECTIONS_FILE))).toEqual(before);
  });

  it(`stops at ${MAX_AGENT_CONNECTIONS} connections, concurrent adds included`, async () => {
    const results = await Promise.all(Array.from({ length: MAX_AGENT_CONNECTIONS + 4 }, (_, i) => add({ name: `c${i}` }).then((r) => r.status)));
    expect(results.filter((s) => s !== 200 && s !== 400)).toEqual([]);
    const listed = (await (await srv.api('/api/agent/connections')).json()) as { connections: unknown[] };
    expect(listed.connections).toHaveLength(MAX_AGENT_CONNECTIONS);
    expect(await refused(await add({ name: 'one more' }), 400)).toBe(`At most ${MAX_AGENT_CONNECTIONS} agent connections can be saved`);
    // Still answering.
    expect((await srv.api('/api/agent/settings')).status).toBe(200);
  });
});
