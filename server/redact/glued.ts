// Vendor keys glued on their right to a word by `-` or `_` (`ghp_…-notes.txt`, `…_backup.zip`): for log lines
// only (core/log.ts). redaction.md requires a token boundary after a key (`ghp_aB3dE5gH7jK9-x` stays in what
// the agent and the page see: there it is more likely a word of an identifier than a key), but a log line
// carries file names and paths taken from strangers' archives, and a key in one of them must not reach a log
// file: a vendor prefix, its minimum tail of random-looking characters (a letter and a digit, as a key glued
// on its left needs in vendors.ts), then `-` or `_`, is masked the way redact() masks a key.
import { asciiTable, ALNUM, boundedLeft, DIGIT, inTable, runEnd } from './chars.js';
import { maskToken } from './mask.js';
import { VENDOR_SHAPES } from './vendors.js';

const GLUE = asciiTable(/[-_]/);
/** Longest tail taken for a key: real keys are under 200 characters; a longer run is something else. */
export const MAX_GLUED_TAIL = 512;

/** `text` with every vendor key glued on its right to a word masked (see above); redact() runs first. */
export function maskGluedKeys(text: string): string {
  const spans: [number, number][] = [];
  for (const shape of VENDOR_SHAPES) {
    // Tails that run on through both `-` and `_` (BASE64URL) always end at a boundary: redact() judged them.
    if (shape.digitsDash) continue;
    // A prefix may repeat inside one run of its tail alphabet (`sk_sk_sk_…`): every tail starting inside the
    // run ends where it ends, so the run is read once, not once per prefix (which was quadratic).
    let runFrom = -1;
    let runTo = -1;
    for (let at = text.indexOf(shape.prefix); at !== -1; at = text.indexOf(shape.prefix, at + 1)) {
      if (!boundedLeft(text, at) && !inTable(GLUE, text.charCodeAt(at - 1))) continue;
      const tailStart = at + shape.prefix.length;
      if (tailStart < runFrom || tailStart > runTo) [runFrom, runTo] = [tailStart, runEnd(text, tailStart, shape.tail)];
      const end = runTo;
      if (end - tailStart < shape.minTail || end - tailStart > MAX_GLUED_TAIL || !inTable(GLUE, text.charCodeAt(end))) continue;
      if (looksRandom(text, tailStart, end)) spans.push([at, end]);
    }
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let out = '';
  let done = 0;
  for (const [start, end] of spans) {
    if (start < done) continue; // inside a span already masked (`sk_` within `sk_live_…`)
    out += text.slice(done, start) + maskToken(text.slice(start, end));
    done = end;
  }
  return out + text.slice(done);
}

function looksRandom(text: string, from: number, to: number): boolean {
  let letter = false;
  let digit = false;
  for (let i = from; i < to && !(letter && digit); i++) {
    const c = text.charCodeAt(i);
    if (inTable(DIGIT, c)) digit = true;
    else if (inTable(ALNUM, c)) letter = true;
  }
  return letter && digit;
}
