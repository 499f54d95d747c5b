// The access cookie the main process puts in the window's session before loading the page, so the page URL
// never carries the token. Same name and attributes as the cookie the server sets for GET /?token=.
import type { CookiesSetDetails } from 'electron';

/** Mirrors server/index.ts ACCESS_COOKIE; kept here so this module has no runtime import of the server. */
export const ACCESS_COOKIE_NAME = 'satchel_access';
export const LOOPBACK_HOST = '127.0.0.1';
// RFC 6265 cookie-octet: a token outside it would be mangled or rejected by the cookie store.
const COOKIE_VALUE = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]+$/;

/** The URL the window loads: the app's root, never with a query string. */
export function appRootUrl(origin: string): string {
  return new URL('/', origin).href;
}

export function accessCookieDetails(origin: string, token: string): CookiesSetDetails {
  const url = new URL(origin);
  if (url.protocol !== 'http:' || url.hostname !== LOOPBACK_HOST || url.origin !== origin) {
    throw new Error(`Refusing to set the access cookie for a non-loopback origin: ${origin}`);
  }
  if (!COOKIE_VALUE.test(token)) throw new Error('The access token is not a valid cookie value');
  return {
    url: appRootUrl(origin),
    name: ACCESS_COOKIE_NAME,
    value: token,
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    // Plain http on loopback: a Secure cookie would never be sent back.
    secure: false,
    // No expirationDate: a session cookie, gone with the app, like the per-launch token it holds.
  };
}
