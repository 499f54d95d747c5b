// KaTeX builds a tree of its own nodes, then DOM from it (toNode). Most of its inline styles go through the
// CSSOM (element.style), which the page's policy allows; a few nodes carry a `style` *attribute* instead (an
// \fbox's border, a \vec's arrow, a formula that failed to parse shown in red), which the policy refuses
// (style-src without 'unsafe-inline' covers style attributes) and reports as a violation. This moves each such
// attribute to element.style.cssText after the node is built: the same look, through the allowed path.

/** The shape of KaTeX's tree nodes this needs (katex/dist/katex.mjs: Span, SvgNode, SymbolNode, …). */
export interface KatexNode {
  attributes?: Record<string, string>;
  children?: KatexNode[];
  toNode(): Node;
}

/** Every node with a style attribute now sets it through the CSSOM; returns how many there were. */
export function styleAttributesToCssom(root: KatexNode): number {
  let moved = 0;
  const stack: KatexNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node) break;
    const style = node.attributes?.style;
    if (typeof style === 'string' && node.attributes) {
      delete node.attributes.style;
      const build = node.toNode.bind(node);
      node.toNode = () => {
        const el = build();
        if (el instanceof Element && 'style' in el) (el as HTMLElement | SVGElement).style.cssText = style;
        return el;
      };
      moved++;
    }
    for (const child of node.children ?? []) stack.push(child);
  }
  return moved;
}
