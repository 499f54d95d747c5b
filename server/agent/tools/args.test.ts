// A tool call's arguments and page ranges as the agent may write them: every bad one a sentence, never a throw,
// and a huge range refused before it is expanded.
import { describe, expect, it } from 'vitest';
import { parseArgs, toolPreview } from './args.js';
import { MAX_ARGUMENT_CHARS, MAX_PAGES_PER_READ } from './limits.js';
import { BAD_RANGE, parsePages, TOO_MANY_PAGES } from './pages.js';
import { escapesByName } from './workspace-files.js';

describe('tool arguments', () => {
  it('are a JSON object, or a sentence saying what is wrong', () => {
    expect(parseArgs('{"name":"a.pdf"}')).toEqual({ name: 'a.pdf' });
    expect(parseArgs('')).toEqual({});
    expect(parseArgs('{oops')).toMatch(/^Refused: the arguments are not valid JSON/);
    expect(parseArgs('[1,2]')).toBe('Refused: the arguments must be a JSON object.');
    expect(parseArgs('"x"')).toBe('Refused: the arguments must be a JSON object.');
    expect(parseArgs(`{"name":"${'a'.repeat(MAX_ARGUMENT_CHARS)}"}`)).toMatch(/^Refused: the arguments are longer than/);
    expect(toolPreview('read_file', '{"name":"a.pdf","pages":"2-3"}')).toBe('a.pdf, pages 2-3');
    expect(toolPreview('read_file', '{broken')).toBe('');
  });

  it('page ranges: a page, a range, a list; a huge or malformed one refused without expanding it', () => {
    expect(parsePages('2')).toEqual([2]);
    expect(parsePages('2-3')).toEqual([2, 3]);
    expect(parsePages('2–4, 1')).toEqual([1, 2, 3, 4]);
    expect(parsePages(5)).toEqual([5]);
    expect(parsePages(`1-${MAX_PAGES_PER_READ}`)).toHaveLength(MAX_PAGES_PER_READ);
    expect(parsePages(`1-${MAX_PAGES_PER_READ + 1}`)).toBe(TOO_MANY_PAGES);
    expect(parsePages('1-100000')).toBe(TOO_MANY_PAGES);
    expect(parsePages(Array.from({ length: MAX_PAGES_PER_READ + 1 }, (_, i) => i + 1).join(','))).toBe(TOO_MANY_PAGES);
    for (const bad of ['', '0', '3-2', 'two', '1-', '-1', '1e9', '2; rm', null, {}, '99999999']) expect(parsePages(bad), String(bad)).toBe(BAD_RANGE);
  });

  it('a name reaching out by its letters is known before the disk is asked', () => {
    for (const out of ['../x', 'a/../../b', '/etc/passwd', '~/.ssh/id_rsa', 'C:\\Windows', '..\\x', '\\\\server\\share']) expect(escapesByName(out), out).toBe(true);
    for (const inside of ['notes/plan.md', 'report.pdf', '..config.txt', 'a..b']) expect(escapesByName(inside), inside).toBe(false);
  });
});
