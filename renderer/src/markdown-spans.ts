// Where a code span and a link end, in time linear in the line: a code span's closing run through a position
// list per run length, a link's parts through next-character tables, each built once per line on first use.
// Apart from markdown-inline.ts (the parser that asks them) as markdown-math.ts is for math: each scanner is one
// concern with its own tables, and the parser reads as the CommonMark rules it follows.
import type { WorkMeter } from './markdown-inline.js';

const WHITESPACE = /\s/;

/** One space each side is padding (so a span can start or end with a backtick), unless the span is all spaces. */
export function codeText(body: string): string {
  return body.length >= 2 && body.startsWith(' ') && body.endsWith(' ') && /[^ ]/.test(body) ? body.slice(1, -1) : body;
}

/** Closing-run lookup for code spans: the first later run of exactly the opener's length, or -1. */
export function backtickRuns(src: string, meter: WorkMeter): (from: number, length: number) => number {
  let runs: Map<number, number[]> | null = null;
  const cursor = new Map<number, number>();
  return (from, length) => {
    if (!runs) {
      runs = new Map();
      for (let i = 0; i < src.length; ) {
        meter.steps++;
        if (src[i] !== '`') {
          i++;
          continue;
        }
        let j = i;
        while (src[j] === '`') j++;
        const list = runs.get(j - i) ?? [];
        list.push(i);
        runs.set(j - i, list);
        i = j;
      }
    }
    // Openers are met left to right, so each length's cursor only moves forward.
    const list = runs.get(length) ?? [];
    let k = cursor.get(length) ?? 0;
    while (k < list.length && (list[k] ?? 0) < from) {
      meter.steps++;
      k++;
    }
    cursor.set(length, k);
    return k < list.length ? list[k] ?? -1 : -1;
  };
}

/**
 * `[label](href)` or `[label](href "title")` at a position, as the earlier regex read it
 * (/^\[([^\]]*)\]\(([^)\s]*)(?:\s+"[^"]*")?\)/), but through tables of the next `]`, the next `)` or space,
 * the next non-space and the next `"`, built once per line on the first `[`.
 */
export function linkScanner(src: string, meter: WorkMeter): (at: number) => { label: string; href: string; end: number } | null {
  let tables: { bracket: Int32Array; stop: Int32Array; solid: Int32Array; quote: Int32Array } | null = null;
  const build = () => {
    const n = src.length;
    const bracket = new Int32Array(n + 1).fill(-1);
    const stop = new Int32Array(n + 1).fill(-1);
    const solid = new Int32Array(n + 1).fill(-1);
    const quote = new Int32Array(n + 1).fill(-1);
    for (let i = n - 1; i >= 0; i--) {
      meter.steps++;
      const c = src[i] ?? '';
      const ws = WHITESPACE.test(c);
      bracket[i] = c === ']' ? i : bracket[i + 1] ?? -1;
      stop[i] = c === ')' || ws ? i : stop[i + 1] ?? -1;
      solid[i] = ws ? solid[i + 1] ?? -1 : i;
      quote[i] = c === '"' ? i : quote[i + 1] ?? -1;
    }
    return { bracket, stop, solid, quote };
  };
  return (at) => {
    tables ??= build();
    const close = tables.bracket[at + 1] ?? -1;
    if (close === -1 || src[close + 1] !== '(') return null;
    const stop = tables.stop[close + 2] ?? -1;
    if (stop === -1) return null;
    const label = src.slice(at + 1, close);
    const href = src.slice(close + 2, stop);
    if (src[stop] === ')') return { label, href, end: stop + 1 };
    const q = tables.solid[stop] ?? -1;
    if (q === -1 || src[q] !== '"') return null;
    const endQuote = tables.quote[q + 1] ?? -1;
    if (endQuote === -1 || src[endQuote + 1] !== ')') return null;
    return { label, href, end: endQuote + 2 };
  };
}
