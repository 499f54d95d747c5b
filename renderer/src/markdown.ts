// A small Markdown parser for previews (Office sidecars, notes in the workspace). It produces a plain tree
// that markdown-dom.ts turns into DOM nodes; keeping the parse pure lets it be tested without a browser and
// guarantees file text is never interpreted as HTML. Covers what the sidecars contain: ATX headings,
// paragraphs, bullet and numbered lists (nested by indentation), pipe tables, fenced and indented code,
// block quotes, rules, displayed math (`$$` / `\[` lines, markdown-math.ts); inline code, bold, italic, links,
// math and backslash escapes.

import { MAX_DEPTH, parseInline, type Inline } from './markdown-inline.js';
import { lineTables, mathBlock, mathBlockOpener } from './markdown-math.js';

export { inlineText, parseInline, safeHref, type Inline } from './markdown-inline.js';

export interface ListItem {
  children: Inline[];
  sublist?: ListBlock;
}

export interface ListBlock {
  type: 'list';
  ordered: boolean;
  start: number;
  items: ListItem[];
}

export type Block =
  | { type: 'heading'; level: 1 | 2 | 3 | 4 | 5 | 6; children: Inline[] }
  | { type: 'paragraph'; children: Inline[] }
  | ListBlock
  | { type: 'table'; align: Array<'left' | 'center' | 'right' | null>; head: Inline[][]; rows: Inline[][][] }
  | { type: 'code'; lang: string; text: string }
  | { type: 'math'; tex: string }
  | { type: 'quote'; children: Block[] }
  | { type: 'rule' };

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/;
const LIST_ITEM = /^( *)([-*+]|\d{1,9}[.)])[ \t]+(.*)$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const TABLE_SEP_CELL = /^:?-+:?$/;

// Headings, rules and table separators are read by hand rather than by regexes like
// /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/: those backtrack over every run of spaces, which is
// quadratic in a long line (a 40 KB heading took 2.7 s, an 80 KB "* * *" line 17 s).

function isSpaceOrTab(c: string | undefined): boolean {
  return c === ' ' || c === '\t';
}

function trimSpaceTab(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isSpaceOrTab(s[a])) a++;
  while (b > a && isSpaceOrTab(s[b - 1])) b--;
  return s.slice(a, b);
}

/** Up to three leading spaces, then the rest (null when there are four or more). */
function afterIndent(line: string): string | null {
  let k = 0;
  while (line[k] === ' ') k++;
  return k <= 3 ? line.slice(k) : null;
}

/** An ATX heading: 1–6 `#`, then nothing or a space and the text, an optional closing `#` run dropped. */
export function heading(line: string): { level: 1 | 2 | 3 | 4 | 5 | 6; text: string } | null {
  const rest = afterIndent(line);
  if (rest === null) return null;
  let k = 0;
  while (rest[k] === '#') k++;
  if (k < 1 || k > 6 || (k < rest.length && !isSpaceOrTab(rest[k]))) return null;
  let text = trimSpaceTab(rest.slice(k));
  let end = text.length;
  while (end > 0 && text[end - 1] === '#') end--;
  if (end < text.length && end > 0 && isSpaceOrTab(text[end - 1])) text = trimSpaceTab(text.slice(0, end));
  return { level: k as 1 | 2 | 3 | 4 | 5 | 6, text };
}

/** A thematic break: three or more of the same `-`, `*` or `_`, with only spaces or tabs between. */
export function isRule(line: string): boolean {
  const rest = afterIndent(line);
  const c = rest?.[0];
  if (rest === null || (c !== '-' && c !== '*' && c !== '_')) return false;
  let marks = 0;
  for (const ch of rest) {
    if (ch === c) marks++;
    else if (!isSpaceOrTab(ch)) return false;
  }
  return marks >= 3;
}

/** Strips spaces (not tabs) at both ends by hand: / +$/ is quadratic over a long inner run of spaces. */
function trimSpaces(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s[a] === ' ') a++;
  while (b > a && s[b - 1] === ' ') b--;
  return s.slice(a, b);
}

/** A table's alignment row: `|`-separated cells of `:?-+:?`, outer pipes optional. */
export function isTableSeparator(line: string): boolean {
  let s = trimSpaces(line);
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|')) s = s.slice(0, -1);
  return s.split('|').every((cell) => TABLE_SEP_CELL.test(trimSpaces(cell)));
}

function isBlank(line: string): boolean {
  return line.trim() === '';
}

function splitRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && s[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (c === '|') {
      cells.push(cur.trim());
      cur = '';
    } else {
      cur += c;
    }
  }
  cells.push(cur.trim());
  return cells;
}

function startsBlock(line: string): boolean {
  return heading(line) !== null || FENCE.test(line) || isRule(line) || LIST_ITEM.test(line) || QUOTE.test(line) || mathBlockOpener(line) !== null;
}

