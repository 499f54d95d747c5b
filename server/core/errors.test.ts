import { describe, expect, it } from 'vitest';
import { requireFields, sanitizeErrorText, ValueError } from './errors.js';

describe('sanitizeErrorText', () => {
  it.each([
    ["ENOENT: no such file or directory, open '/home/ana/secret/plan.txt'", "ENOENT: no such file or directory, open '<path>'"],
    ['failed at /var/lib/satchel/x.json: bad', 'failed at <path>: bad'],
    ['cannot read C:\\Users\\ana\\file.txt now', 'cannot read <path> now'],
    ['share \\\\server\\share\\dir\\f.txt gone', 'share <path> gone'],
    ['plain text, a/b relative and 1/2 ratio', 'plain text, a/b relative and 1/2 ratio'],
    ['Archive has too many files (> 10000). Possible archive bomb.', 'Archive has too many files (> 10000). Possible archive bomb.'],
  ])('%s', (input, expected) => {
    expect(sanitizeErrorText(input)).toBe(expected);
  });
});

describe('requireFields', () => {
  it('judges falsiness as Python does: empty lists and objects are missing, 0 is present', () => {
    expect(() => requireFields({ a: [], b: {}, c: [0], d: { k: 1 }, e: 0, f: -0 }, ['a', 'b', 'c', 'd', 'e', 'f'])).toThrow(
      new ValueError('Missing required field(s): a, b'),
    );
  });

  it('accepts the number 0 and reports every falsy field in order', () => {
    expect(() => requireFields({ a: 0, b: 'x' }, ['a', 'b'])).not.toThrow();
    expect(() => requireFields({ a: '', b: null, c: false, d: 'ok' }, ['a', 'b', 'c', 'd', 'e'])).toThrow(
      new ValueError('Missing required field(s): a, b, c, e'),
    );
  });
});
