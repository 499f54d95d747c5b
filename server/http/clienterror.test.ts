// Refusals by Node's parser, answered by clienterror.ts: the JSON error, the security headers and one
// Connection: close, and the server lives on.
import { describe, expect, it } from 'vitest';
import { converse, TEST_TOKEN } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { classifyParseError } from './clienterror.js';

const srv = testServerForFile({ headersTimeoutMs: 400, bodyIdleTimeoutMs: 400 });

const HOST = () => `127.0.0.1:${srv.port}`;

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

describe('classifyParseError', () => {
  const raw = (head: string) => Buffer.from(head, 'latin1');

  it('maps the parser codes that need no look at the bytes', () => {
    expect(classifyParseError('HPE_HEADER_OVERFLOW', undefined)).toEqual([431, 'Request header fields too large']);
    expect(classifyParseError('ERR_HTTP_HEADERS_TIMEOUT', undefined)).toEqual([408, 'Request timed out']);
    expect(classifyParseError('HPE_INVALID_METHOD', undefined)).toEqual([501, 'Unsupported method']);
    expect(classifyParseError('HPE_SOMETHING_ELSE', undefined)).toEqual([400, 'Bad request']);
  });

  it('gives framing its own answer when the raw head shows it (Transfer-Encoding before Content-Length)', () => {
    const [status, text] = classifyParseError('HPE_UNEXPECTED_CONTENT_LENGTH', raw('POST /api/upload HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n'));
    expect(status).toBe(411);
    expect(text).toMatch(/^Unsupported Transfer-Encoding: chunked/);
  });

  it('answers a length Node refuses but the framing rules read as one value with Invalid Content-Length', () => {
    expect(classifyParseError('HPE_INVALID_CONTENT_LENGTH', raw('POST / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n'))).toEqual([400, 'Invalid Content-Length']);
  });
});
