// Integration tests of the server core over real loopback sockets.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import zlib from 'node:zlib';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLogSink } from './log.js';
import { parseResponses, rawExchange, startTestServer, TEST_TOKEN, type TestServer } from './testing/harness.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.stop();
});

const SECURITY = ['x-content-type-options', 'x-frame-options', 'referrer-policy', 'permissions-policy', 'content-security-policy'];

function expectSecurityHeaders(get: (name: string) => string | null | undefined): void {
  for (const name of SECURITY) expect(get(name), name).toBeTruthy();
  expect(get('x-frame-options')).toBe('DENY');
  expect(get('content-security-policy')).toMatch(/^default-src 'self' https:\/\/\*\.cloudflareaccess\.com; object-src 'none'; frame-ancestors 'none';/);
}

/** A GET over http.request, which (unlike fetch) shows the bytes as sent: compressed or not. */
function rawGet(pathname: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: srv.port, path: pathname, headers, timeout: 5000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('timeout', () => req.destroy(new Error('deadline')));
    req.on('error', reject);
  });
}

describe('responses', () => {
  it('answers /health with compact JSON, no-store and the security headers', async () => {
    const res = await fetch(`${srv.origin}/health`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"ok":true}');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expectSecurityHeaders((n) => res.headers.get(n));
  });

  it('puts the security headers on errors too', async () => {
    const res = await srv.api('/api/nope');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Not found' });
    expectSecurityHeaders((n) => res.headers.get(n));
  });

  it('pretty-prints with two spaces and leaves non-ASCII unescaped', async () => {
    const id = await srv.newSession();
    await srv.json('/api/session/rename', { session_id: id, title: 'Café ☃ 日本' });
    const res = await rawGet(`/api/session?session_id=${id}`, { Authorization: `Bearer ${TEST_TOKEN}` });
    const text = res.body.toString('utf8');
    expect(text).toContain('\n  "session": {\n    "session_id"');
    expect(text).toContain('"title": "Café ☃ 日本"');
    expect(Number(res.headers['content-length'])).toBe(res.body.length);
  });

  it('gzips JSON over 1024 bytes only when asked, with the compressed length', async () => {
    const id = await srv.newSession();
    await srv.json('/api/session/message', { session_id: id, text: 'x'.repeat(3000) });
    const auth = { Authorization: `Bearer ${TEST_TOKEN}` };
    const zipped = await rawGet(`/api/session?session_id=${id}`, { ...auth, 'Accept-Encoding': 'br, gzip;q=0.8' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(Number(zipped.headers['content-length'])).toBe(zipped.body.length);
    const plain = await rawGet(`/api/session?session_id=${id}`, auth);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zlib.gunzipSync(zipped.body).toString('utf8')).toBe(plain.body.toString('utf8'));
    const small = await rawGet('/health', { 'Accept-Encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('redacts credentials in every JSON string', async () => {
    const id = await srv.newSession();
    const secret = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0K1l2';
    const res = await srv.json('/api/session/message', { session_id: id, text: `my key is ${secret} ok` });
    const body = await res.text();
    expect(body).not.toContain(secret);
    expect(body).toContain('my key is ');
  });
});

describe('access', () => {
  it('refuses the API without the token', async () => {
    const res = await fetch(`${srv.origin}/api/sessions`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'Missing or invalid access token' });
    const wrong = await fetch(`${srv.origin}/api/sessions`, { headers: { Authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
  });

  it('keeps the health routes open', async () => {
    expect((await fetch(`${srv.origin}/api/health/agent`)).status).toBe(200);
  });

  it('refuses a foreign Host (DNS rebinding)', async () => {
    const { text } = await rawExchange(srv.port, 'GET /health HTTP/1.1\r\nHost: evil.example:80\r\nConnection: close\r\n\r\n');
    const [res] = parseResponses(text);
    expect(res!.status).toBe(403);
    expect(JSON.parse(res!.body)).toEqual({ error: 'Forbidden host' });
  });

  it('refuses cross-origin writes and accepts same-origin ones', async () => {
    const evil = await srv.api('/api/session/new', { method: 'POST', body: '{}', headers: { Origin: 'https://evil.example' } });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toEqual({ error: 'Cross-origin request refused' });
    const own = await srv.api('/api/session/new', { method: 'POST', body: '{}', headers: { Origin: srv.origin } });
    expect(own.status).toBe(200);
  });

  it('turns the token link into an HttpOnly cookie and a redirect without the token', async () => {
    const res = await fetch(`${srv.origin}/?token=${TEST_TOKEN}`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/');
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toBe(`satchel_access=${TEST_TOKEN}; Path=/; HttpOnly; SameSite=Strict`);
    expectSecurityHeaders((n) => res.headers.get(n));
    const api = await fetch(`${srv.origin}/api/sessions`, { headers: { Cookie: cookie.split(';')[0]! } });
    expect(api.status).toBe(200);
    const bad = await fetch(`${srv.origin}/?token=wrong`, { redirect: 'manual' });
    expect(bad.status).toBe(403);
  });
});

describe('sessions, profiles, workspaces', () => {
  it('creates, reads, renames and lists sessions', async () => {
    const res = await srv.json('/api/session/new', {});
    const { session } = (await res.json()) as { session: Record<string, unknown> };
    expect(session.session_id).toMatch(/^[0-9a-f]{12}$/);
    expect(session).toMatchObject({ title: 'Untitled', messages: [], profile: 'default', workspace: await fs.realpath(srv.workspace) });
    const renamed = await srv.json('/api/session/rename', { session_id: session.session_id, title: 'Trip plan' });
    expect(((await renamed.json()) as { session: { title: string } }).session.title).toBe('Trip plan');
    const list = (await (await srv.api('/api/sessions')).json()) as { sessions: { session_id: string; title: string }[] };
    expect(list.sessions.find((s) => s.session_id === session.session_id)?.title).toBe('Trip plan');
    const stored = JSON.parse(await fs.readFile(path.join(srv.stateDir, 'sessions', `${session.session_id}.json`), 'utf8'));
    expect(stored.title).toBe('Trip plan');
  });

  it('reports missing fields with the exact text', async () => {
    const res = await srv.json('/api/session/rename', { session_id: '' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'Missing required field(s): session_id, title' });
  });

  it.each([[[]], [{}], [null], [false]])('counts a title of %j as missing, as Python would', async (title) => {
    const res = await srv.json('/api/session/rename', { session_id: 'x', title });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'Missing required field(s): title' });
  });

  it('hides sessions of another profile', async () => {
    const id = await srv.newSession({ profile: 'work' });
    const asDefault = await srv.api(`/api/session?session_id=${id}`);
    expect(asDefault.status).toBe(404);
    expect(await asDefault.json()).toEqual({ error: 'Session not found' });
    const asWork = await srv.api(`/api/session?session_id=${id}`, { headers: { Cookie: 'satchel_profile=work' } });
    expect(asWork.status).toBe(200);
    const sw = await srv.json('/api/profile/switch', { name: 'work' });
    expect(sw.headers.get('set-cookie')).toBe('satchel_profile=work; Path=/; SameSite=Strict');
    expect((await srv.json('/api/profile/switch', { name: 'Bad Name' })).status).toBe(400);
  });

  it('accepts only trusted, existing, non-system workspaces', async () => {
    for (const [workspace, error] of [
      ['/etc', 'Workspace cannot be a system directory'],
      ['relative/dir', 'Workspace must be an absolute path'],
      [path.join(srv.tmp, 'missing'), 'Workspace does not exist'],
    ]) {
      const res = await srv.json('/api/session/new', { workspace });
      expect(res.status, workspace).toBe(400);
      expect(await res.json()).toEqual({ error: error });
    }
    const outside = await fs.mkdtemp('/var/tmp/satchel-outside-');
    try {
      const refused = await srv.json('/api/session/new', { workspace: outside });
      expect(await refused.json()).toEqual({ error: 'Workspace is not in a trusted folder; add it first' });
      expect((await srv.json('/api/workspaces/add', { path: outside })).status).toBe(200);
      expect((await srv.json('/api/session/new', { workspace: outside })).status).toBe(200);
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
    }
  });
});

describe('robustness of the read-only routes', () => {
  it('answers a malformed percent-escape in a static path with 404, not 500', async () => {
    const res = await fetch(`${srv.origin}/%E0%A4%A`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Not found' });
  });

  it('refuses to preview a FIFO without blocking the server (four of them used to stall every file operation)', async () => {
    const id = await srv.newSession();
    const fifo = path.join(srv.workspace, 'pipe');
    execFileSync('mkfifo', [fifo]);
    await fs.writeFile(path.join(srv.workspace, 'plain.txt'), 'plain');
    try {
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => srv.api(`/api/workspace/file?session_id=${id}&path=pipe`, { signal: AbortSignal.timeout(5000) })),
      );
      for (const res of answers) {
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({ error: 'Not a file' });
      }
      const plain = await srv.api(`/api/workspace/file?session_id=${id}&path=plain.txt`, { signal: AbortSignal.timeout(5000) });
      expect(await plain.text()).toBe('plain');
    } finally {
      await fs.rm(fifo, { force: true });
    }
  });

  it('refuses a folder inside a system directory as a workspace', async () => {
    for (const dir of ['/etc/ssh', '/usr/bin']) {
      const res = await srv.json('/api/workspaces/add', { path: dir });
      expect(res.status, dir).toBe(400);
      expect(await res.json()).toEqual({ error: 'A system directory cannot be a workspace' });
      expect((await srv.json('/api/session/new', { workspace: dir })).status).toBe(400);
    }
  });
});

describe('framing and connection reuse', () => {
  const head = (lines: string[]) => lines.join('\r\n') + '\r\n\r\n';
  const host = () => `Host: 127.0.0.1:${srv.port}`;
  const auth = `Authorization: Bearer ${TEST_TOKEN}`;

  function only(text: string) {
    const responses = parseResponses(text);
    expect(responses).toHaveLength(1);
    const res = responses[0]!;
    expect(res.headers.filter(([n]) => n === 'connection')).toEqual([['connection', 'close']]);
    expectSecurityHeaders((n) => res.header(n));
    return res;
  }

  it('answers a chunked upload with 411 and closes; the smuggled request is never answered', async () => {
    const smuggled = 'GET /api/health/agent HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const payload = head(['POST /api/upload HTTP/1.1', host(), auth, 'Transfer-Encoding: chunked', 'Content-Type: multipart/form-data; boundary=x']) +
      `${smuggled.length.toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`;
    const { text, closed } = await rawExchange(srv.port, payload);
    expect(closed).toBe(true);
    const res = only(text);
    expect(res.status).toBe(411);
    expect(JSON.parse(res.body)).toEqual({ error: 'Unsupported Transfer-Encoding: chunked (uploads must send an undecoded body with a Content-Length)' });
  });

  it.each([['3, 4'], ['-1'], ['1_000'], ['0x10']])('answers Content-Length %s with 400 Invalid Content-Length and closes', async (value) => {
    const { text, closed } = await rawExchange(srv.port, head(['POST /api/upload HTTP/1.1', host(), auth, `Content-Length: ${value}`]) + 'GET /health HTTP/1.1\r\n\r\n');
    expect(closed).toBe(true);
    const res = only(text);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: 'Invalid Content-Length' });
  });

  it('answers Transfer-Encoding with Content-Length (the classic smuggling shape) with 411', async () => {
    const { text } = await rawExchange(srv.port, head(['POST /api/upload HTTP/1.1', host(), 'Transfer-Encoding: chunked', 'Content-Length: 5']) + '0\r\n\r\n');
    const res = only(text);
    expect(res.status).toBe(411);
  });

  it('closes after rejecting a request whose declared body it did not read (401 with a body)', async () => {
    const smuggled = 'GET /api/health/agent HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const { text, closed } = await rawExchange(srv.port, head(['POST /api/session/new HTTP/1.1', host(), `Content-Length: ${smuggled.length}`]) + smuggled);
    expect(closed).toBe(true);
    const res = only(text);
    expect(res.status).toBe(401);
  });

  it('keeps the connection open for a rejection without a declared body', async () => {
    const { text, closed } = await rawExchange(
      srv.port,
      head(['GET /api/sessions HTTP/1.1', host()]) + head(['GET /api/health/agent HTTP/1.1', host(), 'Connection: close']),
    );
    expect(closed).toBe(true);
    const responses = parseResponses(text);
    expect(responses.map((r) => r.status)).toEqual([401, 200]);
    expect(responses[0]!.header('connection')).not.toBe('close');
  });

  it('refuses a JSON body over 20 MiB before reading it', async () => {
    const { text, closed } = await rawExchange(srv.port, head(['POST /api/session/new HTTP/1.1', host(), auth, `Content-Length: ${20 * 1024 * 1024 + 1}`]) + '{');
    expect(closed).toBe(true);
    const res = only(text);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ error: 'Request body too large (max 20MB)' });
  });

  it('answers unknown methods and oversized headers with JSON and the security headers', async () => {
    const method = only((await rawExchange(srv.port, head(['BREW / HTTP/1.1', host()]))).text);
    expect(method.status).toBe(501);
    expect(JSON.parse(method.body)).toEqual({ error: 'Unsupported method' });
    const big = only((await rawExchange(srv.port, head(['GET / HTTP/1.1', host(), `X-Big: ${'a'.repeat(70_000)}`]))).text);
    expect(big.status).toBe(431);
  });

  it('answers a wrong method on a known path with 405', async () => {
    const res = await srv.api('/api/upload');
    expect(res.status).toBe(405);
    expect(await res.json()).toEqual({ error: 'Method not allowed' });
  });
});

