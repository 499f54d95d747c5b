// Inline Markdown (code spans, emphasis, links, backslash escapes) in time linear in the line's length.
// Emphasis follows CommonMark's delimiter-stack algorithm ("process emphasis", with the rule of 3 and the
// openers-bottom table): every `*`/`_` run is pushed once, each search for an opener starts above the lowest
// place a previous search for the same kind already failed, and matched content moves as one linked segment.
// The earlier parser scanned to the end of the line for every unmatched `*`, which took 16 s on a 60 KB line.
// Code spans find their closing run through a per-length position list, links through next-character tables,
// so no character is scanned more than a constant number of times. Previews allow 1 MiB of hostile text.
// Math (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`) is read in the page's mode only (parseInline), its closers found
// through per-kind position lists (markdown-math.ts) the same way. This file reads the line; the scanners for
// code spans and links are markdown-spans.ts's, the emphasis algorithm and the tree it builds markdown-emphasis.ts's.

import { cell, MAX_DEPTH, processEmphasis, toInlines, type Cell, type Delimiter } from './markdown-emphasis.js';
import { mathScanner } from './markdown-math.js';
import { backtickRuns, codeText, linkScanner } from './markdown-spans.js';

export { MAX_DEPTH };

export type Inline =
  | { type: 'text'; text: string }
  | { type: 'code'; text: string }
  | { type: 'strong'; children: Inline[] }
  | { type: 'em'; children: Inline[] }
  | { type: 'link'; href: string; children: Inline[] }
  | { type: 'math'; tex: string; display: boolean }
  | { type: 'br' };

/** Counts the parser's elementary steps; tests bound it by the input's length instead of timing it. */
export interface WorkMeter {
  steps: number;
}

const ESCAPABLE = '\\`*_{}[]()#+-.!|<>~"\'$';
const WHITESPACE = /\s/;
const PUNCTUATION = /[\p{P}\p{S}]/u;

