// The MCP SDK is not loaded when the server starts, nor by requests refused before it is needed; the first
// /mcp client still gets its session, also when several arrive at once while the SDK is loading.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const loads = vi.hoisted(() => ({ transport: 0, types: 0, mcp: 0, zod: 0 }));
vi.mock('@modelcontextprotocol/sdk/server/streamableHttp.js', async (original) => {
  loads.transport++;
  return original();
});
vi.mock('@modelcontextprotocol/sdk/types.js', async (original) => {
  loads.types++;
  return original();
});
vi.mock('@modelcontextprotocol/sdk/server/mcp.js', async (original) => {
  loads.mcp++;
  return original();
});
vi.mock('zod', async (original) => {
  loads.zod++;
  return original();
});

const { startTestServer, rawExchange, TEST_TOKEN } = await import('../testing/harness.js');
type TestServer = Awaited<ReturnType<typeof startTestServer>>;

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
const CONCURRENT_CLIENTS = 4;
const nothingLoaded = { transport: 0, types: 0, mcp: 0, zod: 0 };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
});

const post = (headers: Record<string, string>, body = INIT) =>
  fetch(server.origin + '/mcp', { method: 'POST', body, headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } });

describe('the MCP SDK, loaded on first use', () => {
  it('is not loaded by starting the server, by other routes, or by /mcp requests refused for their token, Origin or Host', async () => {
    expect((await fetch(server.origin + '/health')).status).toBe(200);
    expect((await server.api('/api/sessions')).status).toBe(200);
    expect((await post({})).status).toBe(401);
    expect((await post({ Authorization: 'Bearer wrong-token' })).status).toBe(401);
    expect((await post({ Authorization: `Bearer ${TEST_TOKEN}`, Origin: 'http://evil.example' })).status).toBe(403);
    const { text } = await rawExchange(
      server.port,
      `POST /mcp HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(INIT)}\r\nConnection: close\r\n\r\n${INIT}`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 403/);
    expect(loads).toEqual(nothingLoaded);
  });

  it('answers the first clients, arriving together, each with its own session', async () => {
    const answers = await Promise.all(Array.from({ length: CONCURRENT_CLIENTS }, () => post({ Authorization: `Bearer ${TEST_TOKEN}` })));
    const ids = new Set<string>();
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(((await res.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe('satchel');
      ids.add(res.headers.get('mcp-session-id') ?? '');
    }
    expect(ids.size).toBe(CONCURRENT_CLIENTS);
    expect(loads.transport).toBe(1);
    expect(loads.mcp).toBe(1);
  });

  it('keeps answering a request without a session as before', async () => {
    const res = await post({ Authorization: `Bearer ${TEST_TOKEN}` }, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { message: 'Bad Request: no valid session id' } });
  });
});
