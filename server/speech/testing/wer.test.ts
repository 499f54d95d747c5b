import { describe, expect, it } from 'vitest';
import { editDistance, normalizeWords, wordErrorRate } from './wer.js';

describe('normalizeWords', () => {
  it('lower-cases, drops punctuation, keeps inner apostrophes and splits hyphens', () => {
    expect(normalizeWords('"Don’t" STOP, quick-brown fox!  ')).toEqual(["don't", 'stop', 'quick', 'brown', 'fox']);
  });
  it('returns nothing for punctuation only', () => {
    expect(normalizeWords(' ... !? ')).toEqual([]);
  });
});

describe('editDistance', () => {
  it('counts substitutions, insertions and deletions', () => {
    expect(editDistance(['a', 'b', 'c'], ['a', 'b', 'c'])).toBe(0);
    expect(editDistance(['a', 'b', 'c'], ['a', 'x', 'c'])).toBe(1);
    expect(editDistance(['a', 'b', 'c'], ['a', 'c'])).toBe(1);
    expect(editDistance(['a', 'b'], ['a', 'b', 'c', 'd'])).toBe(2);
    expect(editDistance([], ['a'])).toBe(1);
    expect(editDistance(['a', 'b'], [])).toBe(2);
    expect(editDistance(['kitten', 'sat'], ['sat', 'kitten'])).toBe(2);
  });
});

describe('wordErrorRate', () => {
  it('is 0 for the same words in another case and punctuation', () => {
    expect(wordErrorRate('The quick brown fox.', 'the QUICK brown fox')).toBe(0);
  });
  it('divides the edit distance by the reference length', () => {
    expect(wordErrorRate('one two three four', 'one too three')).toBe(0.5);
    expect(wordErrorRate('a b', 'x y z w')).toBe(2);
  });
  it('handles empty references', () => {
    expect(wordErrorRate('', '')).toBe(0);
    expect(wordErrorRate('', 'noise')).toBe(1);
    expect(wordErrorRate('hello', '')).toBe(1);
  });
});
