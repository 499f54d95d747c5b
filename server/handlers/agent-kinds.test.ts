// The page reads the kinds from the server (issue 35): GET and POST /api/agent/settings name every dialect the
// server speaks, and an unknown kind is refused in the same words by the settings and the connections routes,
// with nothing saved.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type TestServer } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';

const KINDS = [
  { kind: 'hermes', label: 'Hermes Agent’s gateway' },
  { kind: 'openai', label: 'OpenAI-compatible server' },
];
const srv = testServerForFile();

describe('the agent kinds on the wire', () => {
  it('GET /api/agent/settings names every kind as the page shows it', async () => {
    const res = await srv.api('/api/agent/settings');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { kinds: unknown }).kinds).toEqual(KINDS);
  });

  it('an unknown kind is one 400 sentence for the settings and a new connection, and nothing is saved', async () => {
    for (const route of ['/api/agent/settings', '/api/agent/connections']) {
      const res = await srv.json(route, { base_url: 'http://127.0.0.1:9', model: 'm', kind: 'claude' });
      expect([res.status, ((await res.json()) as { error: string }).error], route).toEqual([400, 'Invalid agent setting kind: expected hermes or openai']);
    }
    expect(fs.existsSync(path.join(srv.stateDir, 'agent.json'))).toBe(false);
    const list = (await (await srv.api('/api/agent/connections')).json()) as { connections: { base_url: string | null }[] };
    expect(list.connections.filter((c) => c.base_url !== null)).toEqual([]);
  });

  it('a save answers with the kinds beside the settings (a new address unreached: its kind left to detect)', async () => {
    const res = await srv.json('/api/agent/settings', { base_url: 'http://127.0.0.1:9', model: 'm', kind: 'openai' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ base_url: 'http://127.0.0.1:9', kind: null, kinds: KINDS });
  });
});
