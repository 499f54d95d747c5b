// Access control for a server every local process and every visited web page can reach (README.md
// "Security model"): a loopback Host (stops DNS rebinding), same-origin state changes (stops CSRF) and an access token
// on the API (stops other local users' pages and processes).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const ACCESS_COOKIE = 'satchel_access';
export const TOKEN_BYTES = 32;
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** The host name of a Host header without its port, lower-cased; undefined when malformed. */
export function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::\d{1,5})?$/i.exec(header.trim());
  return match ? match[1]!.toLowerCase() : undefined;
}

/** Loopback names always; the bound host's own name when the operator chose to bind another interface. */
export function isAllowedHost(header: string | undefined, boundHost: string): boolean {
  const name = hostName(header);
  if (name === undefined) return false;
  if (LOOPBACK_NAMES.has(name)) return true;
  const bound = boundHost.includes(':') && !boundHost.startsWith('[') ? `[${boundHost}]` : boundHost;
  return !LOOPBACK_NAMES.has(bound.toLowerCase()) && name === bound.toLowerCase() && bound !== '0.0.0.0' && bound !== '[::]';
}

/**
 * A state-changing request may come from our own pages or from non-browser clients (no Origin), never from
 * another site. Sec-Fetch-Site catches browsers that omit Origin.
 */
export function isSameOriginWrite(req: IncomingMessage): boolean {
  if (SAFE_METHODS.has(req.method ?? 'GET')) return true;
  const origin = req.headers.origin;
  if (origin !== undefined) return origin === `http://${req.headers.host ?? ''}`;
  const site = req.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!cookies.has(name)) cookies.set(name, part.slice(eq + 1).trim());
  }
  return cookies;
}

/** Expected tokens (the launch token, the MCP token) kept as bytes: a regenerated one adds one more. */
export const MAX_REMEMBERED_TOKENS = 8;

interface Expected {
  bytes: Buffer;
  /** Every byte of `bytes` flipped: what a guess of another length is compared with, so that comparison says no. */
  flipped: Buffer;
  /** Where the guess is copied for the comparison (one per token; a comparison never waits, so none is shared). */
  scratch: Buffer;
}
const expectedTokens = new Map<string, Expected>();

/** The server's own tokens are the same on every request: their bytes are made once, not per request. */
function expectedOf(token: string): Expected {
  let expected = expectedTokens.get(token);
  if (!expected) {
    if (expectedTokens.size >= MAX_REMEMBERED_TOKENS) expectedTokens.clear();
    const bytes = Buffer.from(token, 'utf8');
    const flipped = Buffer.from(bytes.map((b) => b ^ 0xff));
    expected = { bytes, flipped, scratch: Buffer.alloc(bytes.length) };
    expectedTokens.set(token, expected);
  }
  return expected;
}

/**
 * Constant-time comparison without hashing: the guess's bytes are copied into a buffer as long as the real token
 * and compared with timingSafeEqual; a guess of another length is replaced by the token's flipped bytes, so the
 * same comparison runs and says no. The time depends on the token's length only (fixed: TOKEN_BYTES, or the
 * operator's), never on how much of a guess is right. Hashing both sides per request did the same at several
 * times the cost.
 */
export function tokensEqual(given: string, token: string): boolean {
  const { bytes, flipped, scratch } = expectedOf(token);
  const sameLength = Buffer.byteLength(given, 'utf8') === bytes.length;
  if (sameLength) scratch.write(given, 'utf8');
  else flipped.copy(scratch);
  return timingSafeEqual(scratch, bytes) && sameLength;
}

export function requestToken(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  if (auth) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (match) return match[1];
  }
  return parseCookies(req.headers.cookie).get(ACCESS_COOKIE);
}

export function hasValidToken(req: IncomingMessage, token: string): boolean {
  const given = requestToken(req);
  return given !== undefined && tokensEqual(given, token);
}

export function accessCookie(token: string): string {
  return `${ACCESS_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}
