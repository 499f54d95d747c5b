// The persistent MCP token: kept across restarts, revoked by regenerate, good for /mcp only, stored 0600.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';
import type { McpSettings } from '../core/wire.js';
import { MCP_TOKEN_FILE, McpToken, mcpTokenFileStore } from './token.js';

const POSIX = process.platform !== 'win32';
let state: string;
const running: TestServer[] = [];

beforeEach(() => {
  state = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-mcp-token-'));
});
afterEach(async () => {
  for (const server of running.splice(0)) await server.stop();
  fs.rmSync(state, { recursive: true, force: true });
});

async function start(): Promise<TestServer> {
  const server = await startTestServer({ stateDir: state });
  running.push(server);
  return server;
}

async function settingsOf(server: TestServer): Promise<McpSettings> {
  const res = await server.api('/api/mcp');
  expect(res.status).toBe(200);
  return (await res.json()) as McpSettings;
}

/** An MCP initialize over plain HTTP: the status says whether the token opens /mcp. */
function initialize(server: TestServer, token: string): Promise<Response> {
  return fetch(server.origin + '/mcp', {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
}

describe('the MCP token', () => {
  it('GET /api/mcp: the URL, the token and snippets that carry both', async () => {
    const server = await start();
    const s = await settingsOf(server);
    expect(s.url).toBe(`${server.origin}/mcp`);
    expect(s.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(s.token).not.toBe(TEST_TOKEN);
    expect(s.clients.claude_code).toBe(`claude mcp add --transport http satchel ${s.url} --header "Authorization: Bearer ${s.token}"`);
    for (const snippet of Object.values(s.clients)) {
      expect(snippet).toContain(s.url);
      expect(snippet).toContain(`Bearer ${s.token}`);
    }
    expect(JSON.parse(s.clients.cursor)).toEqual({ mcpServers: { satchel: { url: s.url, headers: { Authorization: `Bearer ${s.token}` } } } });
  });

  it('opens /mcp through the SDK client, and survives a restart on the same state folder', async () => {
    const first = await start();
    const { token } = await settingsOf(first);
    if (POSIX) expect(fs.statSync(path.join(state, MCP_TOKEN_FILE)).mode & 0o777).toBe(0o600);
    await running.pop()!.stop();

    const second = await start();
    expect((await settingsOf(second)).token).toBe(token);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(second.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    expect(client.getServerVersion()?.name).toBe('satchel');
    await client.close();
  });

  it('does not open the JSON API', async () => {
    const server = await start();
    const { token } = await settingsOf(server);
    for (const route of ['/api/sessions', '/api/mcp', '/api/config']) {
      const res = await fetch(server.origin + route, { headers: { Authorization: `Bearer ${token}` } });
      expect(res.status, route).toBe(401);
    }
    const regenerate = await fetch(server.origin + '/api/mcp/regenerate', { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
    expect(regenerate.status).toBe(401);
    expect((await initialize(server, 'not-a-token')).status).toBe(401);
    expect((await initialize(server, TEST_TOKEN)).status, 'the launch token still opens /mcp').toBe(200);
  });

  it('regenerate: the old token is refused at once, the new one works and is what the next start uses', async () => {
    const server = await start();
    const old = (await settingsOf(server)).token;
    expect((await initialize(server, old)).status).toBe(200);
    const res = await server.api('/api/mcp/regenerate', { method: 'POST' });
    expect(res.status).toBe(200);
    const fresh = (await res.json()) as McpSettings;
    expect(fresh.token).not.toBe(old);
    expect(fresh.clients.claude_code).toContain(fresh.token);
    expect((await initialize(server, old)).status).toBe(401);
    expect((await initialize(server, fresh.token)).status).toBe(200);
    expect((await settingsOf(server)).token).toBe(fresh.token);
    await running.pop()!.stop();
    expect((await settingsOf(await start())).token).toBe(fresh.token);
  });

  it('regenerate: a client connected with the old token is refused on its next request', async () => {
    const server = await start();
    const old = (await settingsOf(server)).token;
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${old}` } } }));
    await client.listTools();
    expect((await server.api('/api/mcp/regenerate', { method: 'POST' })).status).toBe(200);
    await expect(client.listTools()).rejects.toThrow(/invalid access token/);
    await client.close();
  });
});

describe('the token file store', () => {
  it('refuses a symlink in place of the file and makes a new token instead', async () => {
    const target = path.join(state, 'elsewhere');
    fs.writeFileSync(target, 'planted-token\n');
    fs.symlinkSync(target, path.join(state, MCP_TOKEN_FILE));
    const token = await McpToken.open(mcpTokenFileStore(state));
    expect(token.value).not.toBe('planted-token');
    expect(fs.readFileSync(target, 'utf8'), 'the link target is not written through').toBe('planted-token\n');
    expect(fs.lstatSync(path.join(state, MCP_TOKEN_FILE)).isFile()).toBe(true);
    expect((await McpToken.open(mcpTokenFileStore(state))).value).toBe(token.value);
  });

  it('a store that cannot save still yields a token for this run; a failed regenerate keeps the old one', async () => {
    let fail = true;
    const store = {
      get: () => undefined,
      set: async () => {
        if (fail) throw new Error('disk full');
      },
    };
    const token = await McpToken.open(store);
    const first = token.value;
    expect(token.matches(first)).toBe(true);
    await expect(token.regenerate()).rejects.toThrow('disk full');
    expect(token.matches(first)).toBe(true);
    fail = false;
    const next = await token.regenerate();
    expect(token.matches(first)).toBe(false);
    expect(token.matches(next)).toBe(true);
  });
});
