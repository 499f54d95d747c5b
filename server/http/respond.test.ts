// The response conventions of respond.ts (spec-notes 4.0) as a client receives them over a real socket.
import http from 'node:http';
import zlib from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { TEST_TOKEN } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { errorResponse, GZIP_SYNC_MAX_BYTES, GZIP_THRESHOLD_BYTES, jsonBody, jsonResponse } from './respond.js';
import { redactText, serverValue } from '../projections/brand.js';
import { expectSecurityHeaders } from '../testing/security-headers.js';

const srv = testServerForFile();

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

  it('gzips a JSON answer up to GZIP_SYNC_MAX_BYTES at once (no trip to the thread pool), the same bytes as asked without', async () => {
    const id = await srv.newSession();
    for (let i = 0; i < 12; i++) await srv.json('/api/session/message', { session_id: id, text: `the grey heron number ${i} stood in the reeds at dawn` });
    const auth = { Authorization: `Bearer ${TEST_TOKEN}` };
    const plain = await rawGet('/api/search?q=heron', auth);
    expect(plain.body.length).toBeGreaterThan(GZIP_THRESHOLD_BYTES);
    expect(plain.body.length).toBeLessThanOrEqual(GZIP_SYNC_MAX_BYTES);
    const gzipSync = vi.spyOn(zlib, 'gzipSync');
    try {
      const zipped = await rawGet('/api/search?q=heron', { ...auth, 'Accept-Encoding': 'gzip' });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(Number(zipped.headers['content-length'])).toBe(zipped.body.length);
      expect(zlib.gunzipSync(zipped.body).toString('utf8')).toBe(plain.body.toString('utf8'));
      expect(gzipSync).toHaveBeenCalledTimes(1);
    } finally {
      gzipSync.mockRestore();
    }
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

describe('jsonBody and jsonResponse', () => {
  it('pretty-prints with two spaces by default, compact on request, non-ASCII as UTF-8', () => {
    expect(jsonBody({ a: 'é' }).toString('utf8')).toBe('{\n  "a": "é"\n}');
    expect(jsonBody({ a: 'é', b: [1] }, true).toString('utf8')).toBe('{"a":"é","b":[1]}');
  });

  it('sends a projection as it is: free text came redacted, server values verbatim; the error body redacts its text', () => {
    const stored = '/state/attachments/0123456789ab/sk-learn-cheatsheet.pdf';
    const { headers, body } = jsonResponse({ path: serverValue(stored), note: redactText('key sk-abcdefghijklmnopqrstuvwxyz0123') }, { headers: { 'X-Extra': '1' } });
    expect(headers).toMatchObject({ 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Extra': '1' });
    expect(JSON.parse(body.toString('utf8'))).toEqual({ path: stored, note: 'key sk-abc...0123' });
    expect(errorResponse('Unknown file ghp_Q7wE9rT2yU4iO6pA8sD0fG1hJ3kL5zX7cV9bN').body.toString('utf8')).not.toContain('Q7wE9rT2yU4iO6pA8sD0fG1hJ3kL5zX7cV9bN');
  });

  it('refuses, by type, a string nobody classified', () => {
    const title: string = 'from the store';
    // @ts-expect-error a plain string is neither RedactedText nor ServerValue
    expect(() => jsonResponse({ title })).not.toThrow();
    const record: { session_id: string } = { session_id: '0123456789ab' };
    // @ts-expect-error a store record is not a projection
    expect(() => jsonResponse({ session: record })).not.toThrow();
  });
});
