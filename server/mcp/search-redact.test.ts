import { describe, expect, it } from 'vitest';
import { redact } from '../redact/index.js';
import { maskMayMatch, MAX_SEARCH_REDACT_CHARS, SearchRedaction } from './search-redact.js';

const KEY = 'ghp_Q7aB9cD2eF4gH6jK8mN0pQ3rS5tU7vW9xY1z';

describe('MCP search: redaction only where the query can be', () => {
  it('a file without the query is not redacted, and spends nothing of the budget', () => {
    const r = new SearchRedaction('invoice');
    expect(r.text(`notes ${KEY} `.repeat(1000))).toBe('');
    expect(r.redactedChars).toBe(0);
  });

  it('a file with the query is matched redacted: a key holding the query gives no hit', () => {
    const r = new SearchRedaction('q7ab9');
    const text = r.text(`the token is ${KEY} here`);
    expect(text).toBe(redact(`the token is ${KEY} here`));
    expect(text!.toLowerCase()).not.toContain('q7ab9');
    expect(r.redactedChars).toBe(`the token is ${KEY} here`.length);
  });

  it("a query that a mask can make (its marks, its words) redacts every file, so a hit on the mask's text is found", () => {
    for (const needle of ['...', 'ab...6', '***', 'redacted', 'private key', '[', 'x\\_y']) expect(maskMayMatch(needle)).toBe(true);
    for (const needle of ['invoice', 'ghp_', 'q7ab9', '0', 'key=']) expect(maskMayMatch(needle)).toBe(false);
    const r = new SearchRedaction('...');
    expect(r.text(`plain ${KEY}`)).toContain('...');
  });

  it('past the budget the search is told to stop instead of redacting on', () => {
    const r = new SearchRedaction('zero', 100);
    expect(r.text('zero '.repeat(15))).toBe('zero '.repeat(15));
    expect(r.text('zero '.repeat(10))).toBeUndefined();
    expect(new SearchRedaction('x').text('x')).toBe('x');
    expect(MAX_SEARCH_REDACT_CHARS).toBeLessThan(32 * 1024 * 1024);
  });
});
