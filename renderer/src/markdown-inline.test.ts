import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { inlineText, MAX_DEPTH, parseCommonMark, parseInline, type Inline, type WorkMeter } from './markdown-inline.js';

const md = new MarkdownIt();

/** markdown-it's inline tokens as our tree, for the emphasis and code constructs both implement. */
function reference(src: string): Inline[] {
  const root: Inline[] = [];
  const stack: Inline[][] = [root];
  const push = (node: Inline) => {
    const out = stack[stack.length - 1] as Inline[];
    const last = out[out.length - 1];
    if (node.type === 'text' && last?.type === 'text') last.text += node.text;
    else out.push(node);
  };
  for (const t of md.parseInline(src, {})[0]?.children ?? []) {
    if (t.type === 'em_open' || t.type === 'strong_open') {
      const node: Inline = { type: t.type === 'em_open' ? 'em' : 'strong', children: [] };
      push(node);
      stack.push(node.children);
    } else if (t.type === 'em_close' || t.type === 'strong_close') stack.pop();
    else if (t.type === 'code_inline') push({ type: 'code', text: t.content });
    else if (t.content) push({ type: 'text', text: t.content });
  }
  return root;
}

function depthOf(nodes: Inline[]): number {
  return Math.max(0, ...nodes.map((n) => ('children' in n ? 1 + depthOf(n.children) : 0)));
}

describe('parseInline emphasis (CommonMark delimiter stack)', () => {
  it('nests emphasis exactly as markdown-it does, on random runs of * _ ` \\ letters, spaces and punctuation', () => {
    const line = fc.array(fc.constantFrom('*', '**', '***', '_', '__', 'a', 'b', ' ', '.', '!', '`', '``', '\\'), { maxLength: 24 }).map((xs) => xs.join('').trim());
    fc.assert(
      fc.property(line, (src) => {
        if (depthOf(reference(src)) > MAX_DEPTH) return;
        expect(parseCommonMark(src)).toEqual(reference(src));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads the CommonMark examples mammoth output relies on', () => {
    expect(parseInline('***both***')).toEqual([{ type: 'em', children: [{ type: 'strong', children: [{ type: 'text', text: 'both' }] }] }]);
    expect(parseInline('*a **b** c*')).toEqual([
      { type: 'em', children: [{ type: 'text', text: 'a ' }, { type: 'strong', children: [{ type: 'text', text: 'b' }] }, { type: 'text', text: ' c' }] },
    ]);
    expect(parseInline('__init__ and _x_')).toEqual([
      { type: 'strong', children: [{ type: 'text', text: 'init' }] },
      { type: 'text', text: ' and ' },
      { type: 'em', children: [{ type: 'text', text: 'x' }] },
    ]);
    expect(parseInline('\\*not\\* *yes*')).toEqual([{ type: 'text', text: '*not* ' }, { type: 'em', children: [{ type: 'text', text: 'yes' }] }]);
  });

  it('flattens emphasis nested deeper than MAX_DEPTH back to its markers, keeping every character', () => {
    const src = '*'.repeat(1000) + 'x' + '*'.repeat(1000);
    const nodes = parseInline(src);
    expect(depthOf(nodes)).toBe(MAX_DEPTH);
    // The outer MAX_DEPTH levels (strong, two markers a side) are elements; the rest is text again.
    const inner = '*'.repeat(1000 - 2 * MAX_DEPTH);
    expect(inlineText(nodes)).toBe(`${inner}x${inner}`);
  });
});

describe('parseInline and the redactor\'s masks', () => {
  it('shows `***` masks as they are: two on a line do not turn the text between them italic', () => {
    expect(parseInline('{"user": "***", "password": "***"}')).toEqual([{ type: 'text', text: '{"user": "***", "password": "***"}' }]);
    expect(parseInline('Authorization: Bearer *** then key=***.')).toEqual([{ type: 'text', text: 'Authorization: Bearer *** then key=***.' }]);
    // What CommonMark makes of the first line: the mask's stars become emphasis markers and vanish.
    expect(inlineText(parseCommonMark('{"user": "***", "password": "***"}'))).not.toContain('***');
  });

  it('shows a phone number\'s `****` as it is, and still reads stars next to a word as emphasis', () => {
    expect(parseInline('call 0171****4567 or 0172****4568')).toEqual([{ type: 'text', text: 'call 0171****4567 or 0172****4568' }]);
    expect(parseInline('***both*** and "***"')).toEqual([
      { type: 'em', children: [{ type: 'strong', children: [{ type: 'text', text: 'both' }] }] },
      { type: 'text', text: ' and "***"' },
    ]);
    expect(parseInline('[see "***" and "***"](https://x.test)')).toEqual([{ type: 'link', href: 'https://x.test', children: [{ type: 'text', text: 'see "***" and "***"' }] }]);
  });
});

describe('parseInline code spans and links', () => {
  it('closes a code span only with a run of the same length', () => {
    expect(parseInline('``a ` b`` c')).toEqual([{ type: 'code', text: 'a ` b' }, { type: 'text', text: ' c' }]);
    expect(parseInline('`a``b`')).toEqual([{ type: 'code', text: 'a``b' }]);
    expect(parseInline('`open only')).toEqual([{ type: 'text', text: '`open only' }]);
    expect(parseInline('*a `*` b*')).toEqual([{ type: 'em', children: [{ type: 'text', text: 'a ' }, { type: 'code', text: '*' }, { type: 'text', text: ' b' }] }]);
  });

  it('reads links with a title, and keeps unsafe or broken ones as text', () => {
    expect(parseInline('[a *b*](https://x.test/p "T") z')).toEqual([
      { type: 'link', href: 'https://x.test/p', children: [{ type: 'text', text: 'a ' }, { type: 'em', children: [{ type: 'text', text: 'b' }] }] },
      { type: 'text', text: ' z' },
    ]);
    expect(parseInline('[a](data:text/html,x)')).toEqual([{ type: 'text', text: 'a' }]);
    expect(parseInline('[a](https://x "t" y)')).toEqual([{ type: 'text', text: '[a](https://x "t" y)' }]);
    expect(parseInline('[a] (https://x)')).toEqual([{ type: 'text', text: '[a] (https://x)' }]);
  });
});

describe('parseInline work on hostile lines', () => {
  const hostile: Record<string, (n: number) => string> = {
    'unmatched *': (n) => '*a '.repeat(n / 3),
    'unmatched _': (n) => '_a '.repeat(n / 3),
    'alternating openers': (n) => '*_'.repeat(n / 2),
    'rule-of-3 closers': (n) => 'a**'.repeat(n / 6) + '*a'.repeat(n / 6),
    'nested openers': (n) => '*'.repeat(n / 2) + 'a*'.repeat(n / 4),
    'unclosed code spans': (n) => '` ``'.repeat(n / 4),
    'open brackets': (n) => '['.repeat(n),
    'unclosed links': (n) => '[a](b'.repeat(n / 5),
    'links missing the parenthesis': (n) => '[a]'.repeat(n / 3),
  };
  const steps = (src: string) => {
    const meter: WorkMeter = { steps: 0 };
    parseInline(src, 0, meter);
    return meter.steps;
  };

  for (const [name, make] of Object.entries(hostile)) {
    it(`stays within 12 steps a character, at 60 KB and at 1 MiB: ${name}`, () => {
      const small = make(60_000);
      const large = make(1 << 20);
      expect(steps(small)).toBeLessThanOrEqual(12 * small.length);
      expect(steps(large)).toBeLessThanOrEqual(12 * large.length);
    });
  }
});
