// A small Markdown parser for previews (Office sidecars, notes in the workspace). It produces a plain tree
// that markdown-dom.ts turns into DOM nodes; keeping the parse pure lets it be tested without a browser and
// guarantees file text is never interpreted as HTML. Covers what the sidecars contain: ATX headings,
// paragraphs, bullet and numbered lists (nested by indentation), pipe tables, fenced and indented code,
// block quotes, rules; inline code, bold, italic, links and backslash escapes.

export type Inline =
  | { type: 'text'; text: string }
  | { type: 'code'; text: string }
  | { type: 'strong'; children: Inline[] }
  | { type: 'em'; children: Inline[] }
  | { type: 'link'; href: string; children: Inline[] }
  | { type: 'br' };

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
  | { type: 'quote'; children: Block[] }
  | { type: 'rule' };

/** Deepest nesting kept: deeper structure is flattened, so hostile input can't blow the stack. */
const MAX_DEPTH = 8;

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const LIST_ITEM = /^( *)([-*+]|\d{1,9}[.)])[ \t]+(.*)$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const TABLE_SEP = /^ *\|? *:?-+:? *(\| *:?-+:? *)*\|? *$/;

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
  return HEADING.test(line) || FENCE.test(line) || RULE.test(line) || LIST_ITEM.test(line) || QUOTE.test(line);
}

export function parseMarkdown(src: string, depth = 0): Block[] {
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
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
    const heading = HEADING.exec(line);
    if (heading) {
      const level = (heading[1] ?? '#').length as 1 | 2 | 3 | 4 | 5 | 6;
      blocks.push({ type: 'heading', level, children: parseInline(heading[2] ?? '') });
      i++;
      continue;
    }
    if (RULE.test(line)) {
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
    if (line.includes('|') && TABLE_SEP.test(lines[i + 1] ?? '') && (lines[i + 1] ?? '').includes('-')) {
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
    const hard = / {2,}$/.test(raw) || /\\$/.test(raw);
    const text = raw.replace(/\\$/, '').trim();
    out.push(...parseInline(text));
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
    if (last) last.children = mergeText([...last.children, { type: 'text', text: ' ' }, ...parseInline(line.trim())]);
    i++;
  }
  return [list, i];
}

const ESCAPABLE = '\\`*_{}[]()#+-.!|<>~"\'';

function mergeText(nodes: Inline[]): Inline[] {
  const out: Inline[] = [];
  for (const n of nodes) {
    const last = out[out.length - 1];
    if (n.type === 'text' && last && last.type === 'text') last.text += n.text;
    else out.push(n.type === 'text' ? { type: 'text', text: n.text } : n);
  }
  return out;
}

/** Only these link targets become clickable; anything else (javascript:, data:, file:) stays text. */
export function safeHref(href: string): string | null {
  const trimmed = href.trim();
  return /^(https?:|mailto:)/i.test(trimmed) ? trimmed : null;
}

export function parseInline(src: string, depth = 0): Inline[] {
  const out: Inline[] = [];
  let text = '';
  const flush = () => {
    if (text) out.push({ type: 'text', text });
    text = '';
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i] ?? '';
    if (c === '\\' && i + 1 < src.length && ESCAPABLE.includes(src[i + 1] ?? '')) {
      text += src[i + 1];
      i += 2;
      continue;
    }
    if (c === '`') {
      const run = /^`+/.exec(src.slice(i))?.[0] ?? '`';
      const end = src.indexOf(run, i + run.length);
      if (end !== -1) {
        flush();
        out.push({ type: 'code', text: src.slice(i + run.length, end).replace(/^ (.*) $/, '$1') });
        i = end + run.length;
        continue;
      }
      text += run;
      i += run.length;
      continue;
    }
    if ((c === '*' || c === '_') && depth < MAX_DEPTH) {
      const double = src[i + 1] === c;
      const marker = double ? c + c : c;
      const close = findClose(src, i + marker.length, marker);
      const innerStart = i + marker.length;
      const intraword = c === '_' && /\w/.test(src[i - 1] ?? '');
      if (close > innerStart && !intraword && !/\s/.test(src[innerStart] ?? ' ')) {
        flush();
        const children = parseInline(src.slice(innerStart, close), depth + 1);
        out.push(double ? { type: 'strong', children } : { type: 'em', children });
        i = close + marker.length;
        continue;
      }
    }
    if (c === '[' && depth < MAX_DEPTH) {
      const m = /^\[([^\]]*)\]\(([^)\s]*)(?:\s+"[^"]*")?\)/.exec(src.slice(i));
      if (m) {
        const href = safeHref(m[2] ?? '');
        flush();
        const children = parseInline(m[1] ?? '', depth + 1);
        if (href) out.push({ type: 'link', href, children });
        else out.push(...children);
        i += m[0].length;
        continue;
      }
    }
    text += c;
    i++;
  }
  flush();
  return mergeText(out);
}

function findClose(src: string, from: number, marker: string): number {
  let i = from;
  while (i < src.length) {
    if (src[i] === '\\') {
      i += 2;
      continue;
    }
    if (src[i] === '`') {
      const end = src.indexOf('`', i + 1);
      if (end === -1) return -1;
      i = end + 1;
      continue;
    }
    if (src.startsWith(marker, i) && !/\s/.test(src[i - 1] ?? ' ')) {
      // `**` must not be mistaken for the close of a single `*`.
      if (marker.length === 1 && src[i + 1] === marker) {
        i += 2;
        continue;
      }
      return i;
    }
    i++;
  }
  return -1;
}

/** Plain text of inline nodes (for titles and tests). */
export function inlineText(nodes: Inline[]): string {
  return nodes
    .map((n) => (n.type === 'text' || n.type === 'code' ? n.text : n.type === 'br' ? '\n' : inlineText(n.children)))
    .join('');
}
