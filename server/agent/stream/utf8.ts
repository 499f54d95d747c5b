// The one byte bound both accumulators apply (the reply's text, the tool calls' arguments).

/**
 * The longest prefix of `text` that fits in `maxBytes` of UTF-8, never splitting a character (encodeInto
 * stops before one that does not fit, and says how much of the string it took).
 */
export function prefixWithinBytes(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  if (text.length * 3 <= maxBytes) return text;
  const { read } = new TextEncoder().encodeInto(text, new Uint8Array(maxBytes));
  return text.slice(0, read);
}

/** A budget of UTF-8 bytes: `take` gives back what of a piece fits and says when the budget ran out. */
export class ByteBudget {
  private left: number;
  /** A piece did not fit whole: what came after it was cut. */
  exhausted = false;

  constructor(readonly limit: number) {
    this.left = limit;
  }

  /** `piece`, or the part of it that fits (then `exhausted`). */
  take(piece: string): string {
    const bytes = Buffer.byteLength(piece, 'utf8');
    if (bytes <= this.left) {
      this.left -= bytes;
      return piece;
    }
    this.exhausted = true;
    const kept = prefixWithinBytes(piece, this.left);
    this.left = 0;
    return kept;
  }

  /** Gives back the bytes of something taken before and now replaced. */
  giveBack(text: string): void {
    this.left = Math.min(this.limit, this.left + Buffer.byteLength(text, 'utf8'));
  }
}
