// Search everything a profile has (GET /api/search, MCP `search`): the person's words against the FTS5 index,
// every hit checked against the redactor before it leaves. The index holds redacted text (db/search-query.ts
// indexText), but a secret can become known after its text was indexed (the agent's key, saved later), and a
// database of an older Satchel indexed text unredacted: a hit whose snippet the redactor would now change is
// checked whole and rewritten (redacted), and the search run again, so neither its snippet nor the match shows
// part of a secret (search-window.ts). The index is read on the search reader's own connection, with a deadline
// (db/search-reader.ts): a search never holds a write, and answers what it found when time runs out.
import { redact } from '../redact/index.js';
import type { Db } from './db/connection.js';
import { isInterrupted, SEARCH_DEADLINE_MS, type SearchReader, type SearchRun } from './db/search-reader.js';
import { matchingIds, newestRows, rankNewestWithHeads, rewriteDocs, rowHead, type RankedHead, type RankedRow, type SearchKind, type SearchScope } from './db/search.js';
import { ftsQuery, indexTextYielding, MAX_INDEXED_ATTACHMENT_CHARS, type SnippetSegment } from './db/search-query.js';
import { queryPhrases, SNIPPET_SCAN_CHARS, type Phrase } from './db/search-snippet.js';
import { farSnippet } from './search-far.js';
import { settlePendingAttachmentText, writeAttachmentText, type SessionListing } from './db/session-rows.js';
import { redactedSnippet, SNIPPET_HEAD_CHARS } from './search-window.js';

/**
 * Times a search rewrites stale rows and runs again before it drops those still stale. Each round rewrites the
 * whole page it found stale, so a second round only meets rows the first one's page did not reach; three keeps
 * a search bounded when many old rows hold secrets, and a dropped hit comes back once its row is rewritten.
 */
const STALE_ROUNDS = 3;

/**
 * Characters of a returned row read first: its first hits are nearly always within them (a snippet needs its
 * first 64 and 14 words around, then the redaction margins), so a 100 KB row is not carried whole to be cut;
 * a row whose hits lie further in is read again, up to SNIPPET_HEAD_CHARS.
 */
export const SNIPPET_FIRST_READ_CHARS = 8_192;

/** What an answer says when the search ran out of time (SEARCH_DEADLINE_MS) before it had ranked everything. */
export const SEARCH_STOPPED = `This search took longer than ${SEARCH_DEADLINE_MS / 1000} s and was stopped: the newest matches are shown, not the best. Add a word to narrow it.`;
/** …after it had ranked, while it read the rows' snippets (SNIPPET_READ_GRACE_MS). */
export const SEARCH_STOPPED_SOME = `This search took longer than ${SEARCH_DEADLINE_MS / 1000} s and was stopped: only some of the matches are shown. Add a word to narrow it.`;
/**
 * How long past the deadline the rows found may still have their snippets read; the rest are left out. Each read
 * loads its row whole in SQLite (20 imported rows of 4 MiB took 0.7 s), and a row's result needs its snippet.
 */
export const SNIPPET_READ_GRACE_MS = 500;
/** …and before it had found anything. */
export const SEARCH_STOPPED_EMPTY = `This search took longer than ${SEARCH_DEADLINE_MS / 1000} s and was stopped before it found anything. Add a word to narrow it.`;

export interface SearchHit {
  listing: SessionListing;
  kind: SearchKind;
  position: number;
  attachment?: string;
  /** The attachment's name as the person gave it (issue 38, item 4), where it differs from `attachment`. */
  display_name?: string;
  /** A message's role, when it is one a person sees as a message (user or assistant). */
  role?: 'user' | 'assistant';
  snippet: SnippetSegment[];
}

export interface SearchHits {
  /** The query as it was read: redacted. */
  query: string;
  hits: SearchHit[];
  /** False when more matched than `limit`, or the search was stopped. */
  complete: boolean;
  /** The search ran out of time: what it says (SEARCH_STOPPED, SEARCH_STOPPED_EMPTY). */
  stopped?: string;
}

/** Separates words, as ftsQuery splits them. */
const WORD_BREAK = /[\s\p{Cc}]+/u;

/**
 * The words of `redacted` (the query redacted) that the person typed as they are: a word the redactor changed
 * is a secret's mask, and searching it would find the messages holding that key. So a key typed whole finds
 * nothing, as a part of one does (the index holds no secret's characters).
 */
function typedWords(query: string, redacted: string): string {
  const typed = new Set(query.split(WORD_BREAK));
  return redacted
    .split(WORD_BREAK)
    .filter((w) => typed.has(w))
    .join(' ');
}

/** One row found, with what it shows. */
interface FoundRow extends RankedRow {
  attachment: string | null;
  shown: string | null;
  role: string | null;
  snippet: SnippetSegment[];
}

interface Found {
  rows: FoundRow[];
  /** Rows whose text the redactor now changes, read whole: rewrite them and search again. */
  stale: Array<{ id: number; was: string; text: string }>;
  /** Rows matched in scope (at most the limit asked), shown or not. */
  matched: number;
  capped: boolean;
  stopped?: string;
}

/**
 * One pass over the index on the reader: the newest MAX_RANKED_ROWS matching ids, the best `scope.limit` of
 * them and their first characters (or, past the deadline, the newest), then the snippet of each row returned.
 */
