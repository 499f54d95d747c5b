import { describe, expect, it } from 'vitest';
import { parseMarkdown } from './markdown.js';
import { parseInline, type WorkMeter } from './markdown-inline.js';
import { lineTables, mathBlock, MAX_MATH_CHARS } from './markdown-math.js';

const math = (tex: string, display = false) => ({ type: 'math', tex, display });

describe('inline math', () => {
  it('reads $…$, $$…$$, \\(…\\) and \\[…\\]', () => {
    expect(parseInline('Energy: $E = mc^2$.')).toEqual([{ type: 'text', text: 'Energy: ' }, math('E = mc^2'), { type: 'text', text: '.' }]);
    expect(parseInline('$$\\sum_i x_i$$')).toEqual([math('\\sum_i x_i', true)]);
    expect(parseInline('so \\(a^2 + b^2\\) holds')).toEqual([{ type: 'text', text: 'so ' }, math('a^2 + b^2'), { type: 'text', text: ' holds' }]);
    expect(parseInline('\\[\\int_0^1 f\\]')).toEqual([math('\\int_0^1 f', true)]);
  });

  it('keeps prices and lone dollars as text', () => {
    expect(parseInline('$5 and $10')).toEqual([{ type: 'text', text: '$5 and $10' }]);
    expect(parseInline('It costs $5, or $ 10 with tax $')).toEqual([{ type: 'text', text: 'It costs $5, or $ 10 with tax $' }]);
    expect(parseInline('from $5 to $10 per $unit')).toEqual([{ type: 'text', text: 'from $5 to $10 per $unit' }]);
    expect(parseInline('$x $')).toEqual([{ type: 'text', text: '$x $' }]);
    expect(parseInline('$x$5')).toEqual([{ type: 'text', text: '$x$5' }]);
    expect(parseInline('$$$ and $$')).toEqual([{ type: 'text', text: '$$$ and $$' }]);
    expect(parseInline('\\$x\\$ stays')).toEqual([{ type: 'text', text: '$x$ stays' }]);
    expect(parseInline('\\(unclosed')).toEqual([{ type: 'text', text: '(unclosed' }]);
  });

  it('keeps math inside code spans as code, and emphasis markers inside math as TeX', () => {
    expect(parseInline('`$x$` and $a*b*c$')).toEqual([{ type: 'code', text: '$x$' }, { type: 'text', text: ' and ' }, math('a*b*c')]);
    expect(parseInline('*see $x_1$*')).toEqual([{ type: 'em', children: [{ type: 'text', text: 'see ' }, math('x_1')] }]);
  });

  it(`leaves a formula longer than ${MAX_MATH_CHARS} characters as text`, () => {
    const long = `$${'x'.repeat(MAX_MATH_CHARS + 1)}$`;
    expect(parseInline(long)).toEqual([{ type: 'text', text: long }]);
    expect(parseInline(`$${'x'.repeat(MAX_MATH_CHARS)}$`)).toEqual([math('x'.repeat(MAX_MATH_CHARS))]);
  });
});

describe('displayed math blocks', () => {
  it('reads $$ and \\[ blocks over several lines, also right after a paragraph', () => {
    expect(parseMarkdown('The formula:\n$$\nE = mc^2\n$$\nafter')).toEqual([
      { type: 'paragraph', children: [{ type: 'text', text: 'The formula:' }] },
      { type: 'math', tex: 'E = mc^2' },
      { type: 'paragraph', children: [{ type: 'text', text: 'after' }] },
    ]);
    expect(parseMarkdown('\\[\na \\\\\nb\n\\]')).toEqual([{ type: 'math', tex: 'a \\\\\nb' }]);
    expect(parseMarkdown('$$x^2$$')).toEqual([{ type: 'math', tex: 'x^2' }]);
  });

  it('keeps code fences verbatim and an unclosed $$ as text', () => {
    expect(parseMarkdown('```\n$$\nx\n$$\n```')).toEqual([{ type: 'code', lang: '', text: '$$\nx\n$$' }]);
    expect(parseMarkdown('$$ unclosed\nline')).toEqual([{ type: 'paragraph', children: [{ type: 'text', text: '$$ unclosed line' }] }]);
  });

  it('treats HTML and \\href inside math as TeX source, never as markup or a link', () => {
    const [p] = parseMarkdown('$\\href{javascript:alert(1)}{x}$ and $<img src=x onerror=alert(1)>$');
    expect(p).toEqual({
      type: 'paragraph',
      children: [math('\\href{javascript:alert(1)}{x}'), { type: 'text', text: ' and ' }, math('<img src=x onerror=alert(1)>')],
    });
  });
});

describe('math on hostile input stays linear', () => {
  const steps = (src: string) => {
    const meter: WorkMeter = { steps: 0 };
    parseInline(src, 0, meter);
    return meter.steps;
  };
  const hostile: Record<string, (n: number) => string> = {
    'unclosed openers': (n) => '$a '.repeat(n / 3),
    'openers before one far closer': (n) => '$a'.repeat(n / 2 - 1) + 'b$',
    'double dollars': (n) => '$$a'.repeat(n / 3),
    'unclosed \\(': (n) => '\\(a'.repeat(n / 3),
    'closers only': (n) => 'a\\)'.repeat(n / 3),
    'prices': (n) => '$5 '.repeat(n / 3),
  };
  for (const [name, make] of Object.entries(hostile)) {
    it(`within 12 steps a character at 60 KB and 1 MiB: ${name}`, () => {
      for (const size of [60_000, 1 << 20]) {
        const src = make(size);
        expect(steps(src)).toBeLessThanOrEqual(12 * src.length);
      }
    });
  }

  it('reads 100,000 unclosed (or overlong) $$ lines touching each line a constant number of times', () => {
    // Each opener's closing line is far below, past MAX_MATH_CHARS: joining up to it per opener would be quadratic.
    const raw = [...Array.from({ length: 100_000 }, () => '$$ a'), '$$'];
    let reads = 0;
    const lines = new Proxy(raw, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const tables = lineTables(lines);
    let found = 0;
    // As parseMarkdown walks: past a formula when one is found, else to the next line.
    for (let i = 0; i < raw.length; ) {
      const block = mathBlock(lines, i, tables);
      if (block) found++;
      i = block ? block.next : i + 1;
    }
    // Only the first opener within MAX_MATH_CHARS of the closing line makes a formula (of the lines after it).
    expect(found).toBe(1);
    expect(reads).toBeLessThanOrEqual(8 * raw.length);
    const blocks = parseMarkdown(raw.join('\n'));
    expect(blocks.filter((b) => b.type === 'math')).toHaveLength(1);
    expect(blocks.every((b) => b.type !== 'math' || b.tex.length <= MAX_MATH_CHARS)).toBe(true);
  });
});
