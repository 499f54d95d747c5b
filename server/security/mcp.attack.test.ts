// Attacks on today's MCP surface: the workspace resource satchel://session/{id}/workspace/{path} (encoded
// traversal, absolute paths, credential stores, hidden names, symlinks out, another profile's session), and
// images an agent reads (a PNG declaring 100,000 x 100,000 pixels, an SVG in a .png that points at an outside
// file, one with an external entity): refused or described, never decoded whole, never a crash.
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildPng } from '../../e2e/helpers/png.js';
import { postMultipart, startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';
import { MCP_SESSIONS_FULL } from '../mcp/sessions.js';
import { MAX_MCP_SESSIONS, MCP_EVICTABLE_IDLE_MS, MCP_FULL_RETRY_AFTER_S } from '../mcp/limits.js';

const SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
const OUTSIDE = 'outside bytes nobody may read';

let srv: TestServer;
let ws: string;
let session: string;
let workSession: string;
let client: Client;

/** A PNG whose header declares `w` x `h` pixels (with one tiny, valid IDAT: libvips reads the header first). */
function pngDeclaring(w: number, h: number): Buffer {
  const png = buildPng(1, 1, () => [0, 0, 0]);
  // IHDR's width and height are at bytes 16..23; its CRC covers type + data (bytes 12..28).
  png.writeUInt32BE(w, 16);
  png.writeUInt32BE(h, 20);
  png.writeUInt32BE(zlib.crc32(png.subarray(12, 29)) >>> 0, 29);
  return png;
}

beforeAll(async () => {
  srv = await startTestServer();
  ws = await fs.realpath(srv.workspace);
  session = await srv.newSession();
  workSession = await srv.newSession({ profile: 'work' });
  await fs.writeFile(path.join(srv.tmp, 'outside.txt'), OUTSIDE);
  await fs.writeFile(path.join(ws, 'ok.txt'), `visible ${SECRET}`);
  await fs.writeFile(path.join(ws, '.env'), `API_KEY=${SECRET}`);
  await fs.writeFile(path.join(ws, '.hidden.txt'), OUTSIDE);
  await fs.symlink(path.join(srv.tmp, 'outside.txt'), path.join(ws, 'link.txt'));
  await fs.symlink(srv.tmp, path.join(ws, 'dirlink'));
  for (const [name, content] of [
    ['bomb.png', pngDeclaring(100_000, 100_000)],
    [
      'vector.png',
      Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="64" height="64"><image xlink:href="file://${path.join(srv.tmp, 'outside.txt')}" width="64" height="64"/></svg>`,
      ),
    ],
    ['entity.png', Buffer.from(`<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file://${path.join(srv.tmp, 'outside.txt')}">]><svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><text>&x;</text></svg>`)],
  ] as const) {
    const res = await postMultipart(srv, '/api/upload', [
      { name: 'session_id', content: session },
      { name: 'file', filename: name, content },
    ]);
    expect(res.status).toBe(200);
  }
  client = new Client({ name: 'attack', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(srv.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }));
});
afterAll(async () => {
  await client?.close();
  await srv.stop();
});

const wsUri = (id: string, rel: string) => `satchel://session/${id}/workspace/${rel}`;

/** The resource's text, or the error's message. */
async function read(uri: string): Promise<string> {
  try {
    const res = await client.readResource({ uri });
    return res.contents.map((c) => ('text' in c ? c.text : `[blob ${c.mimeType}]`)).join('\n');
  } catch (err) {
    return `ERROR ${(err as Error).message}`;
  }
}

describe('the workspace resource', () => {
  it('reads a workspace file, redacted (the control)', async () => {
    const text = await read(wsUri(session, 'ok.txt'));
    expect(text).toContain('visible ghp_ab');
    expect(text).not.toContain(SECRET);
  });

  it('no encoded traversal, absolute path, symlink out, hidden name or credential store', async () => {
    const attempts = [
      '..%2Foutside.txt',
      '..%2F..%2F..%2Fetc%2Fpasswd',
      '%2E%2E%2Foutside.txt',
      '%252E%252E%252Foutside.txt',
      encodeURIComponent(path.join(srv.tmp, 'outside.txt')),
      'link.txt',
      'dirlink%2Foutside.txt',
      '.hidden.txt',
      '.env',
      'ok.txt%00.png',
    ];
    for (const rel of attempts) {
      const text = await read(wsUri(session, rel));
      expect(text, rel).toMatch(/^ERROR /);
      expect(text, rel).not.toContain(OUTSIDE);
      expect(text, rel).not.toContain(SECRET);
    }
  });

  it("another profile's session is not found", async () => {
    expect(await read(wsUri(workSession, 'ok.txt'))).toMatch(/^ERROR .*not found/i);
  });
});

describe('images an agent reads', () => {
  const readAttachment = async (name: string) => {
    const result = await client.callTool({ name: 'read_attachment', arguments: { session_id: session, name } });
    return result.content as { type: string; text?: string; data?: string }[];
  };

  it('a PNG declaring 10 gigapixels is described, never decoded', async () => {
    const parts = await readAttachment('bomb.png');
    expect(parts.map((p) => p.type)).not.toContain('image');
    expect(JSON.stringify(parts)).toMatch(/too large to decode safely/);
  });

  it('an SVG in a .png never pulls in an outside file, by reference or by entity', async () => {
    for (const name of ['vector.png', 'entity.png']) {
      const parts = await readAttachment(name);
      expect(JSON.stringify(parts), name).not.toContain(OUTSIDE);
      for (const p of parts.filter((x) => x.type === 'image')) {
        // Whatever was drawn is 64 px at most: never the outside file rendered as text.
        expect(Buffer.from(p.data!, 'base64').length, name).toBeLessThan(64 * 1024);
      }
    }
  });
});

describe('errors', () => {
  it('an unknown resource URI carrying a token is not echoed back unmasked', async () => {
    const text = await read(`satchel://nowhere/${SECRET}`);
    expect(text).toMatch(/^ERROR /);
    expect(text).not.toContain(SECRET);
  });

  it('an unknown tool name carrying a token is not echoed back unmasked', async () => {
    let text: string;
    try {
      const result = await client.callTool({ name: SECRET, arguments: {} });
      text = JSON.stringify(result);
    } catch (err) {
      text = (err as Error).message;
    }
    expect(text).toMatch(/not found/i);
    expect(text).not.toContain(SECRET);
  });
});

// Any holder of the MCP token could close every other client's session by opening 40 of its own, if the least
// recently used were evicted to make room. A full table refuses the newcomer instead, and only a session idle
// for MCP_EVICTABLE_IDLE_MS gives its place.
describe('a token holder opening sessions in a loop', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  async function mcpToken(): Promise<string> {
    return ((await (await srv.api('/api/mcp')).json()) as { token: string }).token;
  }

  /** A bare initialize, as a client that never closes what it opens would send. */
  async function initialize(token: string): Promise<Response> {
    return fetch(srv.origin + '/mcp', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } }),
    });
  }

  it("cannot evict another client's session: the newcomer past the bound gets 503 with Retry-After", async () => {
    const token = await mcpToken();
    const victim = new Client({ name: 'victim', version: '1.0.0' });
    await victim.connect(new StreamableHTTPClientTransport(new URL(srv.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    // 40 at once, as in the finding: initializes in flight count against the bound too.
    const flood = await Promise.all(Array.from({ length: 40 }, () => initialize(token)));
    const statuses = flood.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBe(MAX_MCP_SESSIONS - 2); // the beforeAll client and the victim hold two
    const refused = flood.filter((r) => r.status === 503);
    expect(refused.length).toBe(40 - (MAX_MCP_SESSIONS - 2));
    expect(refused[0]!.headers.get('retry-after')).toBe(String(MCP_FULL_RETRY_AFTER_S));
    expect(await refused[0]!.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: MCP_SESSIONS_FULL }, id: null });
    // Both clients that were there first still work.
    expect((await victim.listTools()).tools.length).toBeGreaterThan(0);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);

    // Minutes later the flood's sessions are idle; the victim, still working, is not. A newcomer takes an idle
    // place; the victim's session stays.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + MCP_EVICTABLE_IDLE_MS + 1_000 });
    expect((await victim.listTools()).tools.length).toBeGreaterThan(0);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect((await initialize(token)).status).toBe(200);
    expect((await victim.listTools()).tools.length).toBeGreaterThan(0);
    await victim.close();
  });
});
