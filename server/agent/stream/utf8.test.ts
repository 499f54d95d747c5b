import { describe, expect, it } from 'vitest';
import { prefixWithinBytes } from './utf8.js';

describe('prefixWithinBytes', () => {
  it('cuts at a byte bound without splitting a character', () => {
    expect(prefixWithinBytes('abc', 10)).toBe('abc');
    expect(prefixWithinBytes('aé€😀', 3)).toBe('aé');
    expect(prefixWithinBytes('aé€😀', 6)).toBe('aé€');
    expect(prefixWithinBytes('aé€😀', 9)).toBe('aé€');
    expect(prefixWithinBytes('aé€😀', 10)).toBe('aé€😀');
    expect(prefixWithinBytes('x', 0)).toBe('');
  });
});
