// The active profile of a request is its `satchel_profile` cookie, else the default profile (spec-notes 2).
import type { IncomingMessage } from 'node:http';
import { DEFAULT_PROFILE, isValidProfileName } from '../store/profiles.js';
import { parseCookies } from './access.js';

export const PROFILE_COOKIE = 'satchel_profile';

/** An invalid cookie value falls back to the default profile rather than failing the request. */
export function activeProfile(req: IncomingMessage): string {
  // Most requests (every client but the browser) carry no cookie at all: nothing to parse.
  if (!req.headers.cookie) return DEFAULT_PROFILE;
  const value = parseCookies(req.headers.cookie).get(PROFILE_COOKIE);
  return isValidProfileName(value) ? value : DEFAULT_PROFILE;
}

export function profileCookie(name: string): string {
  return `${PROFILE_COOKIE}=${name}; Path=/; SameSite=Strict`;
}
