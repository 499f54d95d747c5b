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

/** The span of `mask` written at `at`, without the structure it shares with `original` at either end. */
function trimmed(at: number, mask: string, original: string): MaskSpan {
  let head = 0;
  while (head < mask.length && head < original.length && mask[head] === original[head] && STRUCTURE.test(mask[head]!)) head++;
  let tail = 0;
  while (
    tail < mask.length - head &&
    tail < original.length - head &&
    mask[mask.length - 1 - tail] === original[original.length - 1 - tail] &&
    STRUCTURE.test(mask[mask.length - 1 - tail]!)
  )
    tail++;
  return { start: at + head, end: at + mask.length - tail, original: original.slice(head, original.length - tail) };
}
