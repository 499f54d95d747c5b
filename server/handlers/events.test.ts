// The event stream of events.ts over a real socket: redacted, per profile, and indifferent to a vanished client.
import { describe, expect, it } from 'vitest';
import { setLogSink } from '../core/log.js';
import { type TestServer } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { expectSecurityHeaders } from '../testing/security-headers.js';

const srv = testServerForFile();

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
