// Reading the value after a name and its operator, shared by the assignment, header and field rules.
import { BACKSLASH, isBlank, isLineBreak, isSpace, RunCache } from './chars.js';

export interface Value {
  /** The value itself (inside any quotes). */
  start: number;
  end: number;
  /** Where the value's opening quote (or `\"` of escaped JSON) starts; equals `start` when unquoted. */
  open: number;
}

const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const BACKTICK = 0x60;

// Typographic quotes. A word processor turns a typed `"` into “ or ” (” after a non-space, so `KEY="x"` becomes
// `KEY=”x”`) and `'` into ‘ or ’; a key pasted into Word, Excel or PowerPoint is quoted with these, and the rules
// read them as the quotes they stand for (issue 33): the value inside is masked, the quotes kept.
const LEFT_DOUBLE = 0x201c;
const RIGHT_DOUBLE = 0x201d;
const LEFT_SINGLE = 0x2018;
const RIGHT_SINGLE = 0x2019;

export function isSmartQuote(c: number): boolean {
  return c === LEFT_DOUBLE || c === RIGHT_DOUBLE || c === LEFT_SINGLE || c === RIGHT_SINGLE;
}

export function isQuote(c: number): boolean {
  return c === DOUBLE_QUOTE || c === SINGLE_QUOTE || c === BACKTICK || isSmartQuote(c);
}

/** A straight or typographic double quote (the JSON field rule's quotes). */
export function isDoubleQuote(c: number): boolean {
  return c === DOUBLE_QUOTE || c === LEFT_DOUBLE || c === RIGHT_DOUBLE;
}

/** True when `c` closes a quote opened with `open`: the same character, or either of a typographic pair. */
export function closesQuote(open: number, c: number): boolean {
  if (open === LEFT_DOUBLE || open === RIGHT_DOUBLE) return c === RIGHT_DOUBLE || c === LEFT_DOUBLE;
  if (open === LEFT_SINGLE || open === RIGHT_SINGLE) return c === RIGHT_SINGLE || c === LEFT_SINGLE;
  return c === open;
}

/** Escapes that end an unquoted value: it sits inside an escaped JSON string (`…TOKEN=abc\n…`, `…=abc\"}`). */
const ESCAPE_STOPS = new Set(['n', 'r', 't', '"', "'", '\\', '/', 'u']);
/** Structural characters that end an unquoted value when nothing but more of them follows up to the value's end. */
const CLOSERS = new Set([0x2c, 0x3b, 0x7d, 0x5d, 0x29]); // , ; } ] )

export function skipBlanks(text: string, from: number): number {
  let i = from;
  while (i < text.length && isBlank(text.charCodeAt(i))) i++;
  return i;
}

export function skipBlanksBack(text: string, to: number): number {
  let i = to;
  while (i > 0 && isBlank(text.charCodeAt(i - 1))) i--;
  return i;
}

/** The closing quote of the quote at `open` on the same line (backslash escapes honoured), or -1. */
export function closingQuote(text: string, open: number, quote = text.charCodeAt(open)): number {
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (closesQuote(quote, c)) return i;
    if (isLineBreak(c)) return -1;
    if (c === BACKSLASH) {
      if (isLineBreak(text.charCodeAt(i + 1))) return -1;
      i++;
    }
  }
  return -1;
}

/** `\"…\"` of escaped JSON starting at `open` (the backslash): the index of the closing backslash, or -1. */
function closingEscapedQuote(text: string, open: number): number {
  const quote = text.charCodeAt(open + 1);
  for (let i = open + 2; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (isLineBreak(c)) return -1;
    if (c === BACKSLASH) {
      if (text.charCodeAt(i + 1) === quote) return i;
      i++;
    }
  }
  return -1;
}

/**
 * The unquoted value from `from`: a run of non-whitespace that stops at a quote, at an escape of escaped JSON,
 * at `&` when `stopAtAmpersand`, and before trailing `,` `;` `}` `]` `)` that belong to the surrounding code.
 */
function valueStop(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return isSpace(c) || isQuote(c) || (c === BACKSLASH && ESCAPE_STOPS.has(text[i + 1] ?? ''));
}
const valueRuns = new RunCache();
const valueRunsAmpersand = new RunCache();

export function unquotedEnd(text: string, from: number, stopAtAmpersand = false): number {
  let end = stopAtAmpersand
    ? valueRunsAmpersand.run(text, from, (t, i) => t.charCodeAt(i) === 0x26 || valueStop(t, i))
    : valueRuns.run(text, from, valueStop);
  while (end > from && CLOSERS.has(text.charCodeAt(end - 1))) end--;
  return end;
}

/** The value starting at `from` (after the operator and blanks): quoted, escaped-quoted or a bare run. */
export function readValue(text: string, from: number, stopAtAmpersand = false): Value {
  const c = text.charCodeAt(from);
  if (isQuote(c)) {
    const close = closingQuote(text, from);
    if (close !== -1) return { open: from, start: from + 1, end: close };
    // An unclosed quote: what follows the stray quote is still the value.
    return { open: from, start: from + 1, end: unquotedEnd(text, from + 1, stopAtAmpersand) };
  }
  if (c === BACKSLASH && (text.charCodeAt(from + 1) === DOUBLE_QUOTE || text.charCodeAt(from + 1) === SINGLE_QUOTE)) {
    const close = closingEscapedQuote(text, from);
    if (close !== -1) return { open: from, start: from + 2, end: close };
    return { open: from, start: from + 2, end: unquotedEnd(text, from + 2, stopAtAmpersand) };
  }
  return { open: from, start: from, end: unquotedEnd(text, from, stopAtAmpersand) };
}
