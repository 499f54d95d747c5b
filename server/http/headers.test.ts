import { afterEach, describe, expect, it } from 'vitest';
import { contentSecurityPolicy, securityHeaders } from './headers.js';
import { setLogSink } from '../core/log.js';

const EXACT =
  "default-src 'self' https://*.cloudflareaccess.com; object-src 'none'; frame-ancestors 'none'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://static.cloudflareinsights.com blob:; worker-src blob: 'self' https://cdn.jsdelivr.net; style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; img-src 'self' data: https: blob:; font-src 'self' data: https://fonts.gstatic.com; media-src 'self' data: blob:; connect-src 'self' http://127.0.0.1:* http://localhost:* http://ipc.localhost https://127.0.0.1:* https://localhost:* ws://127.0.0.1:* ws://localhost:* https://cdn.jsdelivr.net; frame-src 'self'; manifest-src 'self' https://*.cloudflareaccess.com; base-uri 'self'; form-action 'self'";

let restore: (() => void) | undefined;
afterEach(() => restore?.());

function captureWarnings(): string[] {
  const lines: string[] = [];
  restore = setLogSink((l) => lines.push(l));
  return lines;
}

describe('Content-Security-Policy', () => {
  it('is exactly the policy of spec-notes 4.0 without extras', () => {
    expect(contentSecurityPolicy({})).toBe(EXACT);
  });

  it('appends valid connect and frame extras', () => {
    const csp = contentSecurityPolicy({
      SATCHEL_WEBUI_CSP_CONNECT_EXTRA: ' wss://*.example.com:443  https://api.example.org ',
      SATCHEL_WEBUI_CSP_FRAME_EXTRA: 'https://frames.example.com:*',
    });
    expect(csp).toContain('https://cdn.jsdelivr.net wss://*.example.com:443 https://api.example.org; frame-src');
    expect(csp).toContain("frame-src 'self' https://frames.example.com:*; manifest-src");
  });

  it.each([
    ['ftp://example.com'],
    ['https://example.com/path'],
    ["https://example.com; script-src 'unsafe-eval'"],
    ['https://exa mple.com'],
    ['https://example.com:0'],
    ['https://example.com:65536'],
    ['https://*.*.example.com'],
    ['example.com'],
    ["'unsafe-eval'"],
  ])('ignores the whole connect variable when one entry is invalid: %s', (bad) => {
    const warnings = captureWarnings();
    const csp = contentSecurityPolicy({ SATCHEL_WEBUI_CSP_CONNECT_EXTRA: `https://ok.example.com ${bad}` });
    expect(csp).toBe(EXACT);
    expect(warnings.join('\n')).toContain('Ignoring SATCHEL_WEBUI_CSP_CONNECT_EXTRA');
  });

  it('allows only http and https in frame extras', () => {
    captureWarnings();
    expect(contentSecurityPolicy({ SATCHEL_WEBUI_CSP_FRAME_EXTRA: 'wss://x.example.com' })).toBe(EXACT);
    expect(contentSecurityPolicy({ SATCHEL_WEBUI_CSP_FRAME_EXTRA: 'http://x.example.com:8080' })).toContain(
      "frame-src 'self' http://x.example.com:8080;",
    );
  });

  it('accepts the port range edges and an empty variable', () => {
    expect(contentSecurityPolicy({ SATCHEL_WEBUI_CSP_CONNECT_EXTRA: 'http://a:1 http://b:65535' })).toContain('http://a:1 http://b:65535;');
    expect(contentSecurityPolicy({ SATCHEL_WEBUI_CSP_CONNECT_EXTRA: '   ' })).toBe(EXACT);
  });

  it('sends the fixed security headers', () => {
    expect(securityHeaders({})).toEqual({
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'same-origin',
      'Permissions-Policy': 'camera=(), microphone=(self), geolocation=(), clipboard-write=(self)',
      'Content-Security-Policy': EXACT,
    });
  });
});

describe('extras are read on every response', () => {
  it('picks up a changed variable without a restart', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(securityHeaders(env)['Content-Security-Policy']).toBe(EXACT);
    env.SATCHEL_WEBUI_CSP_CONNECT_EXTRA = 'https://late.example.com';
    expect(securityHeaders(env)['Content-Security-Policy']).toContain('https://cdn.jsdelivr.net https://late.example.com;');
    delete env.SATCHEL_WEBUI_CSP_CONNECT_EXTRA;
    expect(securityHeaders(env)['Content-Security-Policy']).toBe(EXACT);
  });
});
