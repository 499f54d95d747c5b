import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { heading, inlineText, isRule, isTableSeparator, parseInline, parseMarkdown, safeHref } from './markdown.js';

// The regexes the hand-written line readers replace (they backtrack quadratically over runs of spaces).
const OLD_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const OLD_RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const OLD_TABLE_SEP = /^ *\|? *:?-+:? *(\| *:?-+:? *)*\|? *$/;

describe('parseMarkdown', () => {
  it('reads headings, paragraphs and soft line breaks', () => {
    expect(parseMarkdown('# Quarterly Report\n\nSales grew\nby 12 percent.\n\n### Notes #')).toEqual([
      { type: 'heading', level: 1, children: [{ type: 'text', text: 'Quarterly Report' }] },
      { type: 'paragraph', children: [{ type: 'text', text: 'Sales grew by 12 percent.' }] },
      { type: 'heading', level: 3, children: [{ type: 'text', text: 'Notes' }] },
    ]);
  });

  it('shows the redactor\'s masks literally in a reply: in a paragraph, a list item and a table cell', () => {
    const reply = 'Your config: `token` is "***" and the password is "***".\n\n- user: "***", pass: "***"\n\n| key | value |\n| --- | --- |\n| "***" | "***" |';
    const blocks = parseMarkdown(reply);
    expect(blocks[0]).toEqual({
      type: 'paragraph',
      children: [{ type: 'text', text: 'Your config: ' }, { type: 'code', text: 'token' }, { type: 'text', text: ' is "***" and the password is "***".' }],
    });
    if (blocks[1]?.type !== 'list' || blocks[2]?.type !== 'table') throw new Error(`not a list and a table: ${JSON.stringify(blocks)}`);
    expect(blocks[1].items[0]?.children).toEqual([{ type: 'text', text: 'user: "***", pass: "***"' }]);
    expect(blocks[2].rows[0]).toEqual([[{ type: 'text', text: '"***"' }], [{ type: 'text', text: '"***"' }]]);
  });

  it('reads bullet and numbered lists, nested by indentation', () => {
    const [list] = parseMarkdown('- one\n- two\n  - two.a\n- three\n');
    expect(list).toMatchObject({ type: 'list', ordered: false });
    if (list?.type !== 'list') throw new Error('not a list');
    expect(list.items.map((i) => inlineText(i.children))).toEqual(['one', 'two', 'three']);
    expect(list.items[1]?.sublist?.items.map((i) => inlineText(i.children))).toEqual(['two.a']);
    const [ol] = parseMarkdown('3. c\n4. d');
    expect(ol).toMatchObject({ type: 'list', ordered: true, start: 3 });
  });

  it('reads pipe tables with alignment and escaped pipes', () => {
    const [t] = parseMarkdown('| Name | Qty |\n| :--- | ---: |\n| a\\|b | 2 |\n| c |');
    expect(t).toMatchObject({ type: 'table', align: ['left', 'right'] });
    if (t?.type !== 'table') throw new Error('not a table');
    expect(t.head.map(inlineText)).toEqual(['Name', 'Qty']);
    expect(t.rows.map((r) => r.map(inlineText))).toEqual([
      ['a|b', '2'],
      ['c', ''],
    ]);
  });

  it('keeps code verbatim, fenced and indented', () => {
    expect(parseMarkdown('```js\nconst a = "<b>**x**</b>";\n```')).toEqual([{ type: 'code', lang: 'js', text: 'const a = "<b>**x**</b>";' }]);
    expect(parseMarkdown('    indented *x*\n    line2')).toEqual([{ type: 'code', lang: '', text: 'indented *x*\nline2' }]);
  });

  it('treats HTML as text (the DOM renderer never parses it)', () => {
    expect(parseMarkdown('<img src=x onerror=alert(1)>')).toEqual([
      { type: 'paragraph', children: [{ type: 'text', text: '<img src=x onerror=alert(1)>' }] },
    ]);
  });

  it('reads quotes and rules, and survives deep nesting without recursion blow-up', () => {
    expect(parseMarkdown('> quoted\n\n---')).toEqual([
      { type: 'quote', children: [{ type: 'paragraph', children: [{ type: 'text', text: 'quoted' }] }] },
      { type: 'rule' },
    ]);
    const deep = parseMarkdown('>'.repeat(5000) + ' x');
    expect(deep.length).toBe(1);
  });
});

describe('parseInline', () => {
  it('reads bold, italic, code and backslash escapes (as mammoth writes them)', () => {
    expect(parseInline('**bold** and *it* and `c*d` and 1\\. not a list')).toEqual([
      { type: 'strong', children: [{ type: 'text', text: 'bold' }] },
      { type: 'text', text: ' and ' },
      { type: 'em', children: [{ type: 'text', text: 'it' }] },
      { type: 'text', text: ' and ' },
      { type: 'code', text: 'c*d' },
      { type: 'text', text: ' and 1. not a list' },
    ]);
    expect(parseInline('snake_case_name')).toEqual([{ type: 'text', text: 'snake_case_name' }]);
    expect(parseInline('a * b * c')).toEqual([{ type: 'text', text: 'a * b * c' }]);
  });

  it('links only http(s) and mailto targets; others keep their text', () => {
    expect(parseInline('[site](https://example.com)')).toEqual([{ type: 'link', href: 'https://example.com', children: [{ type: 'text', text: 'site' }] }]);
    expect(parseInline('[x](javascript:alert(1))')).toEqual([{ type: 'text', text: 'x)' }]);
    expect(safeHref(' JAVASCRIPT:alert(1)')).toBeNull();
    expect(safeHref('data:text/html,x')).toBeNull();
    expect(safeHref('mailto:a@b.c')).toBe('mailto:a@b.c');
  });
});

describe('block line readers', () => {
  const line = fc.array(fc.constantFrom(' ', '  ', '\t', '#', '##', '-', '*', '_', '|', ':', 'a'), { maxLength: 16 }).map((xs) => xs.join(''));

  it('read headings, rules and table separators exactly as the earlier regexes did', () => {
    fc.assert(
      fc.property(line, (l) => {
        const old = OLD_HEADING.exec(l);
        expect(heading(l)).toEqual(old ? { level: (old[1] ?? '').length, text: old[2] ?? '' } : null);
        expect(isRule(l)).toBe(OLD_RULE.test(l));
        expect(isTableSeparator(l)).toBe(OLD_TABLE_SEP.test(l));
      }),
      { numRuns: 5000 },
    );
  });

  it('read 1 MiB lines of spaces and markers (quadratic for the regexes) with the right result', () => {
    const spaces = ' '.repeat(1 << 20);
    expect(parseMarkdown(`# a${spaces}b`)).toEqual([{ type: 'heading', level: 1, children: [{ type: 'text', text: `a${spaces}b` }] }]);
    expect(parseMarkdown(`*${' *'.repeat(1 << 19)} x`)).toHaveLength(1);
    expect(parseMarkdown(`a${spaces}b\nc`)).toEqual([{ type: 'paragraph', children: [{ type: 'text', text: `a${spaces}b c` }] }]);
    const [table] = parseMarkdown(`a|b\n---${spaces}x`);
    expect(table?.type).toBe('paragraph');
  });
});
