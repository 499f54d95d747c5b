// A reply as it is read aloud: its words, not its Markdown. The reply goes through the same parser that draws it
// (markdown.ts), and the tree's text is kept: no `**`, `#`, `|` or link targets are spoken. Pure, tested in node.
import { inlineText, parseMarkdown, type Block, type ListBlock } from './markdown.js';

/** Blocks are read as sentences: each ends with a pause (a line break the voices honour). */
const BREAK = '\n';

function listText(list: ListBlock): string[] {
  return list.items.flatMap((item) => [inlineText(item.children), ...(item.sublist ? listText(item.sublist) : [])]);
}

function blockText(b: Block): string[] {
  switch (b.type) {
    case 'heading':
    case 'paragraph':
      return [inlineText(b.children)];
    case 'list':
      return listText(b);
    case 'code':
      return [b.text];
    case 'quote':
      return b.children.flatMap(blockText);
    case 'table':
      // A row is read as its cells, separated as a list would be.
      return [b.head, ...b.rows].map((row) => row.map(inlineText).join(', '));
    default:
      // A rule, or a kind of block a later parser adds and this reads as nothing rather than as markup.
      return [];
  }
}

/** The text to speak for a reply written in Markdown. */
export function speechText(markdown: string): string {
  return parseMarkdown(markdown)
    .flatMap(blockText)
    .map((line) => line.trim())
    .filter(Boolean)
    .join(BREAK);
}
