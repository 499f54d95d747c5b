// The snippet of a hit that lies past what a search reads of its row first (SNIPPET_HEAD_CHARS): an attachment's
// text is indexed up to MAX_INDEXED_ATTACHMENT_CHARS (4 Mi characters), so the word a person searched for may
// sit a megabyte in (issue 35, "anything past 100,000 characters of a 148 K log"). Without this the row was found
// and shown by its first words, none of them the match. The row is read on in FAR_READ_CHARS pieces, each scanned
// in windows the size the head is scanned in, and each window's snippet is checked against the redactor as the
// head's is (search-window.ts), within the search's own time (`until`).
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Queries } from './db/connection.js';
import { MAX_INDEXED_ATTACHMENT_CHARS, SNIPPET_ELLIPSIS, type SnippetSegment } from './db/search-query.js';
import { SNIPPET_SCAN_CHARS, type Phrase } from './db/search-snippet.js';
import { redactedSnippet, SNIPPET_REDACT_MARGIN_CHARS } from './search-window.js';

/** Characters read from the database per step: SQLite reads the row whole for each substr(), so few large reads. */
export const FAR_READ_CHARS = 1024 * 1024;

/** Room after a window for its last snippet's margin (as SNIPPET_HEAD_CHARS gives the head's). */
const SNIPPET_HEAD_EXTRA = 2 * SNIPPET_REDACT_MARGIN_CHARS;

/** Where a window near `at` starts: just after the last blank within 2 margins before it, else at `at`. */
function afterBlank(text: string, at: number): number {
  for (let i = at; i > 0 && i > at - 2 * SNIPPET_REDACT_MARGIN_CHARS; i--) if (/\s/.test(text[i - 1]!)) return i;
  return at;
}

const ASCII = /^[\x00-\x7f]*$/;

/** Where the first of the phrases' first words occurs in `lower` from `from` on (as a substring), or -1. */
function nextCandidate(lower: string, phrases: readonly Phrase[], from: number): number {
  let first = -1;
  for (const p of phrases) {
    const at = lower.indexOf(p.tokens[0]!, from);
    if (at !== -1 && (first === -1 || at < first)) first = at;
  }
  return first;
}

/** `chars` characters of row `id`'s text from character `from` (0-based), and whether it goes on after them. */
async function rowSlice(q: Queries, id: number, from: number, chars: number): Promise<{ text: string; cut: boolean } | undefined> {
  const row = await q.get<{ text: unknown; cut: unknown }>(`SELECT substr(text, ?, ?) AS text, substr(text, ?, 1) <> '' AS cut FROM search_texts WHERE id = ?`, [from + 1, chars, from + chars + 1, id]);
  if (!row || typeof row.text !== 'string') return undefined;
  return { text: row.text, cut: row.cut === 1 };
}

/**
 * The first snippet with a match in row `id` from character `start` on, or undefined when none is found before
 * the row's end, the index's limit or `until` (performance.now()). A window starts at a blank, so no word (or
 * key) is cut at its start; its snippet begins with an ellipsis, text having been left out before it.
 */
export async function farSnippet(q: Queries, id: number, phrases: readonly Phrase[], start: number, until: number): Promise<SnippetSegment[] | undefined> {
  for (let from = start; from < MAX_INDEXED_ATTACHMENT_CHARS && performance.now() < until; from += FAR_READ_CHARS) {
    // Read back far enough that a hit near the step's edge has its margin and a blank to start at.
    const back = Math.min(from, 2 * SNIPPET_REDACT_MARGIN_CHARS);
    const piece = await rowSlice(q, id, from - back, FAR_READ_CHARS + back + SNIPPET_HEAD_EXTRA);
    if (!piece || piece.text.length <= back) return undefined;
    // ASCII text folds to its lower case (a log, mostly): windows up to the first place a phrase's first word
    // could start are skipped unscanned, a megabyte in milliseconds. Other text is scanned window by window.
    const ascii = ASCII.test(piece.text);
    const lower = ascii ? piece.text.toLowerCase() : '';
    for (let at = back; at < piece.text.length && performance.now() < until; at += SNIPPET_SCAN_CHARS) {
      if (ascii) {
        const next = nextCandidate(lower, phrases, at);
        if (next === -1) break;
        at = Math.max(at, next - SNIPPET_REDACT_MARGIN_CHARS);
      }
      const begin = afterBlank(piece.text, at);
      const end = Math.min(piece.text.length, at + SNIPPET_SCAN_CHARS + SNIPPET_HEAD_EXTRA);
      const window = piece.text.slice(begin, end);
      const snippet = redactedSnippet(window, end < piece.text.length || piece.cut, phrases);
      if (snippet.kind !== 'shown' || !snippet.segments.some((s) => s.match)) {
        // Each window is redacted (tens of milliseconds for non-ASCII text): other requests go between them.
        await nextTurn();
        continue;
      }
      const first = snippet.segments[0]!;
      if (!first.text.startsWith(SNIPPET_ELLIPSIS)) return [{ text: SNIPPET_ELLIPSIS, match: false }, ...snippet.segments];
      return snippet.segments;
    }
    if (!piece.cut) return undefined;
  }
  return undefined;
}
