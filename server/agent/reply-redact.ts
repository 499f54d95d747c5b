// A reply's live pieces redacted in two stages, in the order redact() applies them to a whole text
// (redact/index.ts: the known secrets' values first, then the rules): KnownSecretStream masks the agent's own
// key however the pieces cut it, and StreamRedactor applies the rules to what it lets through. Each stage sends
// only a prefix of its whole-text result, so what goes out is always a prefix of redact(whole reply).
import { streamRedacted, type RedactedText } from '../projections/brand.js';
import { knownSecrets, type SecretMatcher, StreamRedactor } from '../redact/index.js';

/** Masks known secrets in text that arrives in pieces, holding only what may still become (part of) one. */
export class KnownSecretStream {
  private held = '';

  /** The matcher is taken when the stream starts: a key saved mid-reply applies from the next reply. */
  constructor(private readonly matcher: SecretMatcher = knownSecrets()) {}

  /** What can go out now for `piece`: masked, and never anything a later piece could still turn into a secret. */
  push(piece: string): string {
    if (this.matcher.empty) return piece;
    const text = this.held + piece;
    const { out, consumed } = this.matcher.scan(text, false);
    this.held = text.slice(consumed);
    return out;
  }

  /** The reply ended: what was held, masked as a whole text's end would be. */
  flush(): string {
    const out = this.matcher.mask(this.held);
    this.held = '';
    return out;
  }
}

/** The two stages together: the drop-in for one live stream of reply text (content, or reasoning). */
export class ReplyRedactor {
  private readonly known = new KnownSecretStream();
  private readonly rules = new StreamRedactor();

  push(piece: string): RedactedText {
    // The stream redactor's output is redaction itself (projections/brand.ts streamRedacted).
    return streamRedacted(this.rules.push(this.known.push(piece)));
  }

  flush(): RedactedText {
    const rest = this.known.flush();
    return streamRedacted(this.rules.push(rest) + this.rules.flush());
  }
}
