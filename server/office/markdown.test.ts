import { describe, expect, it } from 'vitest';
import { capPreview, escapeInline, escapeLineStarts, joinBlocks, table, tableCell } from './markdown.js';

describe('markdown helpers', () => {
  it('escapes inline syntax', () => {
    expect(escapeInline('a*b_c`d[e]f<g>\\h|i')).toBe('a\\*b\\_c\\`d\\[e\\]f\\<g>\\\\h|i');
  });

  it('escapes block markers only where they would start a block', () => {
    expect(escapeLineStarts('# h\n#tag\n> q\n- item\n-5\n+ x\n1. one\n2020 was\n---\n===\n12) x')).toBe(
      '\\# h\n#tag\n\\> q\n\\- item\n-5\n\\+ x\n1\\. one\n2020 was\n\\---\n\\===\n12\\) x',
    );
  });

  it('makes table cells one line with pipes escaped', () => {
    expect(tableCell('  a |\n b\t*c*  ')).toBe('a \\| b \\*c\\*');
  });

  it('pads short rows to the widest', () => {
    expect(table([['a'], ['b', 'c', 'd'], []])).toBe('| a | | |\n| --- | --- | --- |\n| b | c | d |\n| | | |');
  });

  it('joins non-empty blocks with blank lines and ends with one newline', () => {
    expect(joinBlocks(['a', '', '  ', 'b'])).toBe('a\n\nb\n');
    expect(joinBlocks([])).toBe('');
  });

  it('caps the preview without splitting a surrogate pair', () => {
    expect(capPreview('abc', 3)).toBe('abc');
    expect(capPreview('abcd', 3)).toBe('abc\n\n*[Preview truncated at 3 characters]*\n');
    expect(capPreview('ab\ncd', 3)).toBe('ab\n\n*[Preview truncated at 3 characters]*\n');
    expect(capPreview('ab😀cd', 3)).toBe('ab\n\n*[Preview truncated at 3 characters]*\n');
    expect(capPreview('a'.repeat(5000), 4000)).toBe(`${'a'.repeat(4000)}\n\n*[Preview truncated at 4,000 characters]*\n`);
  });
});