export function parseMarkdown(src: string, depth = 0): Block[] {
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  const tables = lineTables(lines);
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (isBlank(line)) {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] ?? '```';
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? '').trim().startsWith(marker)) body.push(lines[i++] ?? '');
      i++; // closing fence (or end of input)
      blocks.push({ type: 'code', lang: fence[2] ?? '', text: body.join('\n') });
      continue;
    }
    const math = mathBlock(lines, i, tables);
    if (math) {
      blocks.push({ type: 'math', tex: math.tex });
      i = math.next;
      continue;
    }
    const h = heading(line);
    if (h) {
      blocks.push({ type: 'heading', level: h.level, children: parseInline(h.text) });
      i++;
      continue;
    }
    if (isRule(line)) {
      blocks.push({ type: 'rule' });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i] ?? '')) body.push(QUOTE.exec(lines[i++] ?? '')?.[1] ?? '');
      blocks.push(
        depth < MAX_DEPTH
          ? { type: 'quote', children: parseMarkdown(body.join('\n'), depth + 1) }
          : { type: 'paragraph', children: parseInline(body.join(' ')) },
      );
      continue;
    }
    if (line.includes('|') && isTableSeparator(lines[i + 1] ?? '') && (lines[i + 1] ?? '').includes('-')) {
      const head = splitRow(line);
      const align = splitRow(lines[i + 1] ?? '').map((c) => {
        const l = c.startsWith(':');
        const r = c.endsWith(':');
        return l && r ? 'center' : r ? 'right' : l ? 'left' : null;
      });
      i += 2;
      const rows: Inline[][][] = [];
      while (i < lines.length && !isBlank(lines[i] ?? '') && (lines[i] ?? '').includes('|')) {
        const cells = splitRow(lines[i++] ?? '');
        rows.push(head.map((_, c) => parseInline(cells[c] ?? '')));
      }
      blocks.push({ type: 'table', align, head: head.map((c) => parseInline(c)), rows });
      continue;
    }
    if (LIST_ITEM.test(line)) {
      const [list, next] = parseList(lines, i, depth);
      blocks.push(list);
      i = next;
      continue;
    }
    if (/^( {4}|\t)/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && (/^( {4}|\t)/.test(lines[i] ?? '') || isBlank(lines[i] ?? ''))) {
        body.push((lines[i++] ?? '').replace(/^( {4}|\t)/, ''));
      }
      while (body.length && isBlank(body[body.length - 1] ?? '')) body.pop();
      blocks.push({ type: 'code', lang: '', text: body.join('\n') });
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && !isBlank(lines[i] ?? '') && (para.length === 0 || !startsBlock(lines[i] ?? ''))) {
      para.push(lines[i++] ?? '');
    }
    blocks.push({ type: 'paragraph', children: parseParagraphLines(para) });
  }
  return blocks;
}

/** Lines of one paragraph: a trailing double space or backslash is a hard break, else a soft space. */
function parseParagraphLines(lines: string[]): Inline[] {
  const out: Inline[] = [];
  lines.forEach((raw, idx) => {
    const hard = raw.endsWith('  ') || raw.endsWith('\\');
    const text = (raw.endsWith('\\') ? raw.slice(0, -1) : raw).trim();
    // Appended one by one: spreading a 1 MiB line's nodes into push() would overflow the argument stack.
    for (const node of parseInline(text)) out.push(node);
    if (idx < lines.length - 1) out.push(hard ? { type: 'br' } : { type: 'text', text: ' ' });
  });
  return mergeText(out);
}

function parseList(lines: string[], start: number, depth: number): [ListBlock, number] {
  const first = LIST_ITEM.exec(lines[start] ?? '');
  const indent = first?.[1]?.length ?? 0;
  const ordered = /\d/.test(first?.[2] ?? '');
  const list: ListBlock = { type: 'list', ordered, start: ordered ? parseInt(first?.[2] ?? '1', 10) : 1, items: [] };
  let i = start;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (isBlank(line)) {
      // A blank line ends the list unless the next line continues it.
      const next = LIST_ITEM.exec(lines[i + 1] ?? '');
      if (next && (next[1]?.length ?? 0) >= indent) {
        i++;
        continue;
      }
      break;
    }
    const m = LIST_ITEM.exec(line);
    if (m) {
      const ind = m[1]?.length ?? 0;
      if (ind < indent) break;
      if (ind > indent && list.items.length > 0) {
        const [sub, next] = depth < MAX_DEPTH ? parseList(lines, i, depth + 1) : [null, i + 1];
        const last = list.items[list.items.length - 1];
        if (sub && last && !last.sublist) last.sublist = sub;
        else if (sub && last) last.sublist?.items.push(...sub.items);
        i = next;
        continue;
      }
      if (/\d/.test(m[2] ?? '') !== ordered) break;
      list.items.push({ children: parseInline(m[3] ?? '') });
      i++;
      continue;
    }
    // A lazy continuation line joins the previous item's text.
    if (startsBlock(line) || list.items.length === 0) break;
    const last = list.items[list.items.length - 1];
    if (last) {
      last.children.push({ type: 'text', text: ' ' });
      for (const node of parseInline(line.trim())) last.children.push(node);
    }
    i++;
  }
  // Merged once at the end: merging after every continuation line was quadratic in the item's length.
  for (const item of list.items) item.children = mergeText(item.children);
  return [list, i];
}


function mergeText(nodes: Inline[]): Inline[] {
  const out: Inline[] = [];
  for (const n of nodes) {
    const last = out[out.length - 1];
    if (n.type === 'text' && last && last.type === 'text') last.text += n.text;
    else out.push(n.type === 'text' ? { type: 'text', text: n.text } : n);
  }
  return out;
}
