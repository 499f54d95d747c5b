// The specification's masking rule (4.0, redaction.md "Mask"), and what counts as already masked.

/** Tokens of at least this many code points keep a head and a tail; shorter ones become SHORT_MASK. */
export const MASK_MIN_LENGTH = 18;
export const MASK_HEAD = 6;
export const MASK_TAIL = 4;
export const MASK_ELLIPSIS = '...';
export const SHORT_MASK = '***';
export const REDACTED_PRIVATE_KEY = '[REDACTED PRIVATE KEY]';

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Lengths are counted in code points (`[...s]`), so a mask never splits a character. A head or tail that would
 * keep a backslash gives SHORT_MASK instead: cut out of its pair (`\\`) or set before the ellipsis or the text
 * after the mask, a kept backslash becomes a Markdown escape (`\.`) the next pass reads through
 * (markdown-escapes.ts), and that pass would mask the mask again. Redacting twice must change nothing.
 */
export function maskToken(token: string): string {
  const points = SURROGATE.test(token) ? Array.from(token) : null;
  const length = points ? points.length : token.length;
  if (length < MASK_MIN_LENGTH) return SHORT_MASK;
  const mask = points
    ? points.slice(0, MASK_HEAD).join('') + MASK_ELLIPSIS + points.slice(-MASK_TAIL).join('')
    : token.slice(0, MASK_HEAD) + MASK_ELLIPSIS + token.slice(-MASK_TAIL);
  return mask.includes('\\') ? SHORT_MASK : mask;
}

const MASK_SHAPE = new RegExp(`^[\\s\\S]{${MASK_HEAD}}\\.\\.\\.[\\s\\S]{${MASK_TAIL}}$`, 'u');
// In UTF-16 units: every kept character may be a surrogate pair.
const MASK_MIN_UNITS = MASK_HEAD + MASK_ELLIPSIS.length + MASK_TAIL;
const MASK_MAX_UNITS = 2 * (MASK_HEAD + MASK_TAIL) + MASK_ELLIPSIS.length;

/** A value that already has a mask's shape: redacting twice changes nothing (redaction.md, "Mask"). */
export function isMask(value: string): boolean {
  if (value === SHORT_MASK) return true;
  return value.length >= MASK_MIN_UNITS && value.length <= MASK_MAX_UNITS && MASK_SHAPE.test(value);
}

/** Every phone number keeps this many characters at each end around PHONE_MASK (B10)... */
export const PHONE_KEEP_LONG = 4;
/** ...or this many when it has at most PHONE_SHORT_LENGTH characters. */
export const PHONE_KEEP_SHORT = 2;
export const PHONE_SHORT_LENGTH = 8;
export const PHONE_MASK = '****';

export function maskPhone(phone: string): string {
  const keep = phone.length <= PHONE_SHORT_LENGTH ? PHONE_KEEP_SHORT : PHONE_KEEP_LONG;
  return phone.slice(0, keep) + PHONE_MASK + phone.slice(-keep);
}

/**
 * True when `[start, end)` cuts into a mask that begins before `start`: a second pass over `TOKEN=...-END` (the
 * mask of `TOKEN=abcdefghij-----END`, whose kept head holds a `=`) must not read `...-END` as a new value. The
 * mask is found by its ellipsis inside the span, with a mask's shape around it.
 */
export function cutsIntoMask(text: string, start: number, end: number): boolean {
  // A mask that begins before `start` has its ellipsis fewer than MASK_HEAD units after `start`: only those few
  // places are looked at. Searching the whole span (indexOf from `start`) made every assignment in a run without
  // a `...` (`TOKEN=xTOKEN=x…`, 1 MiB) re-read the rest of the text: quadratic.
  const last = Math.min(end, start + MASK_HEAD);
  for (let dots = start; dots < last; dots++) {
    if (!text.startsWith(MASK_ELLIPSIS, dots)) continue;
    // The whole mask within reach of the span: the decision never waits on text after it (a stream judges the
    // span once it ends).
    const maskStart = dots - MASK_HEAD;
    const maskEnd = dots + MASK_ELLIPSIS.length + MASK_TAIL;
    if (maskStart >= 0 && maskEnd <= end && isMask(text.slice(maskStart, maskEnd))) return true;
  }
  return false;
}
