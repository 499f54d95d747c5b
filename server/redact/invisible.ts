// B11: tokens split by invisible characters (`ghp_abc\u200bdef…`). Around each run of control or zero-width
// characters, the token rules run again on a copy without them; a match is masked in the original when its span
// holds only [A-Za-z0-9_.-] and such characters.
import { asciiTable, inTable } from './chars.js';
import { type Finding } from './finding.js';
import { maskToken } from './mask.js';

/**
 * U+0000–001F, U+007F, U+200B–200F, U+2028–202F, U+2060, U+FEFF (redaction.md B11), except those that are
 * whitespace (Python's `\s`: tab, line feed, U+001C–001F, U+2028, U+202F, …). Whitespace separates tokens in
 * every other rule; joining across it would make `sk-learn\tsession` a key and a wrapped `0\nghp_…` lose its
 * boundary, and it keeps every rule but private-key blocks within a line (what lets `npm run redact` stream).
 */
export const INVISIBLE = /[\x00-\x08\x0e-\x1b\x7f\u200b-\u200f\u202a-\u202e\u2060\ufeff]/g;
const SPAN_CHARS = asciiTable(/[A-Za-z0-9_.-]/);
/** The shortest token any rule finds (`hf_` + 10 is 13): a shorter joined run cannot hold one. */
export const MIN_JOINED_TOKEN = 12;
/** Characters kept on each side of a run for the rules' boundary checks (the escaped-JSON look-back is 6). */
const CONTEXT = 6;

export function isInvisible(c: number): boolean {
  return (
    c <= 0x08 || (c >= 0x0e && c <= 0x1b) || c === 0x7f || (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) || c === 0x2060 || c === 0xfeff
  );
}

function isSpanChar(c: number): boolean {
  return inTable(SPAN_CHARS, c) || isInvisible(c);
}

/**
 * Findings for tokens that exist only once invisible characters are removed. `scan` is the token rules' scan;
 * its findings are on the joined copy and are mapped back here.
 */
export function invisibleFindings(text: string, scan: (copy: string, out: Finding[]) => void): Finding[] {
  const found: Finding[] = [];
  INVISIBLE.lastIndex = 0;
  let done = 0;
  while (INVISIBLE.test(text)) {
    const at = INVISIBLE.lastIndex - 1;
    if (at < done) continue;
    let start = at;
    while (start > 0 && isSpanChar(text.charCodeAt(start - 1))) start--;
    let end = at + 1;
    while (end < text.length && isSpanChar(text.charCodeAt(end))) end++;
    done = end;
    INVISIBLE.lastIndex = end;
    // The joined run, with a little context either side for boundary checks, and a map back to the original.
    const from = Math.max(0, start - CONTEXT);
    const to = Math.min(text.length, end + 1);
    let copy = '';
    const map: number[] = [];
    let visible = 0;
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      if (isInvisible(c) && i >= start && i < end) continue;
      if (i >= start && i < end) visible++;
      copy += text[i];
      map.push(i);
    }
    if (visible < MIN_JOINED_TOKEN) continue;
    map.push(to);
    const matches: Finding[] = [];
    scan(copy, matches);
    for (const m of matches) {
      const s = map[m.start]!;
      const e = map[m.end - 1]! + 1;
      if (s < start || e > end) continue;
      let split = false;
      for (let i = s; i < e; i++) if (isInvisible(text.charCodeAt(i))) split = true;
      if (!split) continue; // an ordinary token: the rules on the original text have it
      found.push({ start: s, end: e, text: maskToken(copy.slice(m.start, m.end)), rule: `${m.rule} (split by invisible characters)`, rank: m.rank });
    }
  }
  return found;
}
