// Markdown tree → DOM nodes. Only createElement and text nodes: file text can never become markup.
import { h } from './dom.js';
import { parseMarkdown, type Block, type Inline, type ListBlock } from './markdown.js';

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
      case 'br':
        return h('br');
    }
  });
}

function list(b: ListBlock): HTMLElement {
  const items = b.items.map((it) => h('li', {}, inline(it.children), it.sublist ? list(it.sublist) : null));
  return b.ordered ? h('ol', { start: b.start !== 1 ? b.start : undefined }, items) : h('ul', {}, items);
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
      return h('pre', {}, h('code', { 'data-lang': b.lang || undefined }, b.text));
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
