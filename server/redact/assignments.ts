// Assignments and fields: A4 `NAME=value`, B3's identifier / config-line / JSON / Python-repr / YAML shapes, and
// Azure connection strings (C). Each is found at its operator (`=` or `:`) by looking back at the name.
import { ALNUM_UNDERSCORE, asciiTable, BACKSLASH, DIGIT, RunCache, hasAlphanumeric, inTable, isBlank, isLineBreak, isLineStartAt, runStart } from './chars.js';
import type { Finding } from './finding.js';
import { cutsIntoMask, isMask, maskToken } from './mask.js';
import { isEnvLookup, nameCounts, shouldMask, words } from './names.js';
import { closesQuote, isDoubleQuote, isSmartQuote, readValue, skipBlanks, skipBlanksBack, type Value } from './values.js';

/** Structural rules win a span over a bare token found inside it. */
export const ASSIGNMENT_RANK = 10;
/** A4: at most this many name characters after the keyword. */
export const NAME_AFTER_KEYWORD_MAX = 50;

const UPPER_NAME = asciiTable(/[A-Z0-9_]/);
const CONFIG_KEY = asciiTable(/[A-Za-z0-9_.-]/);
const LETTERS = asciiTable(/[A-Za-z]/);
export const A4_KEYWORDS = ['API_KEY', 'APIKEY', 'TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'CREDENTIAL', 'AUTH'];
/** B3: an identifier ending in `_` + one of these (any case). */
export const IDENTIFIER_SUFFIX_WORDS = ['key', 'pass', 'pw', 'token', 'secret', 'password', 'passwd', 'credential', 'auth'];
const IDENTIFIER_SUFFIX = new RegExp(`_(?:${IDENTIFIER_SUFFIX_WORDS.join('|')})$`, 'i');
const AUTHORIZATION_SUFFIX = /authorization$/i;
export const AZURE_NAMES = new Set(['accountkey', 'sharedaccesskey', 'sharedaccesssignature']);
const EQUALS = 0x3d;
const NOT_ASSIGNMENT_BEFORE = new Set([0x3d, 0x21, 0x3c, 0x3e]); // == != <= >=

function push(out: Finding[], source: string, start: number, end: number, text: string | (() => string), rule: string): void {
  // The rest of a mask an earlier pass made is no value: redacting twice changes nothing.
  if (cutsIntoMask(source, start, end)) return;
  // resolve() drops a finding inside one that starts before it; not keeping it saves a run of hostile assignments
  // (`TOKEN=xTOKEN=x…`, every value inside the first) an object per occurrence, most of its garbage collection.
  const previous = out[out.length - 1];
  if (previous !== undefined && previous.start < start && start < previous.end && end <= previous.end) return;
  out.push({ start, end, text, rule, rank: ASSIGNMENT_RANK });
}

function a4Name(name: string): boolean {
  for (const keyword of A4_KEYWORDS) {
    const at = name.lastIndexOf(keyword);
    if (at !== -1 && name.length - at - keyword.length <= NAME_AFTER_KEYWORD_MAX) return true;
  }
  return false;
}

/** `keyStart` is at the start of a line, after indentation, a line-number gutter (`12|`, `12:`, `12-`, `12⇥`) or `export `. */
export function atLineStart(text: string, keyStart: number): boolean {
  let p = skipBlanksBack(text, keyStart);
  if (p < keyStart && p >= 6 && text.startsWith('export', p - 6) && !inTable(ALNUM_UNDERSCORE, text.charCodeAt(p - 7))) {
    p = skipBlanksBack(text, p - 6);
  }
  let gutter = p;
  const mark = text.charCodeAt(gutter - 1);
  if (mark === 0x7c || mark === 0x3a || mark === 0x2d) gutter--;
  const digits = runStart(text, gutter, DIGIT);
  if (digits < gutter) p = skipBlanksBack(text, digits);
  return isLineStartAt(text, p);
}

function valueText(text: string, value: Value): string {
  return text.slice(value.start, value.end);
}

const azureRuns = new RunCache();
function azureStop(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c === 0x3b || c === 0x22 || c === 0x27 || isBlank(c) || isLineBreak(c);
}

/** Everything found at the `=` at `eq`. */
export function assignmentAt(text: string, eq: number, out: Finding[]): void {
  const next = text.charCodeAt(eq + 1);
  if (next === EQUALS || next === 0x3e || (eq > 0 && NOT_ASSIGNMENT_BEFORE.has(text.charCodeAt(eq - 1)))) return;
  const nameEnd = skipBlanksBack(text, eq);
  if (nameEnd === 0 || isLineBreak(text.charCodeAt(nameEnd - 1))) return;
  const valueFrom = skipBlanks(text, eq + 1);

  // A4: upper-case NAME containing a keyword; blanks around `=` are dropped from the output.
  const upperStart = runStart(text, nameEnd, UPPER_NAME);
  if (upperStart < nameEnd) {
    const name = text.slice(upperStart, nameEnd);
    if (a4Name(name) && !AUTHORIZATION_SUFFIX.test(name)) {
      const value = readValue(text, valueFrom);
      const v = valueText(text, value);
      if (hasAlphanumeric(v) && !isMask(v) && !isEnvLookup(v)) {
        push(out, text, nameEnd, value.end, () => '=' + text.slice(value.open, value.start) + maskToken(v), 'assignment');
        return;
      }
    }
  }

  // Azure connection strings: the value runs to the next `;` or whitespace.
  const letters = runStart(text, nameEnd, LETTERS);
  if (nameEnd === eq && letters < nameEnd && AZURE_NAMES.has(text.slice(letters, nameEnd).toLowerCase())) {
    const before = text.charCodeAt(letters - 1);
    if (letters === 0 || before === 0x3b || isBlank(before) || isLineBreak(before) || before === 0x22 || before === 0x27) {
      const end = azureRuns.run(text, eq + 1, azureStop);
      const v = text.slice(eq + 1, end);
      if (hasAlphanumeric(v) && !isMask(v)) push(out, text, eq + 1, end, () => maskToken(v), 'azure connection string');
      return;
    }
  }

  // B3: an identifier ending in `_key`, `_token`, … (any case).
  const identStart = runStart(text, nameEnd, ALNUM_UNDERSCORE);
  if (identStart < nameEnd) {
    const ident = text.slice(identStart, nameEnd);
    if (IDENTIFIER_SUFFIX.test(ident) && !AUTHORIZATION_SUFFIX.test(ident)) {
      const value = readValue(text, valueFrom, true); // `?api_key=…&page=2`: the value stops at `&`
      const v = valueText(text, value);
      if (shouldMask(words(ident), v, ident)) push(out, text, value.start, value.end, () => maskToken(v), 'credential assignment');
      return;
    }
  }

  // B3: dotted config keys and keys at the start of a line; the value stops at `&`. Satchel also takes such a
  // key anywhere else (`mysql --password=…`, `… secret=…`): the name and value policy of names.ts still apply.
  const keyStart = runStart(text, nameEnd, CONFIG_KEY);
  if (keyStart < nameEnd) {
    const key = text.slice(keyStart, nameEnd);
    // Elsewhere in a line, only `key=value` without blanks: `the secret = 42` is prose.
    const placed = key.includes('.') || atLineStart(text, keyStart) || (nameEnd === eq && valueFrom === eq + 1);
    // A key that is a mask (a vendor token masked on an earlier pass, dotted by its ellipsis) names nothing.
    if (placed && !AUTHORIZATION_SUFFIX.test(key) && !isMask(key)) {
      const ws = words(key);
      if (nameCounts(ws, true)) {
        const value = readValue(text, valueFrom, true);
        const v = valueText(text, value);
        if (shouldMask(ws, v, key)) push(out, text, value.start, value.end, () => maskToken(v), 'config line');
      }
    }
  }
}

export const FIELD_NAMES = new Set([
  'api_key', 'apikey', 'token', 'secret', 'password', 'access_token', 'refresh_token', 'auth_token', 'bearer',
  'secret_value', 'raw_secret', 'secret_input', 'key_material',
]);
export const FIELD_SUFFIXES = new Set(['token', 'secret', 'password', 'passwd', 'credential', 'credentials', 'apikey']);

function fieldNameCounts(name: string, ws: readonly string[]): boolean {
  if (FIELD_NAMES.has(name.toLowerCase())) return true;
  const last = ws[ws.length - 1];
  return (last !== undefined && FIELD_SUFFIXES.has(last)) || (last === 'key' && ws[ws.length - 2] === 'api');
}

/** The quoted key that ends right before `colon` (blanks allowed), or null. Handles `\"key\"` of escaped JSON. */
function quotedKeyBefore(text: string, colon: number): { start: number; end: number; quote: number } | null {
  const close = skipBlanksBack(text, colon) - 1;
  if (close < 1) return null;
  const quote = text.charCodeAt(close);
  if (quote !== 0x22 && quote !== 0x27 && !isSmartQuote(quote)) return null;
  const escaped = text.charCodeAt(close - 1) === BACKSLASH;
  const end = escaped ? close - 1 : close;
  const start = runStart(text, end, CONFIG_KEY);
  const open = text.charCodeAt(start - 1);
  if (start === end || !(open === quote || (isSmartQuote(open) && closesQuote(open, quote)))) return null;
  if (escaped && text.charCodeAt(start - 2) !== BACKSLASH) return null;
  return { start, end, quote };
}

/** B3 JSON fields and Python dict reprs, at the `:` after a quoted key. */
export function fieldAt(text: string, colon: number, out: Finding[]): void {
  const key = quotedKeyBefore(text, colon);
  if (key === null) return;
  const name = text.slice(key.start, key.end);
  const ws = words(name);
  if (!fieldNameCounts(name, ws)) return;
  let from = skipBlanks(text, colon + 1);
  const c = text.charCodeAt(from);
  // Python bytes: b'…' / b"…".
  if (c === 0x62 && (text.charCodeAt(from + 1) === 0x27 || text.charCodeAt(from + 1) === 0x22)) from++;
  const q = text.charCodeAt(from);
  const quoted = q === 0x22 || q === 0x27 || isSmartQuote(q) || (q === BACKSLASH && (text.charCodeAt(from + 1) === 0x22 || text.charCodeAt(from + 1) === 0x27));
  if (!quoted) return;
  const value = readValue(text, from);
  const v = valueText(text, value);
  if (shouldMask(ws, v, name)) push(out, text, value.start, value.end, () => maskToken(v), isDoubleQuote(key.quote) ? 'json field' : 'python repr');
}

/** B3 YAML lines: `key: value` at the start of a line, one unquoted word, then the end of the line or a comment. */
export function yamlAt(text: string, colon: number, out: Finding[]): void {
  const keyStart = runStart(text, colon, CONFIG_KEY);
  if (keyStart === colon || !atLineStart(text, keyStart)) return;
  const ws = words(text.slice(keyStart, colon));
  if (!nameCounts(ws, false)) return;
  const from = skipBlanks(text, colon + 1);
  if (from === colon + 1) return;
  // Quoted values too (Satchel masks more than the original here): `password: "hunter2"` is the same secret.
  const value = readValue(text, from);
  if (value.end === value.start) return;
  let end = value.end;
  if (value.start > from) {
    const quote = text.slice(from, value.start);
    const closed = text.startsWith(quote, value.end) || (quote.length === 1 && closesQuote(quote.charCodeAt(0), text.charCodeAt(value.end)));
    if (!closed) return;
    end += quote.length;
  }
  const after = skipBlanks(text, end);
  if (after < text.length && !isLineBreak(text.charCodeAt(after)) && !(after > end && text.charCodeAt(after) === 0x23)) return;
  const v = valueText(text, value);
  if (shouldMask(ws, v)) push(out, text, value.start, value.end, () => maskToken(v), 'yaml line');
}
