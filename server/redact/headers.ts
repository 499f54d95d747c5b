// Authorization headers (A3, B4, C) and API-key headers (B5), found at their `:` (or `=` for
// `HTTP_AUTHORIZATION=…`) by looking back at the header name.
import { asciiTable, BACKSLASH, boundedLeft, hasAlphanumeric, isBlank, isSpace, RunCache, runStart } from './chars.js';
import type { Finding } from './finding.js';
import { isMask, maskToken } from './mask.js';
import { skipBlanks, skipBlanksBack } from './values.js';

export const HEADER_RANK = 10;
export const AUTHORIZATION = 'authorization';
const HEADER_NAME = asciiTable(/[A-Za-z0-9-]/);
/**
 * A scheme word's characters: HTTP's token characters (RFC 9110 tchar) but quotes. So a scheme word another rule
 * masked on the first pass (`AKIAxx...xxxx`, `***`) is still a scheme word on the second, and redacting twice
 * changes nothing. redact/stream-redact.ts reads the scheme with the same class.
 */
export const SCHEME_CHAR = /[A-Za-z0-9!#$%&*+.^_`|~-]/;
const SCHEME = asciiTable(SCHEME_CHAR);
export const API_KEY_HEADERS = new Set(['x-api-key', 'x-goog-api-key', 'api-key', 'apikey', 'x-api-token', 'x-auth-token', 'x-access-token']);
/** Bearer and Bot tokens also end at `,` `]` `)` (A3); other schemes only at whitespace and quotes (B4). */
const BEARER_SCHEMES = new Set(['bearer', 'bot']);
/** Scheme words that, alone on a line, are no credential: `Authorization: Bearer` with nothing after it. */
const SCHEME_MAX = 16;
const SCHEMES = new Set(['bearer', 'bot', 'basic', 'token', 'digest', 'negotiate', 'ntlm', 'hoba', 'mutual', 'dpop', 'apikey']);

function isQuoteCode(c: number): boolean {
  return c === 0x22 || c === 0x27;
}

/** End of the name before the operator at `op`, past a closing quote (`"Authorization":`, `\"x-api-key\":`). */
function nameEndBefore(text: string, op: number): number {
  let end = skipBlanksBack(text, op);
  if (isQuoteCode(text.charCodeAt(end - 1))) {
    end--;
    if (text.charCodeAt(end - 1) === BACKSLASH) end--;
  }
  return end;
}

/** Start of the value after the operator at `op`, past blanks and an opening quote. */
function valueStartAfter(text: string, op: number): number {
  let from = skipBlanks(text, op + 1);
  if (isQuoteCode(text.charCodeAt(from))) from++;
  else if (text.charCodeAt(from) === BACKSLASH && isQuoteCode(text.charCodeAt(from + 1))) from += 2;
  return from;
}

function credentialStop(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return isSpace(c) || isQuoteCode(c) || (c === BACKSLASH && isQuoteCode(text.charCodeAt(i + 1)));
}
function bearerStop(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c === 0x2c || c === 0x5d || c === 0x29 || credentialStop(text, i);
}
const credentialRuns = new RunCache();
const bearerRuns = new RunCache();

function credentialEnd(text: string, from: number, bearer: boolean): number {
  return bearer ? bearerRuns.run(text, from, bearerStop) : credentialRuns.run(text, from, credentialStop);
}

function pushCredential(out: Finding[], text: string, start: number, end: number, rule: string): void {
  const credential = text.slice(start, end);
  if (end === start || !hasAlphanumeric(credential) || isMask(credential)) return;
  out.push({ start, end, text: () => maskToken(credential), rule, rank: HEADER_RANK });
}

/** `Authorization` (any case, anywhere) + `:` or `=`, an optional scheme word, then the credential. */
export function authorizationAt(text: string, op: number, out: Finding[]): void {
  const nameEnd = nameEndBefore(text, op);
  const nameStart = nameEnd - AUTHORIZATION.length;
  if (nameStart < 0 || text.slice(nameStart, nameEnd).toLowerCase() !== AUTHORIZATION) return;
  const from = valueStartAfter(text, op);
  const wordEnd = runStartForward(text, from);
  let credentialStart = from;
  let scheme = '';
  // A first word that is a mask is the credential, masked already (a second pass over `Authorization=***`).
  if (wordEnd > from && isMask(text.slice(from, wordEnd))) return;
  if (wordEnd > from && isBlank(text.charCodeAt(wordEnd))) {
    const after = skipBlanks(text, wordEnd);
    const c = text.charCodeAt(after);
    if (after < text.length && !isSpace(c) && !isQuoteCode(c)) {
      scheme = text.slice(from, wordEnd).toLowerCase();
      credentialStart = after;
    }
  }
  const end = credentialEnd(text, credentialStart, BEARER_SCHEMES.has(scheme));
  // `Authorization: Bearer` and nothing after it on the line: no credential to mask.
  if (scheme === '' && end - credentialStart <= SCHEME_MAX && SCHEMES.has(text.slice(credentialStart, end).toLowerCase())) return;
  pushCredential(out, text, credentialStart, end, 'authorization header');
}

function runStartForward(text: string, from: number): number {
  let i = from;
  while (i < text.length && text.charCodeAt(i) < 128 && SCHEME[text.charCodeAt(i)] === 1) i++;
  return i;
}

/** B5: `x-api-key: value` and the other API-key headers (any case), at the `:`. */
export function apiKeyHeaderAt(text: string, colon: number, out: Finding[]): void {
  const nameEnd = nameEndBefore(text, colon);
  const nameStart = runStart(text, nameEnd, HEADER_NAME);
  if (nameStart === nameEnd || !boundedLeft(text, nameStart)) return;
  if (!API_KEY_HEADERS.has(text.slice(nameStart, nameEnd).toLowerCase())) return;
  const from = valueStartAfter(text, colon);
  pushCredential(out, text, from, credentialEnd(text, from, false), 'api key header');
}
