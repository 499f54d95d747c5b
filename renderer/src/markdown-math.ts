// Where math starts and ends in a line of Markdown, in time linear in the line: `$…$` and `\(…\)` inline,
// `$$…$$` and `\[…\]` displayed. The text between is TeX for KaTeX (math-view.ts), never HTML.
// A single `$` follows the usual rule, so prices stay text ("$5 and $10"): no space after the opening `$`,
// none before the closing one, and the closing `$` not followed by a digit.
// Every closer is found through a position list per kind, built once per line on the first opener and walked
// by a cursor that only moves forward (openers are met left to right), as backtickRuns does for code spans.
import type { WorkMeter } from './markdown-inline.js';

/**
 * The longest TeX typeset. KaTeX's parse and layout grow with the expression; an agent's formula is a few
 * hundred characters, a page of aligned equations a few thousand. Longer stays source text: one reply cannot
 * keep the page busy typesetting.
 */
export const MAX_MATH_CHARS = 8_000;

export interface MathSpan {
  tex: string;
  display: boolean;
  /** Index just after the closing delimiter. */
  end: number;
}

const WHITESPACE = /\s/;
const DIGIT = /[0-9]/;

type Kind = 'dollar' | 'double' | 'paren' | 'bracket';

/** Positions of every closer of each kind, in order (escaped dollars, `\$`, are neither opener nor closer). */
function closers(src: string, meter: WorkMeter): Record<Kind, number[]> {
  const found: Record<Kind, number[]> = { dollar: [], double: [], paren: [], bracket: [] };
  for (let i = 0; i < src.length; ) {
    meter.steps++;
    const c = src[i];
    if (c === '\\') {
      const next = src[i + 1];
      if (next === ')') found.paren.push(i);
      else if (next === ']') found.bracket.push(i);
      i += 2;
      continue;
    }
    if (c !== '$') {
      i++;
      continue;
    }
    let j = i;
    while (src[j] === '$') j++;
    meter.steps += j - i;
    if (j - i === 2) found.double.push(i);
    else if (j - i === 1 && i > 0 && !WHITESPACE.test(src[i - 1] ?? ' ') && !DIGIT.test(src[j] ?? '')) found.dollar.push(i);
    i = j;
  }
  return found;
}

/** A function telling, for a `$` or a `\` at a position, the math that starts there (or null). */
export function mathScanner(src: string, meter: WorkMeter): (at: number) => MathSpan | null {
  let lists: Record<Kind, number[]> | null = null;
  const cursor: Record<Kind, number> = { dollar: 0, double: 0, paren: 0, bracket: 0 };
  /** The first closer of a kind at or after `from`, or -1. */
  const next = (kind: Kind, from: number): number => {
    lists ??= closers(src, meter);
    const list = lists[kind];
    let k = cursor[kind];
    while (k < list.length && (list[k] ?? 0) < from) {
      meter.steps++;
      k++;
    }
    cursor[kind] = k;
    return k < list.length ? list[k] ?? -1 : -1;
  };
  const span = (open: number, close: number, closeLength: number, display: boolean): MathSpan | null => {
    if (close === -1 || close - open > MAX_MATH_CHARS) return null;
    const tex = src.slice(open, close);
    return tex.trim() ? { tex, display, end: close + closeLength } : null;
  };
  return (at) => {
    const c = src[at];
    if (c === '\\') {
      const kind = src[at + 1] === '(' ? 'paren' : src[at + 1] === '[' ? 'bracket' : null;
      return kind ? span(at + 2, next(kind, at + 2), 2, kind === 'bracket') : null;
    }
    if (c !== '$') return null;
    let j = at;
    while (src[j] === '$') j++;
    if (j - at === 2) return span(j, next('double', j + 1), 2, true);
    if (j - at !== 1 || j >= src.length || WHITESPACE.test(src[j] ?? ' ')) return null;
    return span(j, next('dollar', j + 1), 1, false);
  };
}

/** A line that opens a displayed formula on lines of its own: `$$` or `\[` first (after spaces). */
export function mathBlockOpener(line: string): '$$' | '\\[' | null {
  const t = line.trimStart();
  return t.startsWith('$$') ? '$$' : t.startsWith('\\[') ? '\\[' : null;
}

const CLOSER_OF = { $$: '$$', '\\[': '\\]' } as const;

/** Lookups over a document's lines, each table built once on first use (see mathBlock). */
export interface LineTables {
  /** The first line at or after `from` that ends with the opener's closer (`$$` or `\]`), or -1. */
  nextClose(opener: '$$' | '\\[', from: number): number;
  /** Characters in lines [from, to), newlines included. */
  chars(from: number, to: number): number;
}

/**
 * A displayed formula starting at line `i`: `$$x$$` on one line, or `$$` … `$$` over several (likewise
 * `\[` … `\]`). The closing line and the formula's length come from tables built once per document, so a
 * hundred thousand unclosed (or overlong) `$$` lines stay linear: nothing is joined before it is known to fit.
 */
export function mathBlock(lines: readonly string[], i: number, tables: LineTables): { tex: string; next: number } | null {
  const line = lines[i] ?? '';
  const opener = mathBlockOpener(line);
  if (!opener) return null;
  const closer = CLOSER_OF[opener];
  const first = line.trim().slice(2);
  // One line: the closer ends it and appears nowhere before (`$$a$$ and $$b$$` is a paragraph of two).
  if (first.length >= 2 && first.endsWith(closer)) {
    const tex = first.slice(0, -2);
    return tex.includes(closer) || !tex.trim() || tex.length > MAX_MATH_CHARS ? null : { tex: tex.trim(), next: i + 1 };
  }
  if (first.includes(closer)) return null;
  const end = tables.nextClose(opener, i + 1);
  // Measured on the source lines (delimiters and indentation included), before anything is joined.
  if (end === -1 || tables.chars(i, end + 1) > MAX_MATH_CHARS) return null;
  const last = (lines[end] ?? '').trim().slice(0, -2);
  const tex = [first, ...lines.slice(i + 1, end), last].join('\n').trim();
  if (!tex) return null;
  return { tex, next: end + 1 };
}

export function lineTables(lines: readonly string[]): LineTables {
  let close: { $$: Int32Array; '\\[': Int32Array } | null = null;
  let prefix: Float64Array | null = null;
  return {
    nextClose(opener, from) {
      if (!close) {
        const dollars = new Int32Array(lines.length + 1).fill(-1);
        const brackets = new Int32Array(lines.length + 1).fill(-1);
        for (let k = lines.length - 1; k >= 0; k--) {
          const t = (lines[k] ?? '').trimEnd();
          dollars[k] = t.endsWith('$$') ? k : dollars[k + 1] ?? -1;
          brackets[k] = t.endsWith('\\]') ? k : brackets[k + 1] ?? -1;
        }
        close = { $$: dollars, '\\[': brackets };
      }
      return close[opener][from] ?? -1;
    },
    chars(from, to) {
      if (!prefix) {
        prefix = new Float64Array(lines.length + 1);
        for (let k = 0; k < lines.length; k++) prefix[k + 1] = (prefix[k] ?? 0) + (lines[k]?.length ?? 0) + 1;
      }
      return (prefix[Math.min(to, lines.length)] ?? 0) - (prefix[from] ?? 0);
    },
  };
}
