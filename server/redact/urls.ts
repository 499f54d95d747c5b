// URLs (B7 and C: database URLs, any URL's `user:password@`, a bare token as userinfo, Slack webhooks) found at
// their `://`, and form bodies (B9).
import { ALNUM, asciiTable, hasAlphanumeric, inTable, isLineBreak, isSpace, RunCache, runEnd, runStart } from './chars.js';
import type { Finding } from './finding.js';
import { isMask, maskToken, SHORT_MASK } from './mask.js';

export const URL_RANK = 10;
/** B7: a bare userinfo token of at least this many characters is masked. */
export const URL_TOKEN_MIN = 8;
const SCHEME = asciiTable(/[A-Za-z0-9+.-]/);
const DATABASE_SCHEMES = new Set(['postgres', 'postgresql', 'mysql', 'mongodb', 'mongodb+srv', 'redis', 'amqp']);
const TOKEN_SCHEMES = new Set(['http', 'https', 'ws', 'wss', 'git', 'ssh', 'ftp', 'ftps', 'sftp']);
const SLACK_HOOKS = 'hooks.slack.com/services/';
const AT = 0x40;
const COLON = 0x3a;

function push(out: Finding[], start: number, end: number, text: string | (() => string), rule: string): void {
  out.push({ start, end, text, rule, rank: URL_RANK });
}

/** Where userinfo could end: the authority ends at `/`, `?`, `#`, whitespace, a quote or angle bracket. */
function authorityStop(c: number): boolean {
  return c === 0x2f || c === 0x3f || c === 0x23 || c === 0x22 || c === 0x27 || c === 0x3c || c === 0x3e || isSpace(c);
}

const passwordStop = (text: string, i: number) => text.charCodeAt(i) === AT || isSpace(text.charCodeAt(i));
const userinfoStop = (text: string, i: number) => text.charCodeAt(i) === AT || authorityStop(text.charCodeAt(i));
const passwordRuns = new RunCache();
const userinfoRuns = new RunCache();

/** At the `:` of `://`. */
export function urlAt(text: string, colon: number, out: Finding[]): void {
  if (text.charCodeAt(colon + 1) !== 0x2f || text.charCodeAt(colon + 2) !== 0x2f) return;
  let schemeStart = runStart(text, colon, SCHEME);
  while (schemeStart < colon && !inTable(ALNUM, text.charCodeAt(schemeStart))) schemeStart++;
  if (schemeStart === colon) return;
  const scheme = text.slice(schemeStart, colon).toLowerCase();
  const from = colon + 3;

  if (scheme === 'https' && text.startsWith(SLACK_HOOKS, from)) {
    let segment = from + SLACK_HOOKS.length;
    for (let i = 0; i < 2; i++) {
      const end = runEnd(text, segment, ALNUM);
      if (end === segment || text.charCodeAt(end) !== 0x2f) return;
      segment = end + 1;
    }
    // The last segment runs to the end of the path (not only its letters: a mask of it has dots).
    let end = segment;
    while (end < text.length && !authorityStop(text.charCodeAt(end))) end++;
    const secret = text.slice(segment, end);
    if (hasAlphanumeric(secret) && !isMask(secret)) push(out, segment, end, () => maskToken(secret), 'slack webhook');
    return;
  }

  if (DATABASE_SCHEMES.has(scheme)) {
    // `user:` + a password without `@` or whitespace + `@`; the password may hold `/`, `:` or `#`.
    let userEnd = from;
    while (userEnd < text.length) {
      const c = text.charCodeAt(userEnd);
      if (c === COLON || c === AT || c === 0x2f || isSpace(c)) break;
      userEnd++;
    }
    if (userEnd > from && text.charCodeAt(userEnd) === COLON) {
      const end = passwordRuns.run(text, userEnd + 1, passwordStop);
      const password = text.slice(userEnd + 1, end);
      if (text.charCodeAt(end) === AT && hasAlphanumeric(password)) push(out, userEnd + 1, end, SHORT_MASK, 'database url');
      return;
    }
  }

  const at = userinfoRuns.run(text, from, userinfoStop);
  if (text.charCodeAt(at) !== AT || at === from) return;
  const colonInUser = text.indexOf(':', from);
  if (colonInUser !== -1 && colonInUser < at) {
    const password = text.slice(colonInUser + 1, at);
    if (hasAlphanumeric(password)) push(out, colonInUser + 1, at, SHORT_MASK, 'url password');
    return;
  }
  const token = text.slice(from, at);
  if (TOKEN_SCHEMES.has(scheme) && [...token].length >= URL_TOKEN_MIN && hasAlphanumeric(token) && !isMask(token)) {
    push(out, from, at, () => maskToken(token), 'url token');
  }
}

export const FORM_NAMES = new Set([
  'access_token', 'refresh_token', 'id_token', 'token', 'api_key', 'apikey', 'client_secret', 'password', 'auth',
  'jwt', 'session', 'secret', 'key', 'code', 'signature', 'x-amz-signature', 'x-goog-signature', 'sig',
]);
/** B9 says these values become `***`: it wins a span it shares with a config-line value (one mask, and stable). */
const FORM_RANK = URL_RANK - 5;
const FORM_LINE = /^[A-Za-z0-9_.%[\]-]+=[^&\s]*(?:&[A-Za-z0-9_.%[\]-]+=[^&\s]*)+$/;

/**
 * B9: a line that is wholly `k=v&k=v…`: the values of credential names become SHORT_MASK. The original applies
 * this to a whole one-line string; Satchel applies it to every line, so a multi-line text gets the same result as
 * its lines one by one (that is what lets `npm run redact` stream).
 */
export function scanForms(text: string, out: Finding[]): void {
  let amp = text.indexOf('&');
  while (amp !== -1) {
    let lineStart = amp;
    while (lineStart > 0 && !isLineBreak(text.charCodeAt(lineStart - 1))) lineStart--;
    let lineEnd = amp;
    while (lineEnd < text.length && !isLineBreak(text.charCodeAt(lineEnd))) lineEnd++;
    const line = text.slice(lineStart, lineEnd);
    if (FORM_LINE.test(line)) {
      let pos = lineStart;
      for (const pair of line.split('&')) {
        const eq = pair.indexOf('=');
        const value = pair.slice(eq + 1);
        if (FORM_NAMES.has(pair.slice(0, eq).toLowerCase()) && hasAlphanumeric(value) && !isMask(value)) {
          out.push({ start: pos + eq + 1, end: pos + pair.length, text: SHORT_MASK, rule: 'form body', rank: FORM_RANK });
        }
        pos += pair.length + 1;
      }
    }
    amp = text.indexOf('&', lineEnd);
  }
}
