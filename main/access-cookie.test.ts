import { describe, expect, it } from 'vitest';
import { ACCESS_COOKIE } from '../server/http/access.js';
import { ACCESS_COOKIE_NAME, accessCookieDetails, appRootUrl } from './access-cookie.js';

const ORIGIN = 'http://127.0.0.1:41234';

describe('accessCookieDetails', () => {
  it('is the satchel_access cookie, HttpOnly, SameSite=Strict, path /, for the app root', () => {
    expect(accessCookieDetails(ORIGIN, 'tok_abc-123')).toEqual({
      url: 'http://127.0.0.1:41234/',
      name: 'satchel_access',
      value: 'tok_abc-123',
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      secure: false,
    });
    expect(ACCESS_COOKIE_NAME).toBe('satchel_access');
    // The server reads the same name from requests: the two must never drift apart.
    expect(ACCESS_COOKIE_NAME).toBe(ACCESS_COOKIE);
  });
  it('is a session cookie (no expiry), like the per-launch token', () => {
    expect(accessCookieDetails(ORIGIN, 't')).not.toHaveProperty('expirationDate');
  });
  it('refuses non-loopback or non-origin URLs', () => {
    for (const origin of ['http://localhost:41234', 'https://127.0.0.1:41234', 'http://10.0.0.2:41234', `${ORIGIN}/x`]) {
      expect(() => accessCookieDetails(origin, 't'), origin).toThrow(/non-loopback origin/);
    }
  });
  it('refuses a token that is not a valid cookie value', () => {
    for (const token of ['', 'a b', 'a;b', 'a,b', 'a"b', 'a\\b', 'é']) {
      expect(() => accessCookieDetails(ORIGIN, token), JSON.stringify(token)).toThrow(
        'The access token is not a valid cookie value',
      );
    }
  });
});

describe('appRootUrl', () => {
  it('is the origin plus / and never carries a token', () => {
    expect(appRootUrl(ORIGIN)).toBe('http://127.0.0.1:41234/');
    expect(appRootUrl(ORIGIN)).not.toContain('token');
  });
});
