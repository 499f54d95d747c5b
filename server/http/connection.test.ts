// One request, one response (connection.ts): pipelined answers in order, and nothing after a close.
import { describe, expect, it } from 'vitest';
import { converse, TEST_TOKEN } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';

const srv = testServerForFile({ headersTimeoutMs: 400, bodyIdleTimeoutMs: 400 });

const HOST = () => `127.0.0.1:${srv.port}`;

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