async function findRows(run: SearchRun, match: string, phrases: readonly Phrase[], scope: SearchScope): Promise<Found> {
  const until = performance.now() + SEARCH_DEADLINE_MS + SNIPPET_READ_GRACE_MS;
  let ranked: Array<RankedRow & Partial<RankedHead>> | undefined;
  let capped = false;
  let stopped: string | undefined;
  try {
    // The newest matching rows, the best of them and the first read of each returned, in one walk of the index.
    ({ rows: ranked, capped } = await rankNewestWithHeads(run.q, match, scope, SNIPPET_FIRST_READ_CHARS));
  } catch (err) {
    if (!isInterrupted(err)) throw err;
  }
  if (ranked === undefined) {
    // Out of time while ranking: the newest of the rows found, looked up by id (bounded by their number).
    let ids: number[];
    try {
      ({ ids, capped } = await matchingIds(run.q, match));
    } catch (err) {
      if (!isInterrupted(err)) throw err;
      return { rows: [], stale: [], matched: 0, capped: true, stopped: SEARCH_STOPPED_EMPTY };
    }
    ranked = await newestRows(run.q, ids, scope);
    stopped = ranked.length > 0 ? SEARCH_STOPPED : SEARCH_STOPPED_EMPTY;
  }
  const rows: FoundRow[] = [];
  const stale: Found['stale'] = [];
  for (const row of ranked) {
    // Past the deadline each row is still one bounded read; a row's snippet is what makes its result readable.
    if (run.abandoned) break;
    if (performance.now() > until) {
      stopped ??= SEARCH_STOPPED_SOME;
      break;
    }
    let head = row.first ?? (await rowHead(run.q, row.id, SNIPPET_FIRST_READ_CHARS));
    if (!head) continue;
    let snippet = redactedSnippet(head.head, head.cut, phrases);
    if (head.cut && (snippet.kind === 'unsure' || (snippet.kind === 'shown' && (snippet.short || !snippet.segments.some((x) => x.match))))) {
      // The first hits lie further in, or the row must be checked whole: read as far as a snippet looks.
      head = await rowHead(run.q, row.id, SNIPPET_HEAD_CHARS);
      if (!head) continue;
      snippet = redactedSnippet(head.head, head.cut, phrases);
    }
    if (snippet.kind === 'stale') stale.push({ id: row.id, was: head.head, text: snippet.text });
    if (snippet.kind !== 'shown') continue;
    // No match in what a snippet looks at: the words lie further in (a long attachment's text), read on to them.
    const far = head.cut && !snippet.segments.some((x) => x.match) ? await farSnippet(run.q, row.id, phrases, SNIPPET_SCAN_CHARS, until) : undefined;
    rows.push({ ...row, attachment: head.attachment, shown: head.shown, role: head.role, snippet: far ?? snippet.segments });
  }
  return { rows, stale, matched: ranked.length, capped: capped || stopped !== undefined, ...(stopped ? { stopped } : {}) };
}

/**
 * The best `scope.limit` hits of `query` (the person's words) in `scope.profile`'s sessions that `listing` knows
 * and are not deleted. `listing` answers the store's in-memory listing of a session (title, flags, times).
 * `signal`: the asker left (the page typed past this query): the search stops, and this rejects.
 */
export async function searchSessions(
  db: Db,
  reader: SearchReader,
  listing: (id: string) => SessionListing | undefined,
  query: string,
  scope: SearchScope,
  signal?: AbortSignal,
): Promise<SearchHits> {
  const limit = scope.limit;
  const redacted = redact(query);
  const words = typedWords(query, redacted);
  const match = ftsQuery(words);
  if (match === undefined) return { query: redacted, hits: [], complete: true };
  const phrases = queryPhrases(words);
  let found: Found;
  for (let round = 0; ; round++) {
    // One more than asked: whether more matched.
    found = await reader.run((run) => findRows(run, match, phrases, { ...scope, limit: limit + 1 }), signal);
    if (found.stale.length === 0 || round === STALE_ROUNDS) break;
    const stale = found.stale;
    await db.transaction((q) => rewriteDocs(q, stale));
  }
  const hits: SearchHit[] = [];
  for (const row of found.rows.slice(0, limit)) {
    const known = listing(row.session_id);
    // Deleted or removed since the rows were read: never shown.
    if (!known || known.deleted_at !== undefined) continue;
    hits.push({
      listing: known,
      kind: row.kind,
      position: row.position,
      ...(row.attachment !== null ? { attachment: row.attachment } : {}),
      ...(row.attachment !== null && row.shown !== null && row.shown !== row.attachment ? { display_name: row.shown } : {}),
      ...(row.role === 'user' || row.role === 'assistant' ? { role: row.role } : {}),
      snippet: row.snippet,
    });
  }
  // A row left out (still stale, or not checkable) counts as a match: the answer is then not complete.
  const complete = found.matched <= limit && !found.capped;
  return { query: redacted, hits, complete, ...(found.stopped ? { stopped: found.stopped } : {}) };
}

/**
 * Index the text the agent got from the attachment stored at `attachmentPath` (search/attachment-text.ts,
 * agent/input.ts): redacted and cut to MAX_INDEXED_ATTACHMENT_CHARS outside the transaction, which then only
 * writes. `settle` also clears a pending mark at that position (the backfill's, search/backfill.ts).
 */
export async function indexAttachmentText(db: Db, id: string, attachmentPath: string | null, text: string, settle?: number): Promise<boolean> {
  const indexed = await indexTextYielding(text, MAX_INDEXED_ATTACHMENT_CHARS);
  return db.transaction(async (q) => {
    if (settle !== undefined) await settlePendingAttachmentText(q, id, settle);
    return attachmentPath === null ? false : writeAttachmentText(q, id, attachmentPath, indexed);
  });
}