describe('server-sent events', () => {
  it('streams redacted session events to the same profile only, and survives a client that vanishes', async () => {
    const lines: string[] = [];
    const restore = setLogSink((l) => lines.push(l));
    try {
      const ctrl = new AbortController();
      const res = await srv.api('/api/events', { signal: ctrl.signal });
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expectSecurityHeaders((n) => res.headers.get(n));
      const reader = res.body!.getReader();
      const other = await srv.newSession({ profile: 'elsewhere' });
      const id = await srv.newSession();
      await srv.json('/api/session/rename', { session_id: id, title: 'token=ghp_abcdefghijklmnopqrstuvwxyz0123456789' });
      let text = '';
      const deadline = Date.now() + 5000;
      while (!text.includes('session_renamed') && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      expect(text).toMatch(/^retry: 3000\n/);
      expect(text).toContain(`event: session_created\ndata: {"session":{"session_id":"${id}"`);
      expect(text).not.toContain(other);
      expect(text).toContain('event: session_renamed');
      expect(text).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
      ctrl.abort();
      await new Promise((r) => setTimeout(r, 100));
      expect((await fetch(`${srv.origin}/health`)).status).toBe(200);
      expect(lines.filter((l) => / (ERROR|WARN) /.test(l))).toEqual([]);
    } finally {
      restore();
    }
  });
});
