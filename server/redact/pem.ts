// Private-key blocks (A5, and C: PGP armour, a BEGIN without its END). They are cut out before any other rule
// runs, so no other rule can swallow a BEGIN marker and leak the key body.
import { REDACTED_PRIVATE_KEY } from './mask.js';

// Labels are upper-case words and spaces (RSA, EC, OPENSSH, ENCRYPTED, PGP … BLOCK); a bounded repeat keeps this
// linear on hostile input such as a megabyte of capitals after `-----BEGIN`. Digits are allowed too (fail closed).
export const PEM_LABEL_MAX = 64;
const PEM_BEGIN = new RegExp(`-----BEGIN[A-Z0-9 ]{0,${PEM_LABEL_MAX}}PRIVATE KEY(?: BLOCK)?-----`, 'y');
const PEM_END = new RegExp(`-----END[A-Z0-9 ]{0,${PEM_LABEL_MAX}}PRIVATE KEY(?: BLOCK)?-----`, 'y');
export const PEM_BEGIN_LITERAL = '-----BEGIN';
const PEM_END_LITERAL = '-----END';

export interface Span {
  start: number;
  end: number;
}

function findMarker(text: string, from: number, literal: string, marker: RegExp): Span | null {
  for (let at = text.indexOf(literal, from); at !== -1; at = text.indexOf(literal, at + 1)) {
    marker.lastIndex = at;
    if (marker.test(text)) return { start: at, end: marker.lastIndex };
  }
  return null;
}

/** The next `-----BEGIN … PRIVATE KEY-----` marker at or after `from`. */
export function findPrivateKeyBegin(text: string, from = 0): Span | null {
  return findMarker(text, from, PEM_BEGIN_LITERAL, PEM_BEGIN);
}

/** The next `-----END … PRIVATE KEY-----` marker at or after `from`. */
export function findPrivateKeyEnd(text: string, from = 0): Span | null {
  return findMarker(text, from, PEM_END_LITERAL, PEM_END);
}

/**
 * The spans that are private-key blocks (a block without END runs to the end of the text) and the placeholders
 * already in the text: the other rules run on the pieces between, so a second pass sees the same pieces.
 */
export function privateKeySpans(text: string): Array<Span & { placeholder: boolean }> {
  const spans: Array<Span & { placeholder: boolean }> = [];
  let pos = 0;
  // Each search result is kept until the position passes it: many placeholders must not mean many full scans.
  let begin = findPrivateKeyBegin(text, 0);
  let placeholder = text.indexOf(REDACTED_PRIVATE_KEY);
  for (;;) {
    if (begin !== null && begin.start < pos) begin = findPrivateKeyBegin(text, pos);
    if (placeholder !== -1 && placeholder < pos) placeholder = text.indexOf(REDACTED_PRIVATE_KEY, pos);
    if (placeholder !== -1 && (begin === null || placeholder < begin.start)) {
      spans.push({ start: placeholder, end: placeholder + REDACTED_PRIVATE_KEY.length, placeholder: true });
      pos = placeholder + REDACTED_PRIVATE_KEY.length;
      continue;
    }
    if (begin === null) return spans;
    const end = findPrivateKeyEnd(text, begin.end);
    spans.push({ start: begin.start, end: end === null ? text.length : end.end, placeholder: false });
    if (end === null) return spans;
    pos = end.end;
  }
}
