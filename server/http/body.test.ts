// JSON request bodies (body.ts) through a non-upload POST route over a real socket.
import { describe, expect, it } from 'vitest';
import { converse, TEST_TOKEN } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';

const srv = testServerForFile({ bodyIdleTimeoutMs: 400 });

async function post(body: string): Promise<{ status: number; body: unknown }> {
  const res = await srv.api('/api/profile/switch', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  return { status: res.status, body: await res.json() };
}

describe('readJsonBody', () => {
  it('reads an object and hands it to the handler', async () => {
    expect(await post('{"name":"work"}')).toEqual({ status: 200, body: { ok: true, active: 'work' } });
  });

  it('treats an empty body as an empty object, so the handler reports the missing field', async () => {
    expect(await post('')).toEqual({ status: 400, body: { error: 'Missing required field(s): name' } });
  });

  it('answers 400 Invalid JSON body for bytes that are not JSON', async () => {
    expect(await post('{"name":')).toEqual({ status: 400, body: { error: 'Invalid JSON body' } });
  });

  it.each(['[1]', 'null', '"work"', '3'])('answers 400 for %s, which is JSON but not an object', async (text) => {
    expect(await post(text)).toEqual({ status: 400, body: { error: 'JSON body must be an object' } });
  });

  it('answers 408 when a declared body stops arriving, and closes', async () => {
    const head =
      `POST /api/profile/switch HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 50\r\n\r\n{"name":';
    const { responses } = await converse(srv.port, [head]);
    expect(responses).toHaveLength(1);
    expect(responses[0]!.status).toBe(408);
    expect(responses[0]!.header('connection')).toBe('close');
  });
});
