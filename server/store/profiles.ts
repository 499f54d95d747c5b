// Profiles partition sessions: the active profile of a request is its `satchel_profile` cookie, else default.
import type { IncomingMessage } from 'node:http';
import { parseCookies } from '../http/access.js';

export const PROFILE_COOKIE = 'satchel_profile';
export const DEFAULT_PROFILE = 'default';
const PROFILE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export function isValidProfileName(name: unknown): name is string {
  return typeof name === 'string' && (name === DEFAULT_PROFILE || PROFILE_NAME.test(name));
}

/** An invalid cookie value falls back to the default profile rather than failing the request. */
export function activeProfile(req: IncomingMessage): string {
  const value = parseCookies(req.headers.cookie).get(PROFILE_COOKIE);
  return isValidProfileName(value) ? value : DEFAULT_PROFILE;
}

export function profileCookie(name: string): string {
  return `${PROFILE_COOKIE}=${name}; Path=/; SameSite=Strict`;
}

/** Section 2: a session is visible when its profile matches; a non-string profile counts as none (default). */
export function sessionVisible(sessionProfile: unknown, active: string): boolean {
  const owner = typeof sessionProfile === 'string' && sessionProfile !== '' ? sessionProfile : DEFAULT_PROFILE;
  return owner === active;
}
