// Mammoth's HTML to Markdown. Mammoth writes a small, regular HTML subset (its writer escapes `& < >` in text
// and `& " < >` in attribute values, and only emits double-quoted attributes), so a tokenizer for exactly
// that subset is sound here; it is not a general HTML parser and is not used on anything else.
import { escapeInline, escapeLineStarts, heading, joinBlocks, table, tableCell } from './markdown.js';

interface HtmlElement {
  tag: string;
  attrs: Record<string, string>;
  children: HtmlNode[];
}
type HtmlNode = HtmlElement | string;

const TOKEN = /<\/([a-zA-Z][a-zA-Z0-9]*)\s*>|<([a-zA-Z][a-zA-Z0-9]*)((?:\s+[^\s=>"/]+="[^"]*")*)\s*(\/?)>|([^<]+)|(<)/g;
const ATTRIBUTE = /([^\s=>"/]+)="([^"]*)"/g;
const VOID = new Set(['br', 'img', 'input', 'hr']);
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const SAFE_LINK = /^(https?:|mailto:)/i;

/**
 * Convert mammoth's HTML. With `maxChars`, top-level blocks stop being rendered once the Markdown is longer
 * than that: the caller caps the preview there anyway, and the prefix is the same either way.
 */
export function htmlToMarkdown(html: string, maxChars = Infinity): string {
  return joinBlocks(blocksOf(parseHtml(html).children, maxChars));
}

function parseHtml(html: string): HtmlElement {
  const root: HtmlElement = { tag: '#root', attrs: {}, children: [] };
  const stack: HtmlElement[] = [root];
  for (const m of html.matchAll(TOKEN)) {
    const top = stack[stack.length - 1]!;
    const [, closing, opening, attrText, selfClose, text, stray] = m;
    if (text !== undefined || stray !== undefined) {
      top.children.push(decodeEntities(text ?? stray ?? ''));
    } else if (opening !== undefined) {
      const el: HtmlElement = { tag: opening.toLowerCase(), attrs: parseAttributes(attrText ?? ''), children: [] };
      top.children.push(el);
      if (!selfClose && !VOID.has(el.tag)) stack.push(el);
    } else if (closing !== undefined) {
      // Close the nearest matching element; an unmatched closing tag is ignored.
      const tag = closing.toLowerCase();
      const at = stack.map((e) => e.tag).lastIndexOf(tag);
      if (at > 0) stack.length = at;
    }
  }
  return root;
}

function parseAttributes(text: string): Record<string, string> {
  const attrs: Record<string, string> = Object.create(null);
  for (const [, name, value] of text.matchAll(ATTRIBUTE)) attrs[name!.toLowerCase()] = decodeEntities(value ?? '');
  return attrs;
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '\uFFFD';
    }
    return ENTITIES[body] ?? whole;
  });
}

function blocksOf(nodes: readonly HtmlNode[], maxChars = Infinity): string[] {
  const blocks: string[] = [];
  // Length of joinBlocks(blocks): blocks, a blank line between each, one final newline.
  let joined = -1;
  const add = (block: string) => {
    if (block.trim() === '') return;
    blocks.push(block);
    joined += block.length + 2;
  };
  let loose: HtmlNode[] = [];
  const flushLoose = () => {
    add(paragraph(loose));
    loose = [];
  };
  for (const node of nodes) {
    if (joined > maxChars) return blocks;
    if (typeof node !== 'string' && isBlock(node.tag)) {
      flushLoose();
      for (const block of blockOf(node)) add(block);
    } else {
      loose.push(node);
    }
  }
  flushLoose();
  return blocks;
}

const BLOCK_TAGS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'table', 'div', 'dl', 'dt', 'dd', 'pre', 'blockquote', 'hr']);
function isBlock(tag: string): boolean {
  return BLOCK_TAGS.has(tag);
}

function blockOf(el: HtmlElement): string[] {
  const level = /^h([1-6])$/.exec(el.tag)?.[1];
  if (level) {
    const text = inline(el.children);
    return text ? [heading(Number(level), text)] : [];
  }
  switch (el.tag) {
    case 'p':
    case 'dt':
    case 'dd':
    case 'pre':
      return [paragraph(el.children)].filter(Boolean);
    case 'ul':
    case 'ol':
      return [list(el)].filter(Boolean);
    case 'table':
      return [tableOf(el)].filter(Boolean);
    case 'hr':
      return ['---'];
    default:
      return blocksOf(el.children);
  }
}

/** Inline content as one Markdown paragraph; line breaks inside it stay line breaks. */
function paragraph(nodes: readonly HtmlNode[]): string {
  return escapeLineStarts(inline(nodes).trim());
}

function list(el: HtmlElement): string {
  const ordered = el.tag === 'ol';
  const lines: string[] = [];
  let index = 0;
  for (const item of el.children) {
    if (typeof item === 'string' || item.tag !== 'li') continue;
    index += 1;
    const marker = ordered ? `${index}.` : '-';
    const indent = ' '.repeat(marker.length + 1);
    const own = item.children.filter((c) => typeof c === 'string' || (c.tag !== 'ul' && c.tag !== 'ol'));
    const nested = item.children.filter((c): c is HtmlElement => typeof c !== 'string' && (c.tag === 'ul' || c.tag === 'ol'));
    const text = blocksOf(own).join(' ').replace(/\n/g, ' ');
    lines.push(`${marker} ${text}`.trimEnd());
    for (const sub of nested) {
      const rendered = list(sub);
      if (rendered) lines.push(...rendered.split('\n').map((l) => indent + l));
    }
  }
  return lines.join('\n');
}

function tableOf(el: HtmlElement): string {
  const rows: string[][] = [];
  const collect = (node: HtmlElement) => {
    for (const child of node.children) {
      if (typeof child === 'string') continue;
      if (child.tag === 'tr') {
        rows.push(
          child.children
            .filter((c): c is HtmlElement => typeof c !== 'string' && (c.tag === 'td' || c.tag === 'th'))
            .flatMap((cell) => {
              const text = tableCell(plainText(cell));
              // A merged cell keeps the columns after it in place.
              const span = Math.min(Number(cell.attrs.colspan ?? 1) || 1, 64);
              return [text, ...Array.from({ length: span - 1 }, () => '')];
            }),
        );
      } else if (child.tag === 'thead' || child.tag === 'tbody' || child.tag === 'tfoot') {
        collect(child);
      }
    }
  };
  collect(el);
  return rows.length ? table(rows) : '';
}

/** The raw text of a subtree, blocks separated by spaces (table cells are one line). */
function plainText(node: HtmlNode): string {
  if (typeof node === 'string') return node;
  if (node.tag === 'br') return ' ';
  const sep = isBlock(node.tag) || node.tag === 'li' ? ' ' : '';
  return node.children.map((c) => plainText(c) + sep).join('');
}

/** Inline Markdown: bold, italics, safe links, line breaks; images and footnote anchors carry no text. */
function inline(nodes: readonly HtmlNode[]): string {
  let out = '';
  for (const node of nodes) {
    if (typeof node === 'string') {
      out += escapeInline(node.replace(/[ \t\r\n]+/g, ' '));
      continue;
    }
    switch (node.tag) {
      case 'br':
        out += '\n';
        break;
      case 'img':
      case 'input':
        break;
      case 'strong':
      case 'b':
        out += wrap(inline(node.children), '**');
        break;
      case 'em':
      case 'i':
        out += wrap(inline(node.children), '*');
        break;
      case 's':
      case 'del':
        out += wrap(inline(node.children), '~~');
        break;
      case 'a': {
        const text = inline(node.children);
        const href = node.attrs.href ?? '';
        out += SAFE_LINK.test(href) && text.trim() ? `[${text}](<${href.replace(/[<>\s]/g, encodeURIComponent)}>)` : text;
        break;
      }
      default:
        out += isBlock(node.tag) ? ` ${inline(node.children)} ` : inline(node.children);
    }
  }
  return out;
}

/** Emphasis markers hug the text: `**bold** ` not `**bold **`, which Markdown would not render. */
function wrap(text: string, marker: string): string {
  const m = /^(\s*)([\s\S]*?)(\s*)$/.exec(text)!;
  return m[2] ? `${m[1]}${marker}${m[2]}${marker}${m[3]}` : text;
}
