import { describe, expect, it } from 'vitest';
import { countText, moreText } from './folder-preview-view.js';

const files = (n: number) => Array.from({ length: n }, (_, i) => ({ path: `f${i}`, size: 1 }));

describe('folder preview lines', () => {
  it('says how many files are not named, or nothing when all are', () => {
    expect(moreText({ files: files(200), total: 206, complete: true })).toBe('and 6 more');
    expect(moreText({ files: files(3), total: 3, complete: true })).toBeNull();
    expect(moreText({ files: files(200), total: 1234567, complete: true })).toBe('and 1,234,367 more');
  });

  it('says "more than" when the server stopped counting', () => {
    expect(moreText({ files: files(200), total: 20000, complete: false })).toBe('and more than 19,800 more');
    expect(countText({ total: 20000, complete: false })).toBe('At least 20,000 files');
  });

  it('counts in the singular and plural', () => {
    expect(countText({ total: 1, complete: true })).toBe('1 file');
    expect(countText({ total: 206, complete: true })).toBe('206 files');
  });
});
