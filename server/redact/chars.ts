// Character classes shared by the rules. The hot loops test charCodeAt against ASCII tables instead of running a
// regex per character.

export function asciiTable(pattern: RegExp): Uint8Array {
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) table[c] = pattern.test(String.fromCharCode(c)) ? 1 : 0;
  return table;
}

export const ALNUM = asciiTable(/[A-Za-z0-9]/);
export const DIGIT = asciiTable(/[0-9]/);
export const LOWER_HEX = asciiTable(/[0-9a-f]/);
export const UPPER_ALNUM = asciiTable(/[A-Z0-9]/);
export const ALNUM_UNDERSCORE = asciiTable(/[A-Za-z0-9_]/);
export const ALNUM_DASH = asciiTable(/[A-Za-z0-9-]/);
export const BASE64URL = asciiTable(/[A-Za-z0-9_-]/);
export const BASE64URL_DOT = asciiTable(/[A-Za-z0-9_.-]/);
export const BASE64URL_EQUALS = asciiTable(/[A-Za-z0-9_=-]/);
/** The token boundary class of redaction.md: a token is not preceded or followed by one of these. */
export const BOUNDARY = BASE64URL;

export function inTable(table: Uint8Array, c: number): boolean {
  return c < 128 && table[c] === 1;
}

// Whitespace is Python's `\s` (redaction.md, "Whitespace"), not JavaScript's: U+001C–001F and U+0085 are
// whitespace, U+FEFF is not (it is part of a token).
export const PY_SPACE_SOURCE = '\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
export const PY_SPACE = new RegExp(`[${PY_SPACE_SOURCE}]`);
const SPACE_ASCII = asciiTable(PY_SPACE);

export function isSpace(c: number): boolean {
  if (c < 128) return SPACE_ASCII[c] === 1;
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/** Line breaks as Python's str.splitlines sees them: no rule's blanks cross one (only a private-key block does). */
export function isLineBreak(c: number): boolean {
  return (c >= 0x0a && c <= 0x0d) || (c >= 0x1c && c <= 0x1e) || c === 0x85 || c === 0x2028 || c === 0x2029;
}

/** Whitespace within a line. */
export function isBlank(c: number): boolean {
  return isSpace(c) && !isLineBreak(c);
}

const ALPHANUMERIC = /[\p{L}\p{N}]/u;
/** Unicode-aware, like Python's str.isalnum on some character: a value without one is never masked. */
export function hasAlphanumeric(value: string): boolean {
  return ALPHANUMERIC.test(value);
}

export const BACKSLASH = 0x5c;
const JSON_ESCAPE_LETTERS = asciiTable(/[nrtbfv0]/);
const HEX = asciiTable(/[0-9A-Fa-f]/);

/** True when the backslash at `at` starts an escape (an even number of backslashes precede it). */
function isEscapeBackslash(text: string, at: number): boolean {
  if (at < 0 || text.charCodeAt(at) !== BACKSLASH) return false;
  let run = 0;
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) === BACKSLASH; i--) run++;
  return run % 2 === 0;
}

function hexRun(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!inTable(HEX, text.charCodeAt(i))) return false;
  return true;
}

/** `at` directly follows a backslash escape of escaped JSON (`\n`, `\t`, `\uXXXX`, `\xHH`). */
export function afterEscape(text: string, at: number): boolean {
  if (at >= 2 && inTable(JSON_ESCAPE_LETTERS, text.charCodeAt(at - 1)) && isEscapeBackslash(text, at - 2)) return true;
  if (at >= 6 && text.charCodeAt(at - 5) === 0x75 && hexRun(text, at - 4, at) && isEscapeBackslash(text, at - 6)) return true;
  if (at >= 4 && text.charCodeAt(at - 3) === 0x78 && hexRun(text, at - 2, at) && isEscapeBackslash(text, at - 4)) return true;
  return false;
}

/** Token boundary on the left of `at` (redaction.md, "Token boundary"), with the escaped-JSON exception. */
export function boundedLeft(text: string, at: number): boolean {
  return at === 0 || !inTable(BOUNDARY, text.charCodeAt(at - 1)) || afterEscape(text, at);
}

/** Token boundary on the right of a token ending at `end` (exclusive). */
export function boundedRight(text: string, end: number): boolean {
  return end >= text.length || !inTable(BOUNDARY, text.charCodeAt(end));
}

/** End of the run of `table` characters starting at `from`. */
export function runEnd(text: string, from: number, table: Uint8Array, limit = text.length): number {
  let i = from;
  while (i < limit && inTable(table, text.charCodeAt(i))) i++;
  return i;
}

/** Start of the run of `table` characters ending at `to` (exclusive), looking back at most `max`. */
export function runStart(text: string, to: number, table: Uint8Array, max = to): number {
  let i = to;
  const stop = Math.max(0, to - max);
  while (i > stop && inTable(table, text.charCodeAt(i - 1))) i--;
  return i;
}

export function isLineStartAt(text: string, at: number): boolean {
  return at === 0 || isLineBreak(text.charCodeAt(at - 1));
}

/**
 * A forward scan whose stop test depends only on the text at each position: every scan that starts inside an
 * earlier scan's run ends where that one ended. Remembering the last run keeps hostile inputs (`TOKEN=x` repeated
 * without a space: a value scan from every `=`) linear. The engine resets every cache before each text.
 */
export class RunCache {
  private from = -1;
  private end = -1;
  private static all: RunCache[] = [];

  constructor() {
    RunCache.all.push(this);
  }

  static resetAll(): void {
    for (const cache of RunCache.all) cache.reset();
  }

  /** Forget the run: the next text is another one. */
  reset(): void {
    this.from = this.end = -1;
  }

  run(text: string, from: number, stop: (text: string, i: number) => boolean): number {
    if (from >= this.from && from <= this.end && this.from !== -1) return this.end;
    let i = from;
    while (i < text.length && !stop(text, i)) i++;
    this.from = from;
    this.end = i;
    return i;
  }
}
