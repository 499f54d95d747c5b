// Markdown tree → DOM nodes. Only createElement and text nodes: file text can never become markup. Code blocks
// get a copy button and, once on screen, colours (code-highlight.ts); formulas show their TeX until KaTeX has
// typeset them (math-view.ts). Both libraries load on first use, so a page without code or math loads neither.
import { highlightCode, highlightCodeNow } from './code-highlight.js';
import { copyButton } from './copy-button.js';
import { h } from './dom.js';
import { parseMarkdown, type Block, type Inline, type ListBlock } from './markdown.js';
import { renderMath, renderMathNow } from './math-view.js';
import { whenOnScreen } from './on-screen.js';

function math(tex: string, display: boolean): HTMLElement {
  const el = h(display ? 'div' : 'span', { class: display ? 'math math-display' : 'math', 'data-testid': 'math' }, tex);
  // Already loaded (a reply re-rendered as it streams): at once, so the source never flashes.
  if (!renderMathNow(el, tex, display)) whenOnScreen(el, () => void renderMath(el, tex, display));
  return el;
}

function inline(nodes: Inline[]): Node[] {
  return nodes.map((n): Node => {
    switch (n.type) {
      case 'text':
        return document.createTextNode(n.text);
      case 'code':
        return h('code', {}, n.text);
      case 'strong':
        return h('strong', {}, inline(n.children));
      case 'em':
        return h('em', {}, inline(n.children));
      case 'link':
        return h('a', { href: n.href, target: '_blank', rel: 'noopener noreferrer' }, inline(n.children));
      case 'math':
        return math(n.tex, n.display);
      case 'br':
        return h('br');
    }
  });
}

function list(b: ListBlock): HTMLElement {
  const items = b.items.map((it) => h('li', {}, inline(it.children), it.sublist ? list(it.sublist) : null));
  return b.ordered ? h('ol', { start: b.start !== 1 ? b.start : undefined }, items) : h('ul', {}, items);
}

function codeBlock(lang: string, text: string): HTMLElement {
  const code = h('code', { 'data-lang': lang || undefined }, text);
  if (!highlightCodeNow(code, lang, text)) whenOnScreen(code, () => void highlightCode(code, lang, text));
  return h(
    'div',
    { class: 'code-block', 'data-testid': 'code-block' },
    h('div', { class: 'code-head small' }, h('span', { class: 'code-lang muted' }, lang), copyButton('Copy code', 'copy-code', () => text)),
    h('pre', {}, code),
  );
}

function block(b: Block): HTMLElement {
  switch (b.type) {
    case 'heading':
      return h(`h${b.level}`, {}, inline(b.children));
    case 'paragraph':
      return h('p', {}, inline(b.children));
    case 'list':
      return list(b);
    case 'code':
      return codeBlock(b.lang, b.text);
    case 'math':
      return math(b.tex, true);
    case 'quote':
      return h('blockquote', {}, b.children.map(block));
    case 'rule':
      return h('hr');
    case 'table': {
      // A class, not a style attribute: the page's policy (index.html) allows no inline style.
      const alignOf = (c: number) => {
        const a = b.align[c];
        return a ? `md-align-${a}` : undefined;
      };
      return h(
        'div',
        { class: 'md-table-wrap' },
        h(
          'table',
          {},
          h('thead', {}, h('tr', {}, b.head.map((cell, c) => h('th', { class: alignOf(c) }, inline(cell))))),
          h('tbody', {}, b.rows.map((row) => h('tr', {}, row.map((cell, c) => h('td', { class: alignOf(c) }, inline(cell)))))),
        ),
      );
    }
  }
}

export function renderMarkdown(src: string): DocumentFragment {
  const frag = document.createDocumentFragment();
  for (const b of parseMarkdown(src)) frag.appendChild(block(b));
  return frag;
}
