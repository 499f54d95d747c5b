// The request lifecycle over raw sockets: every request gets exactly one answer, whatever its bytes, and no
// request can take the server down (issue: "one request today kills the server").
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody, converse, startTestServer, TEST_TOKEN, type TestServer } from './testing/harness.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ headersTimeoutMs: 400, bodyIdleTimeoutMs: 400 });
});
afterAll(async () => {
  await srv.stop();
});

const HOST = () => `127.0.0.1:${srv.port}`;
const SECURITY = ['x-content-type-options', 'x-frame-options', 'referrer-policy', 'permissions-policy', 'content-security-policy'];

async function healthy(): Promise<void> {
  const res = await fetch(`${srv.origin}/health`, { signal: AbortSignal.timeout(5000) });
  expect(res.status).toBe(200);
}

describe('request targets that are not URLs', () => {
  // Each of these once made `new URL` throw before the handler's try, and Node exited.
  it.each(['//%zz', '//[', '//a:99999/', 'http://%zz/', 'http://[/', '*', 'example.com:443', 'http://user:pw@127.0.0.1/health'])(
    'answers GET %s without a 5xx and keeps serving',
    async (target) => {
      const { responses } = await converse(srv.port, [`GET ${target} HTTP/1.1\r\nHost: ${HOST()}\r\n\r\n`]);
      expect(responses).toHaveLength(1);
      const [res] = responses;
      expect(res!.status).toBeGreaterThanOrEqual(400);
      expect(res!.status).toBeLessThan(500);
      for (const name of SECURITY) expect(res!.header(name), name).toBeTruthy();
      expect(res!.header('content-type')).toBe('application/json; charset=utf-8');
      await healthy();
    },
  );

  it('says exactly what was wrong with an unparseable absolute target', async () => {
    const { responses } = await converse(srv.port, [`GET http://[/ HTTP/1.1\r\nHost: ${HOST()}\r\n\r\n`]);
    expect(responses[0]!.status).toBe(400);
    expect(JSON.parse(responses[0]!.body)).toEqual({ error: 'Invalid request target' });
    expect(responses[0]!.header('connection')).toBe('close');
  });

  it('survives arbitrary targets and header bytes (property)', async () => {
    const targetChar = fc.constantFrom(...'/%[]:@?#.-_~!$&\'()*+,;=azAZ09\\^`{|}"<> \t'.split(''), '\u00e9', '\u0000', '\u007f');
    const target = fc.oneof(
      fc.array(targetChar, { maxLength: 24 }).map((c) => c.join('')),
      fc.array(targetChar, { maxLength: 16 }).map((c) => '//' + c.join('')),
      fc.array(targetChar, { maxLength: 16 }).map((c) => 'http://' + c.join('')),
    );
    const headerBytes = fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('latin1'));
    await fc.assert(
      fc.asyncProperty(target, headerBytes, async (t, extra) => {
        const { responses, text } = await converse(srv.port, [
          Buffer.from(`GET ${t} HTTP/1.1\r\nHost: ${HOST()}\r\nX-Extra: ${extra}\r\n\r\n`, 'latin1'),
        ]);
        // Every request gets an answer, and never a server error.
        expect(text.startsWith('HTTP/1.1 '), JSON.stringify([t, extra])).toBe(true);
        expect(responses[0]?.status ?? 0).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
    await healthy();
  }, 60_000);
});

describe('the head of a request', () => {
  it('answers a missing Host with the JSON error, the security headers and Connection: close', async () => {
    const { responses, closed } = await converse(srv.port, ['GET /health HTTP/1.1\r\n\r\n']);
    expect(responses).toHaveLength(1);
    expect(responses[0]!.status).toBe(400);
    expect(JSON.parse(responses[0]!.body)).toEqual({ error: 'Missing Host header' });
    expect(responses[0]!.header('x-frame-options')).toBe('DENY');
    expect(responses[0]!.headers.filter(([n]) => n === 'connection')).toEqual([['connection', 'close']]);
    expect(closed).toBe(true);
  });

  it('refuses two Host lines', async () => {
    const { responses } = await converse(srv.port, [`GET /health HTTP/1.1\r\nHost: ${HOST()}\r\nHost: evil.example\r\n\r\n`]);
    expect(responses[0]!.status).toBe(400);
    expect(JSON.parse(responses[0]!.body)).toEqual({ error: 'Multiple Host headers' });
  });

  it('requires an absolute-form target to name a loopback authority', async () => {
    const evil = await converse(srv.port, [`GET http://evil.example/api/config HTTP/1.1\r\nHost: ${HOST()}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n\r\n`]);
    expect(evil.responses[0]!.status).toBe(403);
    expect(JSON.parse(evil.responses[0]!.body)).toEqual({ error: 'Forbidden host' });
    const ours = await converse(srv.port, [`GET http://${HOST()}/health HTTP/1.1\r\nHost: ${HOST()}\r\n\r\n`]);
    expect(ours.responses[0]!.status).toBe(200);
  });

  it('answers an unsupported Expect 417 in JSON', async () => {
    const { responses } = await converse(srv.port, [`GET /health HTTP/1.1\r\nHost: ${HOST()}\r\nExpect: teapot\r\n\r\n`]);
    expect(responses[0]!.status).toBe(417);
    expect(JSON.parse(responses[0]!.body)).toEqual({ error: 'Unsupported Expect header' });
    expect(responses[0]!.header('content-security-policy')).toBeTruthy();
  });

  it('refuses more header lines than it keeps (431), even when a Content-Length hides past line 2000', async () => {
    const lines = Array.from({ length: 2001 }, (_, i) => `a${i % 10}:1\r\n`).join('');
    const { responses, closed } = await converse(srv.port, [`POST /api/session/new HTTP/1.1\r\nHost: ${HOST()}\r\n${lines}Content-Length: 5\r\n\r\nGET /`]);
    expect(responses).toHaveLength(1);
    expect(responses[0]!.status).toBe(431);
    expect(JSON.parse(responses[0]!.body)).toEqual({ error: 'Request header fields too large' });
    expect(responses[0]!.header('connection')).toBe('close');
    expect(closed).toBe(true);
  });

  it('answers CONNECT instead of dropping the connection', async () => {
    const { responses } = await converse(srv.port, [`CONNECT ${HOST()} HTTP/1.1\r\nHost: ${HOST()}\r\n\r\n`]);
    expect(responses[0]!.status).toBe(405);
    expect(JSON.parse(responses[0]!.body)).toEqual({ error: 'Method not allowed' });
  });

  it('tells a stalled request head 408 before closing', async () => {
    const { responses, closed } = await converse(srv.port, [`GET /health HTTP/1.1\r\nHost: ${HOST()}\r\n`], { deadlineMs: 4000 });
    expect(responses).toHaveLength(1);
    expect(responses[0]!.status).toBe(408);
    expect(JSON.parse(responses[0]!.body)).toEqual({ error: 'Request timed out' });
    expect(responses[0]!.header('x-content-type-options')).toBe('nosniff');
    expect(closed).toBe(true);
  });

  it('abandons a JSON body that stops arriving (408)', async () => {
    const { responses } = await converse(
      srv.port,
      [`POST /api/session/new HTTP/1.1\r\nHost: ${HOST()}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"a`],
      { deadlineMs: 4000 },
    );
    expect(responses[0]!.status).toBe(408);
    expect(JSON.parse(responses[0]!.body)).toEqual({ error: 'Request timed out' });
    expect(responses[0]!.header('connection')).toBe('close');
  });
});

describe('Content-Length shapes Node refuses before any handler', () => {
  it.each(['Content-Length: 5, 5', 'Content-Length: 5\r\nContent-Length: 5', 'Content-Length: 5\t'])('%j is 400 Invalid Content-Length with one Connection: close', async (line) => {
    const { responses, closed } = await converse(srv.port, [`POST /api/session/new HTTP/1.1\r\nHost: ${HOST()}\r\n${line}\r\n\r\nhello`]);
    expect(responses).toHaveLength(1);
    expect(responses[0]!.status).toBe(400);
    expect(JSON.parse(responses[0]!.body)).toEqual({ error: 'Invalid Content-Length' });
    expect(responses[0]!.headers.filter(([n]) => n === 'connection')).toEqual([['connection', 'close']]);
    expect(closed).toBe(true);
  });
});

describe('one request, one response', () => {
  it.each(['/health', '/api/sessions', '/api/nope'])('answers %s with Transfer-Encoding: identity and a body exactly once (411)', async (pathname) => {
    const { responses, closed } = await converse(srv.port, [
      `GET ${pathname} HTTP/1.1\r\nHost: ${HOST()}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nTransfer-Encoding: identity\r\n\r\nabcdef`,
    ]);
    expect(responses.map((r) => r.status)).toEqual([411]);
    expect(JSON.parse(responses[0]!.body).error).toMatch(/^Unsupported Transfer-Encoding: identity /);
    expect(closed).toBe(true);
  });

  it('answers an HTTP/1.0 request once and closes, whatever follows it', async () => {
    const { responses, closed, text } = await converse(srv.port, [`GET /health HTTP/1.0\r\nHost: ${HOST()}\r\n\r\nGARBAGE\r\n\r\nGET /health HTTP/1.1\r\n\r\n`]);
    expect(responses.map((r) => r.status)).toEqual([200]);
    expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(closed).toBe(true);
  });

  it('answers a Connection: close request once, even with a second request behind it', async () => {
    const { responses, closed } = await converse(srv.port, [
      `GET /health HTTP/1.1\r\nHost: ${HOST()}\r\nConnection: close\r\n\r\nGET /health HTTP/1.1\r\nHost: ${HOST()}\r\n\r\n\x00\x01garbage`,
    ]);
    expect(responses.map((r) => r.status)).toEqual([200]);
    expect(closed).toBe(true);
  });
});

describe('pipelined requests around a refusal', () => {
  const auth = `Authorization: Bearer ${TEST_TOKEN}\r\n`;
  const post = () => `POST /api/session/new HTTP/1.1\r\nHost: ${HOST()}\r\n${auth}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`;

  it('answers every request before refused bytes, in order, then the refusal with close', async () => {
    const { responses, closed } = await converse(
      srv.port,
      [`GET /api/config HTTP/1.1\r\nHost: ${HOST()}\r\n${auth}\r\nGET /health HTTP/1.1\r\nHost: ${HOST()}\r\n\r\nGARBAGE\r\n\r\n`],
      { responses: 3 },
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 501]);
    expect(JSON.parse(responses[1]!.body)).toEqual({ ok: true });
    expect(responses[2]!.header('connection')).toBe('close');
    expect(closed).toBe(true);
  });

  it('answers a write and a Connection: close request before bytes it never answers', async () => {
    const { responses, closed } = await converse(srv.port, [`${post()}GET /health HTTP/1.1\r\nHost: ${HOST()}\r\nConnection: close\r\n\r\nX\r\n\r\n`], {
      responses: 2,
    });
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(responses[1]!.header('connection')).toBe('close');
    expect(closed).toBe(true);
  });

  it('answers a request pipelined before a refused Transfer-Encoding, then the 411 alone', async () => {
    const { responses } = await converse(srv.port, [`${post()}POST /x HTTP/1.1\r\nHost: ${HOST()}\r\nTransfer-Encoding: gzip\r\n\r\nabc`], { responses: 2 });
    expect(responses.map((r) => r.status)).toEqual([200, 411]);
  });

  it('answers an Upgrade request as an ordinary one and closes, instead of dropping what follows', async () => {
    const started = Date.now();
    const { responses, closed } = await converse(srv.port, [
      `GET /health HTTP/1.1\r\nHost: ${HOST()}\r\nConnection: Upgrade\r\nUpgrade: foo\r\n\r\nGET /api/nope HTTP/1.1\r\nHost: ${HOST()}\r\n\r\n`,
    ]);
    expect(responses.map((r) => r.status)).toEqual([200]);
    expect(responses[0]!.header('connection')).toBe('close');
    expect(responses[0]!.header('x-frame-options')).toBe('DENY');
    expect(closed).toBe(true);
    // Closed at once, not left open until the keep-alive timeout.
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('Expect: 100-continue', () => {
  const boundary = 'b0undary';
  const upload = (headers: string, body: Buffer) =>
    `POST /api/upload HTTP/1.1\r\nHost: ${HOST()}\r\n${headers}Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`;

  it('is never told to an unauthenticated upload', async () => {
    const body = multipartBody(boundary, [{ name: 'file', filename: 'a.txt', content: 'hello' }]);
    const { text, responses } = await converse(srv.port, [upload('', body)]);
    expect(text).not.toContain('100 Continue');
    expect(responses[0]!.status).toBe(401);
    expect(responses[0]!.header('connection')).toBe('close');
  });

  it('is never told to an upload over the cap', async () => {
    const { text, responses } = await converse(srv.port, [
      `POST /api/upload HTTP/1.1\r\nHost: ${HOST()}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: ${200 * 1024 * 1024}\r\nExpect: 100-continue\r\n\r\n`,
    ]);
    expect(text).not.toContain('100 Continue');
    expect(responses[0]!.status).toBe(413);
  });

  it('is told to an accepted upload, which then completes', async () => {
    const id = await srv.newSession();
    const body = multipartBody(boundary, [
      { name: 'session_id', content: id },
      { name: 'file', filename: 'continued.txt', content: 'sent after 100' },
    ]);
    const { text, responses } = await converse(srv.port, [upload(`Authorization: Bearer ${TEST_TOKEN}\r\n`, body), { waitFor: '100 Continue' }, body]);
    expect(text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')).toBe(true);
    expect(responses[0]!.status).toBe(200);
    expect(JSON.parse(responses[0]!.body)).toMatchObject({ filename: 'continued.txt', size: 14 });
  });
});

describe('uploads with a boundary on the wrong media type', () => {
  it.each(['text/plain; boundary=X', 'multipart/mixed; boundary=X', 'application/x-www-form-urlencoded; boundary=X'])('%s is 400 Invalid multipart form data', async (type) => {
    const res = await srv.api('/api/upload', { method: 'POST', headers: { 'Content-Type': type }, body: '--X\r\n\r\n--X--\r\n' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'Invalid multipart form data' });
  });

  it('still answers No boundary in Content-Type first', async () => {
    const res = await srv.api('/api/upload', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'x' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'No boundary in Content-Type' });
  });
});
