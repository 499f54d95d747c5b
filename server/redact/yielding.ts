// Redaction of a long text (an attachment's text for the search index: up to 4 Mi characters) in slices, the
// event loop free between them. redact() of 4 Mi characters holds the loop for 0.4 to 1.2 s; every request
// waits that long. The result is exactly redact(text): the known secrets are masked over the whole text first
// (a spaced echo of a key may cross a line break), then the rules run slice by slice, each slice ending at a
// line break outside any private-key block, since no other rule crosses a line break (stream-redact.ts says why;
// the `npm run redact` tests hold redact(whole) == its lines one by one).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { applyRulesScreened } from './screen.js';
import { knownSecrets, maskKnown } from './known.js';
import { privateKeySpans } from './pem.js';

/** Characters the rules see between two turns of the event loop: a few milliseconds of work. */
export const REDACT_SLICE_CHARS = 64 * 1024;

/** Where the slice starting at `start` ends: after the first '\n' at or past `start + sliceChars` outside a key block. */
function sliceEnd(text: string, start: number, sliceChars: number, blocks: ReadonlyArray<{ start: number; end: number }>): number {
  let from = start + sliceChars;
  for (;;) {
    const nl = from >= text.length ? -1 : text.indexOf('\n', from);
    if (nl === -1) return text.length;
    const cut = nl + 1;
    const inside = blocks.find((b) => b.start < cut && cut < b.end);
    if (!inside) return cut;
    from = inside.end;
  }
}

/**
 * maskKnown(text) in slices: the matcher decides a position only when no later text can change it (its stream
 * form, as agent/reply-redact.ts uses it live), so what it holds back is carried into the next slice.
 */
async function maskKnownYielding(text: string, sliceChars: number): Promise<string> {
  const matcher = knownSecrets();
  if (matcher.empty) return text;
  const parts: string[] = [];
  let held = '';
  for (let start = 0; start < text.length; start += sliceChars) {
    const { out, consumed } = matcher.scan(held + text.slice(start, start + sliceChars), false);
    parts.push(out);
    held = (held + text.slice(start, start + sliceChars)).slice(consumed);
    await nextTurn();
  }
  parts.push(matcher.mask(held));
  return parts.join('');
}

/** redact(text), the event loop let go every REDACT_SLICE_CHARS characters. */
export async function redactYielding(text: string, sliceChars = REDACT_SLICE_CHARS): Promise<string> {
  // What redact() computes (it adds a memo for short texts only).
  if (text.length <= sliceChars) return applyRulesScreened(maskKnown(text));
  const known = await maskKnownYielding(text, sliceChars);
  const blocks = privateKeySpans(known).filter((s) => !s.placeholder);
  let out = '';
  for (let start = 0; start < known.length; ) {
    const end = sliceEnd(known, start, sliceChars, blocks);
    out += applyRulesScreened(known.slice(start, end));
    start = end;
    if (start < known.length) await nextTurn();
  }
  return out;
}
