// framing.ts in the running server: refusals before the body and the connection-reuse rules (spec-notes 4.0).
import { describe, expect, it } from 'vitest';
import { parseResponses, rawExchange, TEST_TOKEN } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { expectSecurityHeaders } from '../testing/security-headers.js';

const srv = testServerForFile();

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
