// "Show" on a masked value over a real server (issue 38 item 10): where a message's masks are, one original for the
// person who asks, never cached, never logged, never to another origin or the MCP token, and masked everywhere else.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLogSink } from '../core/log.js';
import { startTestServer, TEST_MCP_TOKEN, TEST_TOKEN, type TestServer } from '../testing/harness.js';
import { MAX_MASK_ROWS } from './reveal.js';

const ENV = 'Try this .env:\n```\nPOSTGRES_PASSWORD=hunter2\nGITHUB_TOKEN=ghp_Q7abcdefghijklmnopqrstuvwxyzVbNm\n```\nThen restart.';
const SERVED = 'Try this .env:\n```\nPOSTGRES_PASSWORD=***\nGITHUB_TOKEN=ghp_Q7...VbNm\n```\nThen restart.';

let srv: TestServer;
let id: string;

type Json = Record<string, any>;

beforeAll(async () => {
  srv = await startTestServer();
  id = await srv.newSession();
  for (const text of ['Nothing secret here', ENV]) expect((await srv.json('/api/session/message', { session_id: id, text })).status).toBe(200);
});
afterAll(async () => {
  await srv.stop();
});

async function post(pathname: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await srv.api(pathname, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', ...headers } });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Json };
}

describe('POST /api/session/masks', () => {
  it("says where a message's masks are in the text as served, and nothing they hide", async () => {
    const session = ((await (await srv.api(`/api/session?session_id=${id}`)).json()) as Json).session;
    expect(session.messages[1].content).toBe(SERVED);
    const got = await post('/api/session/masks', { session_id: id, message_indexes: [0, 1, 7] });
    expect(got.status).toBe(200);
    expect(got.headers.get('cache-control')).toBe('no-store');
    // The row without masks and the row past the end are left out.
    expect(got.json.messages.map((m: Json) => m.message_index)).toEqual([1]);
    expect(got.json.messages[0].masks.map((m: Json) => SERVED.slice(m.start, m.end))).toEqual(['***', 'ghp_Q7...VbNm']);
    expect(JSON.stringify(got.json)).not.toContain('hunter2');
  });

  it('refuses a list it cannot read, with what to send', async () => {
    const many = Array.from({ length: MAX_MASK_ROWS + 1 }, (_, i) => i);
    expect(await post('/api/session/masks', { session_id: id, message_indexes: many })).toMatchObject({
      status: 400,
      json: { error: `message_indexes must be a list of at most ${MAX_MASK_ROWS} message indexes` },
    });
    expect(await post('/api/session/masks', { session_id: id, message_indexes: ['1'] })).toMatchObject({
      status: 400,
      json: { error: 'Each message index must be a whole number, 0 or more' },
    });
    expect(await post('/api/session/masks', { session_id: 'ffffffffffff', message_indexes: [1] })).toMatchObject({ status: 404, json: { error: 'Session not found' } });
  });
});

describe('POST /api/session/reveal', () => {
  it('answers one mask its original, never to be cached, and leaves every other answer masked', async () => {
    const start = SERVED.indexOf('***');
    const got = await post('/api/session/reveal', { session_id: id, message_index: 1, start });
    expect(got.status).toBe(200);
    expect(got.json).toEqual({ mask: '***', original: 'hunter2' });
    expect(got.headers.get('cache-control')).toBe('no-store');
    expect(got.headers.get('pragma')).toBe('no-cache');
    const token = await post('/api/session/reveal', { session_id: id, message_index: 1, start: SERVED.indexOf('ghp_') });
    expect(token.json).toEqual({ mask: 'ghp_Q7...VbNm', original: 'ghp_Q7abcdefghijklmnopqrstuvwxyzVbNm' });
    // The conversation, its export and search stay masked after a reveal.
    const session = await (await srv.api(`/api/session?session_id=${id}`)).text();
    const exported = await (await srv.api(`/api/session/export?session_id=${id}&format=json`)).text();
    const found = await (await srv.api(`/api/search?q=${encodeURIComponent('POSTGRES_PASSWORD')}`)).text();
    expect(found).toContain('POSTGRES');
    for (const text of [session, exported, found]) {
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain('ghp_Q7abcdefghij');
    }
  });

  it('writes no original to the log, even at debug level', async () => {
    const lines: string[] = [];
    const before = process.env.SATCHEL_LOG_LEVEL;
    process.env.SATCHEL_LOG_LEVEL = 'debug';
    const restore = setLogSink((line) => lines.push(line));
    try {
      expect((await post('/api/session/reveal', { session_id: id, message_index: 1, start: SERVED.indexOf('***') })).status).toBe(200);
      expect((await post('/api/session/reveal', { session_id: id, message_index: 1, start: 0 })).status).toBe(404);
    } finally {
      restore();
      if (before === undefined) delete process.env.SATCHEL_LOG_LEVEL;
      else process.env.SATCHEL_LOG_LEVEL = before;
    }
    expect(lines.join('\n')).not.toContain('hunter2');
  });

  it('answers 404 where no mask starts (the message changed), and 400 for what it cannot read', async () => {
    expect(await post('/api/session/reveal', { session_id: id, message_index: 1, start: 3 })).toMatchObject({
      status: 404,
      json: { error: 'No masked value there: the message may have changed; reload the conversation' },
    });
    expect((await post('/api/session/reveal', { session_id: id, message_index: 9, start: 0 })).status).toBe(404);
    expect(await post('/api/session/reveal', { session_id: id, message_index: -1, start: 0 })).toMatchObject({
      status: 400,
      json: { error: 'message_index must be a whole number, 0 or more' },
    });
    expect(await post('/api/session/reveal', { session_id: id, message_index: 1 })).toMatchObject({ status: 400, json: { error: 'Missing required field(s): start' } });
    expect(await post('/api/session/reveal', { session_id: id, message_index: 1, start: 1.5 })).toMatchObject({
      status: 400,
      json: { error: 'start must be a whole number, 0 or more' },
    });
  });

  it('is for the page of this origin with the launch token only: not another origin, not MCP, not GET', async () => {
    const body = { session_id: id, message_index: 1, start: SERVED.indexOf('***') };
    // A page on another port of this machine is same-site: its cookie would go along, its Origin does not pass.
    for (const origin of ['http://evil.example', `http://127.0.0.1:${srv.port + 1}`]) {
      expect((await post('/api/session/reveal', body, { Origin: origin })).status).toBe(403);
    }
    expect((await post('/api/session/reveal', body, { 'Sec-Fetch-Site': 'same-site' })).status).toBe(403);
    expect((await post('/api/session/reveal', body, { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect((await post('/api/session/masks', { session_id: id, message_indexes: [1] }, { 'Sec-Fetch-Site': 'same-site' })).status).toBe(403);
    // A form a page elsewhere can post without a preflight: refused before the body is read.
    const form = await srv.api('/api/session/reveal', { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'text/plain' } });
    expect([form.status, ((await form.json()) as Json).error]).toEqual([415, 'Content-Type must be application/json']);
    expect((await post('/api/session/reveal', body, { Authorization: `Bearer ${TEST_MCP_TOKEN}` })).status).toBe(401);
    const bare = await fetch(srv.origin + '/api/session/reveal', { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
    expect(bare.status).toBe(401);
    expect((await srv.api('/api/session/reveal')).status).toBe(405);
    const preflight = await fetch(srv.origin + '/api/session/reveal', { method: 'OPTIONS', headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    // The page's own request passes.
    expect((await post('/api/session/reveal', body, { Origin: srv.origin, 'Sec-Fetch-Site': 'same-origin', Authorization: `Bearer ${TEST_TOKEN}` })).status).toBe(200);
  });

  it("does not show another profile's conversation", async () => {
    const got = await post('/api/session/reveal', { session_id: id, message_index: 1, start: SERVED.indexOf('***') }, { Cookie: 'satchel_profile=work' });
    expect(got).toMatchObject({ status: 404, json: { error: 'Session not found' } });
  });
});

describe('who may hand out an original', () => {
  it('only handlers/reveal.ts imports projections/reveal.ts: no event, export, search or MCP answer can carry one', async () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
    const target = path.join(root, 'projections', 'reveal.js');
    const importers: string[] = [];
    for (const entry of await fs.readdir(root, { recursive: true })) {
      const file = String(entry);
      if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
      const text = await fs.readFile(path.join(root, file), 'utf8');
      for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        if (path.resolve(root, path.dirname(file), spec!) === target) importers.push(file);
      }
    }
    expect(importers).toEqual(['handlers/reveal.ts']);
  });
});
