// Where redact(text) put its masks, and what each one hides: what "Show" on a masked value reveals to the person at
// the keyboard (handlers/reveal.ts, issue 38 item 10). The masks are exactly redact()'s (the same known-secret pass,
// the same findings applied in the same order), so a span's offsets index the text the page was served.
import { findAll } from './engine.js';
import { maskKnown } from './known.js';

export interface MaskSpan {
  /** UTF-16 offset in the redacted text where the mask starts. */
  start: number;
  /** UTF-16 offset where it ends (exclusive). */
  end: number;
  /** The characters the mask stands for, as written. */
  original: string;
}

/**
 * What a rule's replacement may keep of the structure around a value: the operator and quotes of `NAME = "value"`
 * (its mask is `="***"`). Kept out of a span when the mask and the original share it, so "Show" covers the value only.
 */
const STRUCTURE = /[=:"'`\s]/;

export interface MaskedText {
  /** redact(text), character for character. */
  text: string;
  masks: MaskSpan[];
}

/**
 * redact(text) with the place and original of every mask the rules made. Satchel's own secrets (the agent's key,
 * the launch and MCP tokens: known.ts) are masked before the rules run and are never a span: an original holds
 * their mask, never their value, so nothing here can hand them out. A finding whose mask equals what it covers
 * hides nothing and is not a span.
 */
export function maskedSpans(text: string): MaskedText {
  if (typeof text !== 'string' || text.length === 0) return { text, masks: [] };
  const known = maskKnown(text);
  const masks: MaskSpan[] = [];
  let out = '';
  let pos = 0;
  for (const f of findAll(known)) {
    out += known.slice(pos, f.start);
    const mask = typeof f.text === 'string' ? f.text : f.text();
    const original = known.slice(f.start, f.end);
    if (mask !== original) masks.push(trimmed(out.length, mask, original));
    out += mask;
    pos = f.end;
  }
  return { text: out + known.slice(pos), masks };
}

/** The run of STRUCTURE characters at the start of `text` (`from: 'end'`: at its end). */
function structureRun(text: string, from: 'start' | 'end'): number {
  let n = 0;
  while (n < text.length && STRUCTURE.test(text[from === 'start' ? n : text.length - 1 - n]!)) n++;
  return n;
}

const blanksOut = (text: string) => text.replace(/\s+/g, '');

/**
 * The span of `mask` written at `at`, without the structure it shares with `original` at either end: the same
 * operator and quotes, the mask having dropped the blanks around them (`NAME = "x"` masks as `NAME="***"`).
 */
function trimmed(at: number, mask: string, original: string): MaskSpan {
  let [mHead, oHead] = [structureRun(mask, 'start'), structureRun(original, 'start')];
  if (blanksOut(mask.slice(0, mHead)) !== blanksOut(original.slice(0, oHead))) [mHead, oHead] = [0, 0];
  let [mTail, oTail] = [structureRun(mask.slice(mHead), 'end'), structureRun(original.slice(oHead), 'end')];
  if (blanksOut(mask.slice(mask.length - mTail)) !== blanksOut(original.slice(original.length - oTail))) [mTail, oTail] = [0, 0];
  // A mask that is only structure (never made by a rule) keeps its whole span.
  if (mHead + mTail >= mask.length || oHead + oTail >= original.length) return { start: at, end: at + mask.length, original };
  return { start: at + mHead, end: at + mask.length - mTail, original: original.slice(oHead, original.length - oTail) };
}
