// A hit's snippet, checked against the redactor without redacting its whole row again. The index holds text
// redacted when it was written (db/search-query.ts indexText), so a snippet cut from it shows no secret the
// redactor knew then. What this checks is the rest: a key learned later (the agent's, saved after the text was
// indexed), or an older Satchel's row indexed unredacted. Redacting a hit's whole row on every search cost a
// second per 4 MiB row on the event loop (51 imported rows: 53.8 s, /health waiting 49.6 s); here only the
// snippet's characters are, widened by SNIPPET_REDACT_MARGIN_CHARS each side so a key cut by the snippet's edge
// is seen whole, and then out to a blank. A run of characters with no blank that crosses even that widened edge
// and goes on into the snippet is not shown: part of a key the redactor could not see whole.
import { indexText, type SnippetSegment } from './db/search-query.js';
import { SNIPPET_SCAN_CHARS, snippetOf, snippetSegments, type Phrase, type Snippet } from './db/search-snippet.js';

/**
 * Characters redacted beyond each edge of a snippet: longer than any key's shape the rules know (a GitHub
 * fine-grained token is 93 characters, a JWT a few hundred) and than a known key's halves, which are masked on
 * their own (redact/known.ts). Redacting a snippet's ~1,100 characters takes about a millisecond.
 */
export const SNIPPET_REDACT_MARGIN_CHARS = 512;
/** Characters of a row read for its snippet: what is scanned for hits, and room to widen the last window. */
export const SNIPPET_HEAD_CHARS = SNIPPET_SCAN_CHARS + 2 * SNIPPET_REDACT_MARGIN_CHARS;

export type RedactedSnippet =
  /** The snippet to show; `short`: what was read ended within its margin (read more for a better one). */
  | { kind: 'shown'; segments: SnippetSegment[]; short?: true }
  /** The row (read whole) is not what the redactor makes of it now: `text` is; rewrite it and search again. */
  | { kind: 'stale'; text: string }
  /** The snippet holds what the redactor masks, and the row is too long to check whole here: not shown. */
  | { kind: 'unsure' };

const isBlank = (c: string | undefined): boolean => c !== undefined && /\s/.test(c);

/** [start, end) of `text` around [from, to): the margin each side, then on to a blank within another margin. */
function widen(text: string, from: number, to: number): { start: number; end: number } {
  let start = Math.max(0, from - SNIPPET_REDACT_MARGIN_CHARS);
  for (let i = start; i > 0 && i > start - SNIPPET_REDACT_MARGIN_CHARS; i--) {
    if (isBlank(text[i - 1])) {
      start = i;
      break;
    }
  }
  let end = Math.min(text.length, to + SNIPPET_REDACT_MARGIN_CHARS);
  for (let i = end; i < text.length && i < end + SNIPPET_REDACT_MARGIN_CHARS; i++) {
    if (isBlank(text[i])) {
      end = i;
      break;
    }
  }
  return { start, end };
}

/**
 * `snippet` with what it shows of a run of non-blank characters that crosses [start, end)'s edge (`openStart`,
 * `openEnd`: the run goes on past it) and reaches into the snippet with no blank between left out: the redactor
 * saw only part of it.
 */
function withoutCutRuns(text: string, snippet: Snippet, start: number, end: number, openStart: boolean, openEnd: boolean): Snippet {
  let { from, to } = snippet;
  let { before, after } = snippet;
  if (openStart && !/\s/.test(text.slice(start, from))) {
    let i = from;
    while (i < to && !isBlank(text[i])) i++;
    if (i > from) {
      from = i;
      before = true;
    }
  }
  if (openEnd && !/\s/.test(text.slice(to, end))) {
    let i = to;
    while (i > from && !isBlank(text[i - 1])) i--;
    if (i < to) {
      to = i;
      after = true;
    }
  }
  // Nothing left to show: one ellipsis.
  if (from >= to) return { from: to, to, before: true, after: false, marks: [] };
  return { from, to, before, after, marks: snippet.marks };
}

/**
 * The snippet of a hit whose row begins `head` (`cut`: the row goes on past it) for `phrases`, redacted as
 * above. A snippet the redactor changes means the row may hold a key it did not when indexed: a row read whole
 * is checked whole (stale: rewritten by the caller; not: the change came from cutting, and the snippet is taken
 * from the redacted characters); a longer row cannot be, and is not shown.
 */
export function redactedSnippet(head: string, cut: boolean, phrases: readonly Phrase[]): RedactedSnippet {
  const snippet = snippetOf(head, phrases, cut);
  const { start, end } = widen(head, snippet.from, snippet.to);
  const window = head.slice(start, end);
  const openStart = start > 0 && !isBlank(head[start - 1]) && !isBlank(head[start]);
  const openEnd = end < head.length ? !isBlank(head[end - 1]) && !isBlank(head[end]) : cut && !isBlank(head[end - 1]);
  const redacted = indexText(window);
  if (redacted === window) {
    const segments = snippetSegments(head, withoutCutRuns(head, snippet, start, end, openStart, openEnd));
    return cut && end === head.length ? { kind: 'shown', segments, short: true } : { kind: 'shown', segments };
  }
  if (cut) return { kind: 'unsure' };
  const whole = indexText(head);
  if (whole !== head) return { kind: 'stale', text: whole };
  // The row is as the redactor makes it; its cut window alone is not (a cut made a word look like a key): shown
  // from the window as redacted, which holds nothing the redactor masks.
  const again = snippetOf(redacted, phrases, end < head.length);
  const shown = withoutCutRuns(redacted, again, 0, redacted.length, openStart, openEnd);
  return { kind: 'shown', segments: snippetSegments(redacted, { ...shown, before: shown.before || start > 0 }) };
}
