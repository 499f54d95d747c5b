// The person's words as an FTS5 query, and what the index holds of a text. The query is never FTS5 syntax passed
// through: each word is a quoted phrase (a `"` inside doubled), so NEAR(, *, :, ^, -, AND/OR/NOT and quotes are
// just text; the last word is matched as a prefix, so typing "her" finds "heron".
import { redact, redactYielding } from '../../redact/index.js';

/** The longest query read: a person's search is a few words; 500 characters is a pasted sentence or two. */
export const MAX_SEARCH_QUERY_CHARS = 500;
/** Results per search when the caller names no limit, and the most it may ask for. */
export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 50;
/**
 * Tokens a snippet shows around the match (search-snippet.ts, as FTS5's snippet() counted them): 14 reads as a
 * sentence around the word in a result row, the "about 12-16 words" docs/API.md promises.
 */
export const SNIPPET_TOKENS = 14;
/**
 * Characters indexed of one attachment's text (a sidecar, a text file, an archive's list and members, a PDF's
 * pages, a transcript): the agent is sent far more than a message holds (a 148 K log whole), and a word it was
 * sent must be found (issue 35). 4 Mi characters is a 1,500-page document; the index and a search cost what the
 * words do (a hit's row is read in SNIPPET_HEAD_CHARS windows, search-window.ts), and indexing redacts it once,
 * about a second of CPU at the limit (docs/benchmarks.md). The rest of a longer text is not found.
 */
export const MAX_INDEXED_ATTACHMENT_CHARS = 4 * 1024 * 1024;
/** What a snippet shows where it cut the text (search-snippet.ts). */
export const SNIPPET_ELLIPSIS = '…';

export const SEARCH_EMPTY = 'Search text is empty';
export const SEARCH_TOO_LONG = `Search text too long (max ${MAX_SEARCH_QUERY_CHARS} characters)`;

/**
 * What unicode61 (the index's tokenizer, schema.ts) makes tokens of: letters, numbers and private-use
 * characters; everything else separates. A word with none of these has no token and would be an empty phrase.
 */
const TOKEN_CHAR = /[\p{L}\p{N}\p{Co}]/u;

/** The words of `words` the index can match, in order (each becomes one phrase of the query). */
export function queryTerms(words: string): string[] {
  return words.split(/[\s\p{Cc}]+/u).filter((w) => TOKEN_CHAR.test(w));
}

/**
 * The FTS5 MATCH expression for `words` (already redacted), or undefined when no word holds anything the
 * index could match (the query was only punctuation): that search finds nothing.
 */
export function ftsQuery(words: string): string | undefined {
  const terms = queryTerms(words);
  if (terms.length === 0) return undefined;
  return terms.map((w, i) => `"${w.replaceAll('"', '""')}"${i === terms.length - 1 ? '*' : ''}`).join(' ');
}

/**
 * The text the index holds for `raw`: redacted (so a snippet, cut from it, never shows part of a secret, and a
 * secret's characters are never in the index to be found), \u0001 and \u0002 (the markers FTS5's snippet() was
 * given before search-snippet.ts) taken out as before, so rows indexed then still read as current; at most
 * `maxChars` characters. Redacted before it is cut: a cut first could leave half a key the redactor no longer
 * recognizes.
 */
export function indexText(raw: string, maxChars = Number.POSITIVE_INFINITY): string {
  return cleanAndCut(redact(raw), maxChars);
}

/** indexText for an attachment's text (up to MAX_INDEXED_ATTACHMENT_CHARS): the same result, the event loop let go while it redacts. */
export async function indexTextYielding(raw: string, maxChars: number): Promise<string> {
  return cleanAndCut(await redactYielding(raw), maxChars);
}

function cleanAndCut(redacted: string, maxChars: number): string {
  const clean = redacted.replace(/[\u0001\u0002]/g, ' ');
  return clean.length > maxChars ? clean.slice(0, maxChars) : clean;
}

export interface SnippetSegment {
  text: string;
  match: boolean;
}
