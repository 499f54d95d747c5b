// MCP search walks the files the search index does not hold (mcp/data.ts searchTree) with a substring match on
// their text, secrets masked first, so a hit never shows, nor by its mere presence confirms, part of a key. The
// redactor costs about a microsecond a character on the event loop, and it ran on every file the walk read: up
// to MAX_SEARCH_BYTES (32 MiB) per search, tens of seconds with /health waiting (issue 33). Redaction only
// replaces what a rule finds with a mask (redact/mask.ts) made of the text's own characters and the mask's
// marks, so a file whose raw text does not hold the query cannot hold it once redacted, unless the query holds
// one of those marks: such a file is skipped unread by the redactor. What is redacted is bounded per search.
import { MASK_ELLIPSIS, PHONE_MASK, redact, REDACTED_PRIVATE_KEY, SHORT_MASK } from '../redact/index.js';

/**
 * Characters redacted per search, over all the files whose raw text holds the query: a few hundred
 * milliseconds of the event loop at the most, taken a file at a time. Past it the search stops and says it is
 * incomplete.
 */
export const MAX_SEARCH_REDACT_CHARS = 2 * 1024 * 1024;

/** Every character a mask adds to a text (the rest of a mask is the text's own characters, kept). */
const MASK_MARKS = new Set([...MASK_ELLIPSIS, ...SHORT_MASK, ...PHONE_MASK, ...REDACTED_PRIVATE_KEY.toLowerCase()].filter((c) => !/\s/.test(c)));

/**
 * Whether a redacted text may hold `needle` (lower case) where its raw text does not: it has a mask's mark (or a
 * backslash, which a mask of Markdown-escaped text writes again, redact/markdown-escapes.ts), or lies inside the
 * private-key mask's words.
 */
export function maskMayMatch(needle: string): boolean {
  return REDACTED_PRIVATE_KEY.toLowerCase().includes(needle) || [...needle].some((c) => c === '\\' || (MASK_MARKS.has(c) && !/[a-z0-9]/.test(c)));
}

/** The texts one search matches against, each redacted only when the query can be in it, within one budget. */
export class SearchRedaction {
  private spent = 0;
  private readonly always: boolean;

  constructor(
    private readonly needle: string,
    private readonly budget = MAX_SEARCH_REDACT_CHARS,
  ) {
    this.always = maskMayMatch(needle);
  }

  /** Characters redacted so far. */
  get redactedChars(): number {
    return this.spent;
  }

  /**
   * `raw` redacted, to match against; `''` when the query cannot be in it (nothing to match, nothing redacted);
   * undefined when redacting it would pass the search's budget (the search stops there).
   */
  text(raw: string): string | undefined {
    if (!this.always && !raw.toLowerCase().includes(this.needle)) return '';
    if (this.spent + raw.length > this.budget) return undefined;
    this.spent += raw.length;
    return redact(raw);
  }
}
