// Layer 1: bytes → lines, whatever the chunking and whichever line end.
import { describe, expect, it } from 'vitest';
import { AgentError } from '../types.js';
import { LineDecoder, MAX_LINE_BYTES } from './lines.js';

describe('LineDecoder', () => {
  it('a line over the cap is an error, not an unbounded buffer', () => {
    const splitter = new LineDecoder(16);
    expect([...splitter.push(Buffer.from('short\n'))]).toEqual(['short']);
    expect(() => [...splitter.push(Buffer.from('x'.repeat(17)))]).toThrow(AgentError);
    expect(MAX_LINE_BYTES).toBe(4 * 1024 * 1024);
  });
  it('splits lines across chunks and multibyte characters', () => {
    const splitter = new LineDecoder();
    const bytes = Buffer.from('data: é☃\r\nnext\n');
    const lines = [...splitter.push(bytes.subarray(0, 8)), ...splitter.push(bytes.subarray(8))];
    expect(lines).toEqual(['data: é☃', 'next']);
  });
  it('ends a line at CR, LF or CRLF, also when the CR and the LF come in different chunks', () => {
    const decoder = new LineDecoder();
    const lines = [...decoder.push(Buffer.from('a\rb\nc\r')), ...decoder.push(Buffer.from('\nd\r\n\r')), ...decoder.push(Buffer.from('e'))];
    // The LF after the chunk-ending CR is that line's end, not an empty line; the lone CR before `e` is one.
    expect(lines).toEqual(['a', 'b', 'c', 'd', '']);
    expect(decoder.end()).toBe('e');
    expect(decoder.end()).toBeUndefined();
  });
});