/** Only these link targets become clickable; anything else (javascript:, data:, file:) stays text. */
export function safeHref(href: string): string | null {
  const trimmed = href.trim();
  return /^(https?:|mailto:)/i.test(trimmed) ? trimmed : null;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const DIGIT = /\p{N}/u;

/**
 * A run of stars the redactor wrote (server/redact/mask.ts): `***` for a short secret, which stands where a whole
 * token stood, so nothing beside it is a letter or digit (`"password": "***"`, `Bearer ***`); `****` inside a
 * phone number's digits. Read as emphasis delimiters, two masks on a line turned the text between them italic
 * and hid the stars, so a mask shows as it is. Three stars next to a word (`***bold***`) are still emphasis.
 */
export function isMaskRun(length: number, before: string, after: string): boolean {
  if (length === 3) return !LETTER_OR_DIGIT.test(before) && !LETTER_OR_DIGIT.test(after);
  if (length === 4) return DIGIT.test(before) && DIGIT.test(after);
  return false;
}

function isSpecial(c: string): boolean {
  return c === '\\' || c === '`' || c === '*' || c === '_' || c === '[' || c === '$';
}

/** How a line is read: the page shows masks as they are and reads math; CommonMark (for the tests) does neither. */
interface Mode {
  literalMasks: boolean;
  math: boolean;
}
const PAGE: Mode = { literalMasks: true, math: true };
const COMMONMARK: Mode = { literalMasks: false, math: false };

/** A line as the page shows it: CommonMark, except that the redactor's masks show as they are (isMaskRun). */
export function parseInline(src: string, depth = 0, meter: WorkMeter = { steps: 0 }): Inline[] {
  return parse(src, depth, meter, PAGE);
}

/** A line read exactly as CommonMark (and markdown-it) reads it, masks included: what the tests compare. */
export function parseCommonMark(src: string, depth = 0, meter: WorkMeter = { steps: 0 }): Inline[] {
  return parse(src, depth, meter, COMMONMARK);
}

function parse(src: string, depth: number, meter: WorkMeter, mode: Mode): Inline[] {
  const n = src.length;
  // An empty first cell, so unlinking a used-up delimiter run never has to move the list's head.
  const head = cell('text');
  let tail = head;
  let top: Delimiter | null = null;
  let text = '';
  const append = (c: Cell) => {
    c.prev = tail;
    tail.next = c;
    tail = c;
  };
  const flush = () => {
    if (text) append(cell('text', { text }));
    text = '';
  };
  const codeCloser = backtickRuns(src, meter);
  const links = linkScanner(src, meter);
  const math = mathScanner(src, meter);
  const mathAt = (at: number): boolean => {
    const found = mode.math ? math(at) : null;
    if (!found) return false;
    flush();
    append(cell('atom', { nodes: [{ type: 'math', tex: found.tex, display: found.display }] }));
    i = found.end;
    return true;
  };

  let i = 0;
  while (i < n) {
    meter.steps++;
    const c = src[i] ?? '';
    if (!isSpecial(c)) {
      let j = i + 1;
      while (j < n && !isSpecial(src[j] ?? '')) j++;
      meter.steps += j - i;
      text += src.slice(i, j);
      i = j;
      continue;
    }
    if (c === '\\') {
      if (mathAt(i)) continue;
      const next = src[i + 1] ?? '';
      text += i + 1 < n && ESCAPABLE.includes(next) ? next : c;
      i += i + 1 < n && ESCAPABLE.includes(next) ? 2 : 1;
      continue;
    }
    if (c === '`') {
      let j = i;
      while (src[j] === '`') j++;
      meter.steps += j - i;
      const close = codeCloser(j, j - i);
      if (close === -1) {
        text += src.slice(i, j);
        i = j;
        continue;
      }
      flush();
      append(cell('atom', { nodes: [{ type: 'code', text: codeText(src.slice(j, close)) }] }));
      i = close + (j - i);
      continue;
    }
    if (c === '*' || c === '_') {
      let j = i;
      while (src[j] === c) j++;
      meter.steps += j - i;
      const before = i > 0 ? src[i - 1] ?? ' ' : ' ';
      const after = j < n ? src[j] ?? ' ' : ' ';
      if (mode.literalMasks && c === '*' && isMaskRun(j - i, before, after)) {
        text += src.slice(i, j);
        i = j;
        continue;
      }
      const wsBefore = WHITESPACE.test(before);
      const wsAfter = WHITESPACE.test(after);
      const punctBefore = PUNCTUATION.test(before);
      const punctAfter = PUNCTUATION.test(after);
      const left = !wsAfter && (!punctAfter || wsBefore || punctBefore);
      const right = !wsBefore && (!punctBefore || wsAfter || punctAfter);
      // `_` inside a word (snake_case) neither opens nor closes.
      const canOpen = c === '*' ? left : left && (!right || punctBefore);
      const canClose = c === '*' ? right : right && (!left || punctAfter);
      flush();
      const run = cell('delim', { char: c, count: j - i });
      append(run);
      if (canOpen || canClose) {
        const d: Delimiter = { cell: run, char: c, orig: j - i, canOpen, canClose, prev: top, next: null };
        if (top) top.next = d;
        top = d;
      }
      i = j;
      continue;
    }
    if (c === '$') {
      if (mathAt(i)) continue;
      // Not math: the whole run of dollars is text, so `$$` never reopens as `$` one character later.
      let j = i;
      while (src[j] === '$') j++;
      meter.steps += j - i;
      text += src.slice(i, j);
      i = j;
      continue;
    }
    if (c === '[' && depth < MAX_DEPTH) {
      const link = links(i);
      if (link) {
        flush();
        const children = parse(link.label, depth + 1, meter, mode);
        const href = safeHref(link.href);
        append(cell(href ? 'atom' : 'inlines', { nodes: href ? [{ type: 'link', href, children }] : children }));
        i = link.end;
        continue;
      }
    }
    text += c;
    i++;
  }
  flush();
  processEmphasis(top, meter);
  return toInlines(head, depth, meter);
}

/** Plain text of inline nodes (for titles and tests). */
export function inlineText(nodes: Inline[]): string {
  return nodes
    .map((n) => (n.type === 'text' || n.type === 'code' ? n.text : n.type === 'math' ? n.tex : n.type === 'br' ? '\n' : inlineText(n.children)))
    .join('');
}
