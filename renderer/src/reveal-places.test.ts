import { describe, expect, it } from 'vitest';
import { mayHoldMask, placeMasks } from './reveal-places.js';

const SERVED = 'Try:\n```\nPOSTGRES_PASSWORD=***\nGITHUB_TOKEN=ghp_Q7...VbNm\n```\n**Done**';
const masks = [SERVED.indexOf('***'), SERVED.indexOf('ghp_')].map((start, i) => ({ start, end: start + (i === 0 ? 3 : 13) }));

describe('placeMasks', () => {
  it('finds each mask in the drawn text nodes, in order', () => {
    const nodes = ['Try:', 'POSTGRES_PASSWORD=***\nGITHUB_TOKEN=ghp_Q7...VbNm\n', 'Done'];
    expect(placeMasks(SERVED, masks, nodes)).toEqual([
      { node: 1, offset: 18, length: 3, start: masks[0]!.start },
      { node: 1, offset: 35, length: 13, start: masks[1]!.start },
    ]);
  });

  it('finds a second mask of the same characters after the first', () => {
    const text = 'a *** b PASSWORD=*** c';
    const second = [{ start: text.lastIndexOf('***'), end: text.lastIndexOf('***') + 3 }];
    // Two masks with the same characters: the second is looked for after the first.
    expect(placeMasks(text, [{ start: 2, end: 5 }, ...second], ['a *** b PASSWORD=*** c'])).toEqual([
      { node: 0, offset: 2, length: 3, start: 2 },
      { node: 0, offset: 17, length: 3, start: second[0]!.start },
    ]);
  });

  it('leaves out a mask Markdown split across nodes or did not draw', () => {
    const text = 'key ghp_Q7...VbNm end';
    expect(placeMasks(text, [{ start: 4, end: 17 }], ['key ghp', '_Q7...VbNm end'])).toEqual([]);
    expect(placeMasks(text, [{ start: 4, end: 17 }], ['nothing here'])).toEqual([]);
  });
});

describe('mayHoldMask', () => {
  it('asks only about texts with a mask shape', () => {
    expect(mayHoldMask('PASSWORD=***')).toBe(true);
    expect(mayHoldMask('sk-abc...wxyz')).toBe(true);
    expect(mayHoldMask('[REDACTED PRIVATE KEY]')).toBe(true);
    expect(mayHoldMask('Plain words, nothing masked.')).toBe(false);
  });
});
