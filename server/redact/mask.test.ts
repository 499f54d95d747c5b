// cutsIntoMask looks at a handful of places instead of searching the rest of the text (that search made every
// assignment in a 1 MiB run re-read the text: quadratic, issue 25). Its answer must be what the definition gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutsIntoMask, isMask, MASK_ELLIPSIS, MASK_HEAD, MASK_TAIL } from './mask.js';

/** The definition, by brute force: a whole mask that begins before `start` has its ellipsis inside the span. */
function cutsIntoMaskByDefinition(text: string, start: number, end: number): boolean {
  for (let dots = start; dots < end; dots++) {
    if (!text.startsWith(MASK_ELLIPSIS, dots)) continue;
    const maskStart = dots - MASK_HEAD;
    const maskEnd = dots + MASK_ELLIPSIS.length + MASK_TAIL;
    if (maskStart >= 0 && maskStart < start && maskEnd <= end && isMask(text.slice(maskStart, maskEnd))) return true;
  }
  return false;
}

// Masks, near-masks, ellipses and the characters around values: the places where the answer changes.
const PIECES = ['...', '....', '.', 'ghp_Q7', 'VbNm', 'abcdef...wxyz', 'TOKEN=', '=', '-----END', '😀', 'é', 'x', ' ', '\n', '***'];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 16 }).map((parts) => parts.join(''));

describe('cutsIntoMask', () => {
  it('gives the answer of its definition for every span of mask-laden text', () => {
    fc.assert(
      fc.property(text, (t) => {
        for (let start = 0; start <= t.length; start++) {
          for (let end = start; end <= t.length; end++) {
            expect(cutsIntoMask(t, start, end), `${JSON.stringify(t)} [${start}, ${end})`).toBe(cutsIntoMaskByDefinition(t, start, end));
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('finds the rest of a mask that began before the span, and nothing else', () => {
    const t = 'TOKEN=abcdef...wxyz-----END';
    expect(cutsIntoMask(t, t.indexOf('...'), t.length)).toBe(true); // `...wxyz-----END`: the rest of a mask
    expect(cutsIntoMask(t, 'TOKEN=abc'.length, t.length)).toBe(true);
    expect(cutsIntoMask(t, t.indexOf('...') + 1, t.length)).toBe(false); // no ellipsis left in the span
    expect(cutsIntoMask(t, 'TOKEN='.length, t.length)).toBe(false); // the whole mask is the span's own value
    expect(cutsIntoMask(t, 'TOKEN=abc'.length, 'TOKEN=abcdef...wxy'.length)).toBe(false); // ends before the mask does
  });
});
