import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from './html-to-markdown.js';

describe('htmlToMarkdown (mammoth output)', () => {
  it('keeps line breaks inside a paragraph and escapes a marker after one', () => {
    expect(htmlToMarkdown('<p>line one<br />- not a list</p>')).toBe('line one\n\\- not a list\n');
  });

  it('decodes mammoth entities once', () => {
    expect(htmlToMarkdown('<p>a &amp;lt; b &lt; c &gt; d &quot;e&quot;</p>')).toBe('a &lt; b \\< c > d "e"\n');
  });

  it('renders strikethrough, drops images and checkbox inputs, keeps anchors as text', () => {
    expect(htmlToMarkdown('<p><s>old</s> <img src="" alt="x" /><input type="checkbox" /><a id="_Toc1"></a>new <a href="#footnote-1">[1]</a></p>')).toBe(
      '~~old~~ new \\[1\\]\n',
    );
  });

  it('flattens cell content (paragraphs, lists, nested tables) to one line and keeps colspan positions', () => {
    const html =
      '<table><thead><tr><th colspan="2"><p>Head</p></th><th><p>C</p></th></tr></thead>' +
      '<tbody><tr><td><p>a</p><p>b</p></td><td><ul><li>x</li><li>y</li></ul></td><td><table><tr><td><p>in</p></td></tr></table></td></tr></tbody></table>';
    expect(htmlToMarkdown(html)).toBe('| Head | | C |\n| --- | --- | --- |\n| a b | x y | in |\n');
  });

  it('numbers ordered lists and indents nested ones under their marker', () => {
    expect(htmlToMarkdown('<ol><li>one<ol><li>sub</li></ol></li><li>two<ul><li>dot</li></ul></li></ol>')).toBe(
      '1. one\n   1. sub\n2. two\n   - dot\n',
    );
  });
});

describe('htmlToMarkdown with a length budget', () => {
  it('stops after the block that passes the budget, leaving the prefix identical', () => {
    const html = Array.from({ length: 50 }, (_, i) => `<p>paragraph ${i}</p>`).join('');
    const full = htmlToMarkdown(html);
    const cut = htmlToMarkdown(html, 30);
    expect(cut).toBe('paragraph 0\n\nparagraph 1\n\nparagraph 2\n');
    expect(full.startsWith(cut.slice(0, 31))).toBe(true);
    expect(cut.length).toBeGreaterThan(30);
    // Exactly at the budget is not past it: the next block is still rendered, so a cap there still truncates.
    expect(htmlToMarkdown(html, 25)).toBe('paragraph 0\n\nparagraph 1\n\nparagraph 2\n');
    expect(htmlToMarkdown(html, 24)).toBe('paragraph 0\n\nparagraph 1\n');
  });
});
