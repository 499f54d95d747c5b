// access.ts wired into the running server: the token, the open health routes, Host and Origin checks.
import { describe, expect, it } from 'vitest';
import { parseResponses, rawExchange, TEST_TOKEN } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { expectSecurityHeaders } from '../testing/security-headers.js';

const srv = testServerForFile();

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
