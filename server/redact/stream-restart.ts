// The restart bookkeeping of StreamRedactor (stream-redact.ts): where a long line's open piece may start again,
// so that each judgement costs the text since the last restart, not the whole line.
//
// Linear cost on a long line (issue 21: 200,000 `a ` tokens took 30 s): the open piece is not judged from its
// start each time. A *restart point* `R` is a position of the open piece such that
//   - the output before it is final (R is at or before the stable cut) and no finding covers or starts at R;
//   - the character before R is a blank (then the line has at least RESTART_MIN_WORDS words before R) or a
//     character no rule's alphabet holds (a non-ASCII letter: then the line is no B9 form body);
//   - no `=`/`:` after a credential-like name is still reading its value at R (`afterOperatorValue`).
// Then nothing before R can change a rule at or after R: every look-back stops at the character before R (token
// boundaries, name runs, scheme runs, escapes), or passes its blanks only to ask "does a key start its line?"
// (indentation, a gutter and `export`: at most two words), and B9 needs a line without whitespace. So
// redact(line) is redact(line[0, R)) followed by what the rules give for line[R, …) preceded by one word, a space
// and the character before R: the open piece restarts as RESTART_CONTEXT + that character + line[R, …)
// (`restart`). Each judgement costs the text since the last restart (a word or two in prose), not the line; a line
// with no restart point (a value still open, an operator on every word) is judged at growing intervals past
// RESCAN_EVERY_PUSH_CHARS, so every character is judged a bounded number of times whatever the line's length.
// The property tests check the result against redact(whole) on long lines with planted secrets.
import { isBlank, isLineBreak, isSpace } from './chars.js';
import { skipBlanksBack } from './values.js';
import { AUTH_NAME, COLON, CREDENTIAL_NAME, JS_SPACE, nameBefore } from './stream-judge.js';

/**
 * What the open piece starts with after a restart: one word and a space stand for the line before the restart
 * point (not the start of a line, has whitespace, ends in a blank that no escape, name or token runs across).
 */
export const RESTART_CONTEXT = 'x ';
/** Words a line must have before a restart point: a line-start look-back passes at most `export` and a gutter. */
export const RESTART_MIN_WORDS = 3;
/** Words between the last `=`/`:` and a restart point: an Authorization header reads a scheme and a credential. */
export const RESTART_OPERATOR_WORDS = 2;

/**
 * A character a restart point may follow. A blank (not U+001F, which B9's JavaScript `\s` does not count): every
 * look-back stops at it or passes it only to ask whether a key starts its line. Or a character outside every
 * rule's alphabet (not ASCII, not whitespace, not invisible, not half of a surrogate pair: CJK text, accented
 * letters, typographic quotes): every look-back stops at it.
 */
function restartAfter(c: number): 'blank' | 'letter' | null {
  if (isBlank(c)) return c === 0x1f ? null : 'blank';
  if (c < 0x80 || isSpace(c) || isLineBreak(c) || (c >= 0xd800 && c <= 0xdfff)) return null;
  if ((c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) || c === 0x2060 || c === 0xfeff) return null;
  return 'letter';
}

/** True when `text` has at least `min` words (runs of non-blanks) before `end`. */
function hasWords(text: string, end: number, min: number): boolean {
  let count = 0;
  for (let i = 0; i < end; i++) {
    if (!isBlank(text.charCodeAt(i)) && (i === 0 || isBlank(text.charCodeAt(i - 1))) && ++count >= min) return true;
  }
  return false;
}

/** B9's form line starts with a name and `=` and has no JavaScript whitespace (redact/urls.ts FORM_LINE). */
const FORM_HEAD = /^[A-Za-z0-9_.%[\]-]+=/;

/**
 * The latest restart point of the judged open piece `text` at or before `cut` (see the top), or -1. `findings`
 * are the piece's resolved findings (text order); `restarted` says the line before `from` already passed the
 * line-start and form-line tests (it restarted before).
 */
export function restartPoint(text: string, cut: number, findings: readonly { start: number; end: number }[], from: number, restarted: boolean): number {
  let k = findings.length - 1;
  for (let r = Math.min(cut, text.length - 1); r > from; r--) {
    const c = text.charCodeAt(r);
    const kind = restartAfter(text.charCodeAt(r - 1));
    if (kind === null || isSpace(c) || c === 0x3d || c === COLON) continue;
    // Not inside a finding, nor at the start of one: a finding starting at `r` may be the rest of one that began
    // earlier (resolve() turns what runs past an accepted finding into SHORT_MASK from that finding's end).
    while (k >= 0 && findings[k]!.start > r) k--;
    if (k >= 0 && findings[k]!.end > r) {
      r = findings[k--]!.start; // look before it
      continue;
    }
    if (!afterOperatorValue(text, r)) continue;
    if (restarted) return r;
    // Before a blank, a key may still be at its line's start (after a gutter and `export`: two words). After a
    // letter nothing looks back past it, but the line could be a form body if it has no whitespace.
    if (kind === 'blank') return hasWords(text, r, RESTART_MIN_WORDS) ? r : -1;
    const before = text.slice(0, r);
    return JS_SPACE.test(before) || !FORM_HEAD.test(before) ? r : -1;
  }
  return -1;
}

/**
 * True when no `=`/`:` before `r` can read a value at or after `r`. Only an operator after a credential-like name
 * reads across a blank (the same test as stableEnd's), and it reads one word (the value, quoted or not) or, after
 * an Authorization name, two (scheme and credential): such an operator needs that many whole words after it
 * before the word `r` is in. A quoted value across `r` is a finding across it (refused), or no finding whichever
 * side is judged.
 */
function afterOperatorValue(text: string, r: number): boolean {
  let wordsAfter = 0;
  for (let i = r - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c === 0x3d || c === COLON) {
      const name = nameBefore(text, skipBlanksBack(text, i));
      if (CREDENTIAL_NAME.test(name) && wordsAfter < (AUTH_NAME.test(name) ? RESTART_OPERATOR_WORDS : 1)) return false;
    }
    if (isBlank(c)) continue;
    // A word ends at `i` (the word holding `r` itself does not count: it is not whole before `r`).
    if (i + 1 < r && isBlank(text.charCodeAt(i + 1))) wordsAfter++;
    // Every character of the words before `r` up to here was checked: an operator further back has enough words.
    if ((i === 0 || isBlank(text.charCodeAt(i - 1))) && wordsAfter >= RESTART_OPERATOR_WORDS) return true;
  }
  return true;
}
