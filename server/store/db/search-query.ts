// The person's words as an FTS5 query, and FTS5's snippet as segments. The query is never FTS5 syntax passed
// through: each word is a quoted phrase (a `"` inside doubled), so NEAR(, *, :, ^, -, AND/OR/NOT and quotes are
// just text; the last word is matched as a prefix, so typing "her" finds "heron".
import { redact } from '../../redact/index.js';

/** The longest query read: a person's search is a few words; 500 characters is a pasted sentence or two. */
export const MAX_SEARCH_QUERY_CHARS = 500;
/** Results per search when the caller names no limit, and the most it may ask for. */
export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 50;
/**
 * Tokens of context FTS5's snippet() keeps around the match (its maximum is 64): 14 reads as a sentence around
 * the word in a result row, the "about 12-16 words" docs/API.md promises.
 */
export const SNIPPET_TOKENS = 14;
/**
 * Characters indexed of one attachment's text (a sidecar, a text file, a transcript): as many as the longest
 * message (MAX_MESSAGE_CHARS), so an attachment costs the index and a snippet no more than a message does; it
 * holds most of an Office sidecar (at most 120,000 characters, office/convert.ts PREVIEW_MAX_CHARS) and any
 * document's first 40-odd pages. The rest of a longer text is not found.
 */
export const MAX_INDEXED_ATTACHMENT_CHARS = 100_000;
/** Where snippet() opens and closes a match: control characters the indexed text never holds (indexText). */
export const MATCH_OPEN = '\u0001';
export const MATCH_CLOSE = '\u0002';
/** What snippet() puts where it cut the text. */
export const SNIPPET_ELLIPSIS = '…';

export const SEARCH_EMPTY = 'Search text is empty';
export const SEARCH_TOO_LONG = `Search text too long (max ${MAX_SEARCH_QUERY_CHARS} characters)`;

/**
 * What unicode61 (the index's tokenizer, schema.ts) makes tokens of: letters, numbers and private-use
 * characters; everything else separates. A word with none of these has no token and would be an empty phrase.
 */
const TOKEN_CHAR = /[\p{L}\p{N}\p{Co}]/u;

/**
 * The FTS5 MATCH expression for `words` (already redacted), or undefined when no word holds anything the
 * index could match (the query was only punctuation): that search finds nothing.
 */
export function ftsQuery(words: string): string | undefined {
  const terms = words.split(/[\s\p{Cc}]+/u).filter((w) => TOKEN_CHAR.test(w));
  if (terms.length === 0) return undefined;
  return terms.map((w, i) => `"${w.replaceAll('"', '""')}"${i === terms.length - 1 ? '*' : ''}`).join(' ');
}

/**
 * The text the index holds for `raw`: redacted (so a snippet, built by FTS5 from it, never shows part of a
 * secret, and a secret's characters are never in the index to be found), the snippet markers taken out, at most
 * `maxChars` characters. Redacted before it is cut: a cut first could leave half a key the redactor no longer
 * recognizes.
 */
export function indexText(raw: string, maxChars = Number.POSITIVE_INFINITY): string {
  const clean = redact(raw).replace(/[\u0001\u0002]/g, ' ');
  return clean.length > maxChars ? clean.slice(0, maxChars) : clean;
}

export interface SnippetSegment {
  text: string;
  match: boolean;
}

/** snippet()'s output, its markers turned into segments: `match` for the words found, never HTML. */
export function snippetSegments(snippet: string): SnippetSegment[] {
  const out: SnippetSegment[] = [];
  let match = false;
  for (const part of snippet.split(/([\u0001\u0002])/)) {
    if (part === MATCH_OPEN) match = true;
    else if (part === MATCH_CLOSE) match = false;
    else if (part !== '') {
      const last = out.at(-1);
      if (last && last.match === match) last.text += part;
      else out.push({ text: part, match });
    }
  }
  return out;
}
