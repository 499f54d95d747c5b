// An agent that repeats the key Satchel gave it (server/testing/hostile-agent-echo.ts), over real sockets: the
// key is saved the way a person saves it (POST /api/agent/settings), and has no vendor shape, so only knowing
// its exact value can mask it. It must appear nowhere a person or another agent can read: the reply's frames,
// the session file on disk, GET /api/session, MCP read_session and search, and the models that POST
// /api/agent/test and GET /api/agent/models list.
import fs from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetSecrets } from '../redact/known.js';
import { startFakeAgent, type FakeAgent } from '../testing/fake-agent.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';
import { keyEcho, keyEchoModels, SHAPELESS_KEY } from '../testing/hostile-agent-echo.js';
import { openSse } from '../testing/sse.js';
import { databaseBytes, storedSessionText } from '../testing/stored-session.js';

const TURN_DEADLINE_MS = 30_000;
const KEY = SHAPELESS_KEY;
const half = Math.floor(KEY.length / 2);
/** Every way the key could be read back from what Satchel shows: whole, halves, spaced out, base64 at any alignment. */
function leaks(text: string): string[] {
  const squeezed = text.replace(/[\s\-_.\u200b]/g, '');
  const found: string[] = [];
  if (text.includes(KEY.slice(0, half))) found.push('first half');
  if (text.includes(KEY.slice(half))) found.push('second half');
  if (squeezed.includes(KEY)) found.push('spaced out');
  for (const b64 of [text, text.replace(/-/g, '+').replace(/_/g, '/')]) {
    for (const word of b64.match(/[A-Za-z0-9+/]{8,}={0,2}/g) ?? []) {
      for (let cut = 0; cut < 4; cut++) {
        if (Buffer.from(word.slice(cut), 'base64').toString('latin1').includes(KEY.slice(2, -2))) found.push(`base64 ${word}`);
      }
    }
  }
  return found;
}

let srv: TestServer;
let agent: FakeAgent;
let session: string;
let sseText: string;
/** The reply as the frames show it, pieces joined. */
let replyText: string;

beforeAll(async () => {
  forgetSecrets();
  agent = await startFakeAgent({ apiKey: KEY, hermes: true, models: keyEchoModels(KEY) });
  srv = await startTestServer();
  const saved = await srv.json('/api/agent/settings', { base_url: agent.baseUrl, api_key: KEY, model: 'fake-model', kind: 'hermes' });
  expect(saved.status).toBe(200);
  session = await srv.newSession();
  agent.next(keyEcho(KEY, true));
  const res = await srv.json('/api/chat/start', { session_id: session, message: 'Tell me my key' });
  const { stream_id: streamId } = (await res.json()) as { stream_id: string };
  expect(res.status).toBe(200);
  const stream = await openSse(srv.port, `/api/chat/stream?stream_id=${streamId}&after_seq=0`);
  await stream.ended(TURN_DEADLINE_MS);
  sseText = stream.frames().map((f) => `${f.event} ${f.data}`).join('\n');
  replyText = stream
    .frames()
    .filter((f) => f.event === 'token')
    .map((f) => (JSON.parse(f.data!) as { text: string }).text)
    .join('');
}, TURN_DEADLINE_MS + 10_000);

afterAll(async () => {
  await srv?.stop();
  await agent?.close();
  forgetSecrets();
});

describe('an agent echoing its key (no vendor shape) in every field', () => {
  it('the agent really received the key and echoed it (the control)', () => {
    expect(agent.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sseText).toMatch(/^done /m);
    expect(replyText).toMatch(/^Your key is \*\*\* \| model-\*\*\* \| tool_\*\*\*\.json \| \*\*\* \|/);
    expect(leaks(replyText)).toEqual([]);
  });

  it('the reply frames (content split in pieces, reasoning, tool progress) never carry it', () => {
    expect(sseText).toContain('tool_complete');
    expect(leaks(sseText)).toEqual([]);
  });

  it('the session file on disk never holds it, yet keeps the rest of the reply', async () => {
    const bytes = await storedSessionText(srv.stateDir, session);
    expect(bytes).toContain('Your key is');
    expect(bytes).toContain('tool_calls');
    expect(leaks(bytes)).toEqual([]);
    // Nor any byte of the database files: the search index, freed pages, the write-ahead log.
    expect(leaks(await databaseBytes(srv.stateDir))).toEqual([]);
  });

  it('GET /api/session never returns it', async () => {
    const res = await srv.api(`/api/session?session_id=${session}`);
    expect(res.status).toBe(200);
    expect(leaks(await res.text())).toEqual([]);
  });

  it('MCP read_session and search never return it', async () => {
    const client = new Client({ name: 'echo-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(srv.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }));
    try {
      const read = JSON.stringify(await client.callTool({ name: 'read_session', arguments: { session_id: session } }));
      expect(read).toContain('Your key is');
      expect(leaks(read)).toEqual([]);
      const found = JSON.stringify(await client.callTool({ name: 'search', arguments: { query: KEY.slice(0, half) } }));
      expect(leaks(found)).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('POST /api/agent/test lists the models without the ones named after the key', async () => {
    const res = await srv.json('/api/agent/test', {});
    const body = (await res.json()) as { ok: boolean; models: string[] };
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ ok: true, models: ['fake-model'] });
    expect(leaks(JSON.stringify(body))).toEqual([]);
  });

  it('GET /api/agent/models (a conversation’s model picker) lists them without the ones named after the key', async () => {
    const res = await srv.api('/api/agent/models');
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(JSON.parse(text)).toEqual({ ok: true, models: ['fake-model'], model: 'fake-model' });
    expect(leaks(text)).toEqual([]);
  });

  it('a key typed for a test but not saved is dropped from the models the server lists back', async () => {
    const typed = 'Zt4Wq9Lp2Xm7Rk8Vn3Bc';
    const other = await startFakeAgent({ models: ['other-model', `model-${typed}`, [...typed].join('.')] });
    try {
      const res = await srv.json('/api/agent/test', { base_url: other.baseUrl, api_key: typed });
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(JSON.parse(text)).toMatchObject({ ok: true, models: ['other-model'] });
      expect(text).not.toContain(typed.slice(0, 10));
    } finally {
      await other.close();
    }
  });
});
