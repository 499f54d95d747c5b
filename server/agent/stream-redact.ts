// Redaction of text that arrives in pieces (a reply's token and reasoning frames). The redactor works on whole
// strings, so a credential split across tokens (`AKIA` + `IOSFODNN` + `7EXAMPLE`) would pass it piece by piece.
//
// Two rules close that gap without delaying prose:
// - The word still arriving (the text after the last whitespace) is held back while it could be part of a
//   credential: when it has anything but letters (punctuation ending it aside), a capital after its first
//   letter, or is very long. Every
//   credential shape the redactor knows has one of those within its first few characters; an ordinary word
//   has none, and goes out at once. A held word goes out when whitespace follows it or the reply ends.
// - What goes out is redacted together with the text before it (a `Bearer ` or `api_key=` in an earlier piece
//   decides the mask of this one), and only what it adds to the redacted whole is sent. When the whole no
//   longer begins with what was sent already (a credential that began in an earlier piece is masked now), the
//   piece becomes the short mask: what was shown stays shown, nothing more of the credential is.
import { redact, SHORT_MASK } from '../redact.js';

/** How much earlier text each piece is redacted with: longer than any credential shape the redactor knows. */
export const STREAM_CONTEXT_CHARS = 512;
/** A word held longer than this goes out (redacted) anyway: a run without whitespace must not stall a reply. */
export const MAX_HELD_CHARS = 8192;
/** A word this long is held whatever its characters (a long run of letters can be a key). */
export const LONG_WORD_CHARS = 20;

/** Punctuation that ends a word in prose (`trains.`, `well,`): not a reason to hold it. */
const TRAILING_PUNCTUATION = /[.,;:!?)\]}"'’”]+$/u;

/** Could `word`, as far as it has arrived, be (the start of) a credential? */
export function mayBeCredential(word: string): boolean {
  const core = word.replace(TRAILING_PUNCTUATION, '');
  return core.length >= LONG_WORD_CHARS || /[^\p{L}]/u.test(core) || /\p{Lu}/u.test(core.slice(1));
}

export class StreamRedactor {
  /** The raw tail of what has gone out, at most STREAM_CONTEXT_CHARS. */
  private tail = '';
  /** The raw word held back. */
  private held = '';

  /** The redacted text to send now for `piece` (possibly '' while a word is held). */
  push(piece: string): string {
    const text = this.held + piece;
    const word = /\S*$/u.exec(text)![0];
    const complete = text.slice(0, text.length - word.length);
    let out = complete ? this.release(complete) : '';
    if (word && (!mayBeCredential(word) || word.length > MAX_HELD_CHARS)) {
      out += this.release(word);
      this.held = '';
    } else {
      this.held = word;
    }
    return out;
  }

  /** The reply ended (done, cancelled, failed): whatever is held goes out, redacted. */
  flush(): string {
    const word = this.held;
    this.held = '';
    return word ? this.release(word) : '';
  }

  private release(raw: string): string {
    const before = redact(this.tail);
    const after = redact(this.tail + raw);
    this.tail = (this.tail + raw).slice(-STREAM_CONTEXT_CHARS);
    return after.startsWith(before) ? after.slice(before.length) : SHORT_MASK;
  }
}
