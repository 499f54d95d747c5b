// A finding is one span of the ORIGINAL text that a rule wants replaced. Every rule reports findings on the same
// original text; resolve() keeps one per span, so a token is masked once, from its original characters, never
// a mask of a mask (redaction.md, "Mask").
import { hasAlphanumeric } from './chars.js';
import { SHORT_MASK } from './mask.js';

export interface Finding {
  start: number;
  end: number;
  /** The replacement for text[start, end), or how to make it: computed only for the findings that are applied. */
  text: string | (() => string);
  /** The rule's name, as `npm run redact -- --check` prints it. */
  rule: string;
  /** Lower wins when two findings start at the same place and end together (a structural rule before a bare token). */
  rank: number;
}

function order(a: Finding, b: Finding): number {
  return a.start - b.start || b.end - a.end || a.rank - b.rank;
}

/**
 * The findings to apply, in text order, without overlaps. The earliest (then longest) finding wins a contested
 * span. A finding that starts inside an accepted one but runs past its end still holds part of a secret: that
 * rest becomes SHORT_MASK rather than being dropped. `weak` findings (tokens found only once invisible characters
 * were removed) apply only where no other finding is.
 */
export function resolve(text: string, findings: Finding[], weak: Finding[] = []): Finding[] {
  findings.sort(order);
  let accepted: Finding[] = [];
  let last = 0;
  for (const f of findings) {
    if (f.start >= last) {
      accepted.push(f);
      last = f.end;
    } else if (f.end > last) {
      if (hasAlphanumeric(text.slice(last, f.end))) accepted.push({ ...f, start: last, text: SHORT_MASK });
      last = f.end;
    }
  }
  if (weak.length > 0) {
    weak.sort(order);
    const extra: Finding[] = [];
    let weakEnd = 0;
    for (const w of weak) {
      if (w.start < weakEnd || overlapsAny(accepted, w)) continue;
      extra.push(w);
      weakEnd = w.end;
    }
    if (extra.length > 0) accepted = [...accepted, ...extra].sort(order);
  }
  return accepted;
}

/** `sorted` is in text order without overlaps. */
function overlapsAny(sorted: readonly Finding[], f: Finding): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.end <= f.start) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo]!.start < f.end;
}

/** `text` with the resolved findings applied. */
export function apply(text: string, findings: readonly Finding[]): string {
  if (findings.length === 0) return text;
  let out = '';
  let pos = 0;
  for (const f of findings) {
    out += text.slice(pos, f.start) + (typeof f.text === 'string' ? f.text : f.text());
    pos = f.end;
  }
  return out + text.slice(pos);
}
