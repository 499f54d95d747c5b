import katex from 'katex';
import { describe, expect, it } from 'vitest';
import { styleAttributesToCssom, type KatexNode } from './math-tree.js';
import { KATEX_OPTIONS } from './math-view.js';

// KaTeX's tree, as math-view.ts builds it before any DOM exists (so it runs here without a browser).
const tree = (tex: string, display = false) =>
  (katex as unknown as { __renderToDomTree(t: string, o: object): KatexNode }).__renderToDomTree(tex, { ...KATEX_OPTIONS, displayMode: display });

function collect(node: KatexNode, out: KatexNode[] = []): KatexNode[] {
  out.push(node);
  for (const c of node.children ?? []) collect(c, out);
  return out;
}

const markup = (node: KatexNode) => (node as unknown as { toMarkup(): string }).toMarkup();

describe('KaTeX with the page\'s options', () => {
  it('moves every style attribute (a \\vec, an \\fcolorbox, a parse error) off the tree', () => {
    for (const tex of ['\\vec{v}', '\\fcolorbox{red}{blue}{x}', '\\frac{1}{']) {
      const root = tree(tex);
      expect(collect(root).some((n) => typeof n.attributes?.style === 'string'), tex).toBe(true);
      expect(styleAttributesToCssom(root), tex).toBeGreaterThan(0);
      expect(collect(root).some((n) => typeof n.attributes?.style === 'string'), tex).toBe(false);
    }
  });

  it('renders \\href, \\url and \\htmlClass as inert text: no link, no javascript: anywhere', () => {
    for (const tex of ['\\href{javascript:alert(1)}{click}', '\\url{javascript:alert(1)}', '\\htmlClass{x}{y}', '\\includegraphics{http://x.test/a.png}']) {
      const html = markup(tree(tex));
      expect(html, tex).not.toMatch(/<a[\s>]/);
      expect(html, tex).not.toMatch(/href=/);
      expect(html, tex).not.toMatch(/<img/);
    }
  });

  it('shows a formula it cannot read as its source, without throwing', () => {
    expect(markup(tree('\\frac{1}{'))).toContain('katex-error');
    expect(markup(tree('E = mc^2'))).toContain('class="katex"');
  });

  it('bounds a huge box and a runaway macro', () => {
    expect(markup(tree('\\rule{9999em}{9999em}'))).toContain('border-right-width:40em;border-top-width:40em');
    expect(markup(tree('\\def\\a{\\a\\a}\\a'))).toContain('katex-error');
  });
});
