// The security headers every answer carries (spec-notes 4.0), asserted the same way by every test that reads
// answers off the wire.
import { expect } from 'vitest';

export const SECURITY_HEADERS = ['x-content-type-options', 'x-frame-options', 'referrer-policy', 'permissions-policy', 'content-security-policy'] as const;

/** `get` reads one response header by lower-case name (fetch's `headers.get`, a raw response's `header`). */
export function expectSecurityHeaders(get: (name: string) => string | null | undefined): void {
  for (const name of SECURITY_HEADERS) expect(get(name), name).toBeTruthy();
  expect(get('x-frame-options')).toBe('DENY');
  expect(get('content-security-policy')).toMatch(/^default-src 'self' https:\/\/\*\.cloudflareaccess\.com; object-src 'none'; frame-ancestors 'none';/);
}
