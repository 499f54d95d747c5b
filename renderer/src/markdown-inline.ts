// Inline Markdown (code spans, emphasis, links, backslash escapes) in time linear in the line's length.
// Emphasis follows CommonMark's delimiter-stack algorithm ("process emphasis", with the rule of 3 and the
// openers-bottom table): every `*`/`_` run is pushed once, each search for an opener starts above the lowest
// place a previous search for the same kind already failed, and matched content moves as one linked segment.
// The earlier parser scanned to the end of the line for every unmatched `*`, which took 16 s on a 60 KB line.
// Code spans find their closing run through a per-length position list, links through next-character tables,
// so no character is scanned more than a constant number of times. Previews allow 1 MiB of hostile text.
// Math (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`) is read in the page's mode only (parseInline), its closers found
// through per-kind position lists (markdown-math.ts) the same way.

import { mathScanner } from './markdown-math.js';

export type Inline =
  | { type: 'text'; text: string }
  | { type: 'code'; text: string }
  | { type: 'strong'; children: Inline[] }
  | { type: 'em'; children: Inline[] }
  | { type: 'link'; href: string; children: Inline[] }
  | { type: 'math'; tex: string; display: boolean }
  | { type: 'br' };

/** Deepest nesting kept: deeper emphasis is flattened back to its markers, so hostile input can't blow the stack. */
export const MAX_DEPTH = 8;

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

/** One piece of the line in a doubly linked list, so a matched emphasis can take its content in O(1). */
interface Cell {
  kind: 'text' | 'delim' | 'atom' | 'inlines' | 'em' | 'strong';
  text: string;
  /** A delimiter run's (or an emphasis's) character and how many of the run are still unmatched. */
  char: string;
  count: number;
  nodes: Inline[];
  first: Cell | null;
  last: Cell | null;
  prev: Cell | null;
  next: Cell | null;
}

