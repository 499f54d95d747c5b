// Search everything a profile has (GET /api/search, MCP `search`): the person's words against the FTS5 index,
// every hit checked against the redactor before it leaves. The index holds redacted text (db/search-query.ts
// indexText), but a secret can become known after its text was indexed (the agent's key, saved later), and a
// database of an older Satchel indexed text unredacted: a hit whose stored text the redactor would now change is
// rewritten (redacted) and the search run again, so neither its snippet nor the match shows part of a secret.
import { redact } from '../redact/index.js';
import type { Db } from './db/connection.js';
import { rewriteDocs, searchRows, type SearchKind, type SearchRow, type SearchScope } from './db/search.js';
import { ftsQuery, indexText, MAX_INDEXED_ATTACHMENT_CHARS, snippetSegments, type SnippetSegment } from './db/search-query.js';
import { settlePendingAttachmentText, writeAttachmentText, type SessionListing } from './db/session-rows.js';

/**
 * Times a search rewrites stale rows and runs again before it drops those still stale. Each round rewrites the
 * whole page it found stale, so a second round only meets rows the first one's page did not reach; three keeps
 * a search bounded when many old rows hold secrets, and a dropped hit comes back once its row is rewritten.
 */
const STALE_ROUNDS = 3;

export interface SearchHit {
  listing: SessionListing;
  kind: SearchKind;
  position: number;
  attachment?: string;
  /** A message's role, when it is one a person sees as a message (user or assistant). */
  role?: 'user' | 'assistant';
  snippet: SnippetSegment[];
}

export interface SearchHits {
  /** The query as it was read: redacted. */
  query: string;
  hits: SearchHit[];
  /** False when more matched than `limit`. */
  complete: boolean;
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

/**
 * The best `scope.limit` hits of `query` (the person's words) in `scope.profile`'s sessions that `listing` knows
 * and are not deleted. `listing` answers the store's in-memory listing of a session (title, flags, times).
 */
export async function searchSessions(db: Db, listing: (id: string) => SessionListing | undefined, query: string, scope: SearchScope): Promise<SearchHits> {
  const limit = scope.limit;
  const redacted = redact(query);
  const match = ftsQuery(typedWords(query, redacted));
  if (match === undefined) return { query: redacted, hits: [], complete: true };
  let rows: SearchRow[] = [];
  let capped = false;
  for (let round = 0; ; round++) {
    // One more than asked: whether more matched.
    ({ rows, capped } = await searchRows(db, match, { ...scope, limit: limit + 1 }));
    const stale = rows.filter((r) => indexText(r.text) !== r.text);
    if (stale.length === 0) break;
    if (round === STALE_ROUNDS) {
      rows = rows.filter((r) => !stale.includes(r));
      break;
    }
    await db.transaction((q) => rewriteDocs(q, stale.map((r) => ({ id: r.id, text: indexText(r.text) }))));
  }
  const hits: SearchHit[] = [];
  for (const row of rows.slice(0, limit)) {
    const known = listing(row.session_id);
    // Deleted or removed since the rows were read: never shown.
    if (!known || known.deleted_at !== undefined) continue;
    hits.push({
      listing: known,
      kind: row.kind,
      position: row.position,
      ...(row.attachment !== null && row.attachment !== undefined ? { attachment: row.attachment } : {}),
      ...(row.role === 'user' || row.role === 'assistant' ? { role: row.role } : {}),
      snippet: snippetSegments(row.snippet),
    });
  }
  return { query: redacted, hits, complete: rows.length <= limit && !capped };
}

/**
 * Index the text the agent got from the attachment stored at `attachmentPath` (search/attachment-text.ts,
 * agent/input.ts): redacted and cut to MAX_INDEXED_ATTACHMENT_CHARS outside the transaction, which then only
 * writes. `settle` also clears a pending mark at that position (the backfill's, search/backfill.ts).
 */
export async function indexAttachmentText(db: Db, id: string, attachmentPath: string | null, text: string, settle?: number): Promise<boolean> {
  const indexed = indexText(text, MAX_INDEXED_ATTACHMENT_CHARS);
  return db.transaction(async (q) => {
    if (settle !== undefined) await settlePendingAttachmentText(q, id, settle);
    return attachmentPath === null ? false : writeAttachmentText(q, id, attachmentPath, indexed);
  });
}
