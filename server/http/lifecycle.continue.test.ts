// Expect: 100-continue (http/lifecycle.ts): told only to a request whose body a handler will actually read.
import { describe, expect, it } from 'vitest';
import { multipartBody, converse, TEST_TOKEN } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';

const srv = testServerForFile({ headersTimeoutMs: 400, bodyIdleTimeoutMs: 400 });

const HOST = () => `127.0.0.1:${srv.port}`;

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
