// What "Show" on a masked value may send (issue 38 item 10): where a message's masks are (numbers only, nothing a
// mask hides), and the original behind one mask, for the person at the keyboard who asked. Only handlers/reveal.ts
// imports this module (handlers/reveal.test.ts holds that), so no event, export, search result or MCP answer can
// carry a `RevealedText`.
import { maskedSpans } from '../redact/index.js';
import type { RedactedText, RevealedText } from './brand.js';

export interface MaskPlace {
  /** UTF-16 offsets in the message's text as GET /api/session serves it. */
  start: number;
  end: number;
}

/** Where the masks are in a stored text as it is served (a text that is not a string has none to show). */
export function maskPlaces(content: unknown): MaskPlace[] {
  if (typeof content !== 'string') return [];
  return maskedSpans(content).masks.map(({ start, end }) => ({ start, end }));
}

/** The mask that starts at `start` in the served text and what it hides, or null when no mask starts there. */
export function revealAt(content: unknown, start: number): { mask: RedactedText; original: RevealedText } | null {
  if (typeof content !== 'string') return null;
  const { text, masks } = maskedSpans(content);
  const found = masks.find((m) => m.start === start);
  // The mask is a piece of redact(content): redacted text. The original is what the person asked to see.
  return found ? { mask: text.slice(found.start, found.end) as RedactedText, original: found.original as RevealedText } : null;
}