interface Delimiter {
  cell: Cell;
  char: string;
  /** The run's length before any matching: the rule of 3 looks at it. */
  orig: number;
  canOpen: boolean;
  canClose: boolean;
  prev: Delimiter | null;
  next: Delimiter | null;
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

function cell(kind: Cell['kind'], init: Partial<Cell> = {}): Cell {
  return { kind, text: '', char: '', count: 0, nodes: [], first: null, last: null, prev: null, next: null, ...init };
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

/** One space each side is padding (so a span can start or end with a backtick), unless the span is all spaces. */
function codeText(body: string): string {
  return body.length >= 2 && body.startsWith(' ') && body.endsWith(' ') && /[^ ]/.test(body) ? body.slice(1, -1) : body;
}

/** Closing-run lookup for code spans: the first later run of exactly the opener's length, or -1. */
function backtickRuns(src: string, meter: WorkMeter): (from: number, length: number) => number {
  let runs: Map<number, number[]> | null = null;
  const cursor = new Map<number, number>();
  return (from, length) => {
    if (!runs) {
      runs = new Map();
      for (let i = 0; i < src.length; ) {
        meter.steps++;
        if (src[i] !== '`') {
          i++;
          continue;
        }
        let j = i;
        while (src[j] === '`') j++;
        const list = runs.get(j - i) ?? [];
        list.push(i);
        runs.set(j - i, list);
        i = j;
      }
    }
    // Openers are met left to right, so each length's cursor only moves forward.
    const list = runs.get(length) ?? [];
    let k = cursor.get(length) ?? 0;
    while (k < list.length && (list[k] ?? 0) < from) {
      meter.steps++;
      k++;
    }
    cursor.set(length, k);
    return k < list.length ? list[k] ?? -1 : -1;
  };
}

/**
 * `[label](href)` or `[label](href "title")` at a position, as the earlier regex read it
 * (/^\[([^\]]*)\]\(([^)\s]*)(?:\s+"[^"]*")?\)/), but through tables of the next `]`, the next `)` or space,
 * the next non-space and the next `"`, built once per line on the first `[`.
 */
function linkScanner(src: string, meter: WorkMeter): (at: number) => { label: string; href: string; end: number } | null {
  let tables: { bracket: Int32Array; stop: Int32Array; solid: Int32Array; quote: Int32Array } | null = null;
  const build = () => {
    const n = src.length;
    const bracket = new Int32Array(n + 1).fill(-1);
    const stop = new Int32Array(n + 1).fill(-1);
    const solid = new Int32Array(n + 1).fill(-1);
    const quote = new Int32Array(n + 1).fill(-1);
    for (let i = n - 1; i >= 0; i--) {
      meter.steps++;
      const c = src[i] ?? '';
      const ws = WHITESPACE.test(c);
      bracket[i] = c === ']' ? i : bracket[i + 1] ?? -1;
      stop[i] = c === ')' || ws ? i : stop[i + 1] ?? -1;
      solid[i] = ws ? solid[i + 1] ?? -1 : i;
      quote[i] = c === '"' ? i : quote[i + 1] ?? -1;
    }
    return { bracket, stop, solid, quote };
  };
  return (at) => {
    tables ??= build();
    const close = tables.bracket[at + 1] ?? -1;
    if (close === -1 || src[close + 1] !== '(') return null;
    const stop = tables.stop[close + 2] ?? -1;
    if (stop === -1) return null;
    const label = src.slice(at + 1, close);
    const href = src.slice(close + 2, stop);
    if (src[stop] === ')') return { label, href, end: stop + 1 };
    const q = tables.solid[stop] ?? -1;
    if (q === -1 || src[q] !== '"') return null;
    const endQuote = tables.quote[q + 1] ?? -1;
    if (endQuote === -1 || src[endQuote + 1] !== ')') return null;
    return { label, href, end: endQuote + 2 };
  };
}

function removeDelimiter(d: Delimiter): void {
  if (d.prev) d.prev.next = d.next;
  if (d.next) d.next.prev = d.prev;
}

function unlink(c: Cell): void {
  if (c.prev) c.prev.next = c.next;
  if (c.next) c.next.prev = c.prev;
  c.prev = c.next = null;
}

/** CommonMark's "process emphasis" over the whole delimiter stack (top is its last entry). */
function processEmphasis(top: Delimiter | null, meter: WorkMeter): void {
  let closer = top;
  while (closer?.prev) closer = closer.prev;
  // Per closer kind, the lowest delimiter a new search may reach: below it a search already failed.
  const openersBottom = new Map<string, Delimiter | null>();
  while (closer) {
    meter.steps++;
    if (!closer.canClose) {
      closer = closer.next;
      continue;
    }
    const key = `${closer.char}${closer.canOpen ? 1 : 0}${closer.orig % 3}`;
    const bottom = openersBottom.get(key) ?? null;
    let opener = closer.prev;
    let found = false;
    while (opener && opener !== bottom) {
      meter.steps++;
      const oddMatch = (closer.canOpen || opener.canClose) && closer.orig % 3 !== 0 && (opener.orig + closer.orig) % 3 === 0;
      if (opener.char === closer.char && opener.canOpen && !oddMatch) {
        found = true;
        break;
      }
      opener = opener.prev;
    }
    const oldCloser = closer;
    if (found && opener) {
      const use = opener.cell.count >= 2 && closer.cell.count >= 2 ? 2 : 1;
      opener.cell.count -= use;
      closer.cell.count -= use;
      const emph = cell(use === 2 ? 'strong' : 'em', { char: closer.char });
      // Everything between the two runs becomes the emphasis's content, moved as one segment.
      if (opener.cell.next !== closer.cell) {
        emph.first = opener.cell.next;
        emph.last = closer.cell.prev;
        if (emph.first) emph.first.prev = null;
        if (emph.last) emph.last.next = null;
      }
      emph.prev = opener.cell;
      emph.next = closer.cell;
      opener.cell.next = emph;
      closer.cell.prev = emph;
      // Delimiters inside the emphasis can no longer match anything outside it.
      for (let d = opener.next; d && d !== closer; d = d.next) meter.steps++;
      opener.next = closer;
      closer.prev = opener;
      if (opener.cell.count === 0) {
        unlink(opener.cell);
        removeDelimiter(opener);
      }
      if (closer.cell.count === 0) {
        unlink(closer.cell);
        const next = closer.next;
        removeDelimiter(closer);
        closer = next;
      }
    } else {
      openersBottom.set(key, oldCloser.prev);
      closer = oldCloser.next;
      if (!oldCloser.canOpen) removeDelimiter(oldCloser);
    }
  }
}

function pushText(out: Inline[], text: string): void {
  if (!text) return;
  const last = out[out.length - 1];
  if (last?.type === 'text') last.text += text;
  else out.push({ type: 'text', text });
}

/** The linked cells as a tree, iteratively (emphasis can nest as deep as the line is long). */
function toInlines(head: Cell | null, depth: number, meter: WorkMeter): Inline[] {
  const root: Inline[] = [];
  const stack: Array<{ at: Cell | null; out: Inline[]; depth: number; suffix: string }> = [{ at: head, out: root, depth, suffix: '' }];
  while (stack.length > 0) {
    meter.steps++;
    const frame = stack[stack.length - 1];
    if (!frame) break;
    const c = frame.at;
    if (!c) {
      stack.pop();
      pushText(frame.out, frame.suffix);
      continue;
    }
    frame.at = c.next;
    if (c.kind === 'text') pushText(frame.out, c.text);
    else if (c.kind === 'delim') pushText(frame.out, c.char.repeat(c.count));
    else if (c.kind === 'atom') frame.out.push(...c.nodes);
    else if (c.kind === 'inlines') {
      for (const node of c.nodes) {
        if (node.type === 'text') pushText(frame.out, node.text);
        else frame.out.push(node);
      }
    } else if (frame.depth < MAX_DEPTH) {
      const node: Inline = c.kind === 'em' ? { type: 'em', children: [] } : { type: 'strong', children: [] };
      frame.out.push(node);
      stack.push({ at: c.first, out: node.children, depth: frame.depth + 1, suffix: '' });
    } else {
      const marker = c.char.repeat(c.kind === 'em' ? 1 : 2);
      pushText(frame.out, marker);
      stack.push({ at: c.first, out: frame.out, depth: frame.depth, suffix: marker });
    }
  }
  return root;
}

/** Plain text of inline nodes (for titles and tests). */
export function inlineText(nodes: Inline[]): string {
  return nodes
    .map((n) => (n.type === 'text' || n.type === 'code' ? n.text : n.type === 'math' ? n.tex : n.type === 'br' ? '\n' : inlineText(n.children)))
    .join('');
}
