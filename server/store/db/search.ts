// Search over the FTS5 index (schema.ts `search` over `search_docs`): ranked with bm25, a title counting
// double, one profile's sessions that are not deleted, each hit with FTS5's snippet of the indexed text.
import type { Queries } from './connection.js';
import { MATCH_CLOSE, MATCH_OPEN, SNIPPET_ELLIPSIS, SNIPPET_TOKENS } from './search-query.js';

export type SearchKind = 'title' | 'message' | 'attachment' | 'attachment_text';

/** One matched row of the index, best first. */
export interface SearchRow {
  /** The index row's id (search_docs.id), to rewrite it when it is found stale. */
  id: number;
  session_id: string;
  kind: SearchKind;
  /** The message's or attachment's position in its session (0 for a title). */
  position: number;
  /** The whole indexed text, to check it is still what the redactor makes of it (sessions.ts `search`). */
  text: string;
  /** snippet() with MATCH_OPEN / MATCH_CLOSE around the words found. */
  snippet: string;
  /** The attachment's stored name, for kinds attachment and attachment_text. */
  attachment: string | null;
  /** The stored message's role, for kind message. */
  role: string | null;
}

/**
 * How much better a title match ranks than a message match of the same bm25 score: bm25 is negative (lower is
 * better), so a factor over 1 moves titles up; 2 puts a title above a message that uses the word as often.
 */
const TITLE_WEIGHT = 2;

// A session's profile as sessionVisible reads it (store/profiles.ts): a missing, empty or non-string one is 'default'.
const PROFILE = `CASE WHEN json_type(s.header, '$.profile') = 'text' AND json_extract(s.header, '$.profile') <> ''
  THEN json_extract(s.header, '$.profile') ELSE 'default' END`;

export interface SearchScope {
  profile: string;
  limit: number;
  /** One session only (MCP's search is a session's). */
  sessionId?: string;
  /** These kinds only. */
  kinds?: readonly SearchKind[];
}

/**
 * Rows ranked per search, at most: the most recently written matching rows (the highest ids). bm25 scores every
 * row it ranks, and the join, the filters and the sort cost per row too: a word in most of 200,000 messages
 * ("the", or the first letter typed) took 0.3-0.5 s to rank whole, over the 100 ms a search may take
 * (docs/benchmarks.md). 2,000 such rows rank in about 20-30 ms here, and a query matching that many says little
 * that more words would not narrow; the answer then says it is not complete.
 */
export const MAX_RANKED_ROWS = 2_000;

/**
 * The id from which on the newest MAX_RANKED_ROWS rows matching `match` lie (0 when fewer match), and whether
 * more match: FTS5 walks its lists by id, from the end, and stops there, without ranking anything.
 */
async function rankedFrom(q: Queries, match: string): Promise<{ from: number; capped: boolean }> {
  const rows = await q.all<{ rowid: number }>(`SELECT rowid FROM search WHERE search MATCH ? ORDER BY rowid DESC LIMIT 2 OFFSET ${MAX_RANKED_ROWS - 1}`, [match]);
  return { from: rows[0]?.rowid ?? 0, capped: rows.length > 1 };
}

/**
 * At most `limit` rows matching `match` (an FTS5 expression from ftsQuery) in `profile`'s live sessions, best
 * first, among the newest MAX_RANKED_ROWS that match (`capped` when more matched).
 */
export async function searchRows(q: Queries, match: string, scope: SearchScope): Promise<{ rows: SearchRow[]; capped: boolean }> {
  const { from, capped } = await rankedFrom(q, match);
  return { rows: await rankRows(q, match, from, scope), capped };
}

function rankRows(q: Queries, match: string, from: number, scope: SearchScope): Promise<SearchRow[]> {
  const session = scope.sessionId === undefined ? '' : 'AND d.session_id = ?';
  const kinds = scope.kinds === undefined ? '' : `AND d.kind IN (${scope.kinds.map(() => '?').join(', ')})`;
  return q.all<SearchRow>(
    `SELECT d.id, d.session_id, d.kind, d.position, d.text,
       snippet(search, 0, ?, ?, ?, ?) AS snippet,
       CASE WHEN d.kind IN ('attachment', 'attachment_text') THEN json_extract(a.record, '$.filename') END AS attachment,
       CASE WHEN d.kind = 'message' THEN json_extract(m.row, '$.role') END AS role
     FROM search
     JOIN search_docs d ON d.id = search.rowid
     JOIN sessions s ON s.id = d.session_id
     LEFT JOIN messages m ON m.session_id = d.session_id AND m.position = d.position AND d.kind = 'message'
     LEFT JOIN attachments a ON a.session_id = d.session_id AND a.position = d.position AND d.kind IN ('attachment', 'attachment_text')
     WHERE search MATCH ? AND search.rowid >= ? AND json_extract(s.header, '$.deleted_at') IS NULL AND ${PROFILE} = ? ${session} ${kinds}
     ORDER BY bm25(search) * CASE d.kind WHEN 'title' THEN ${TITLE_WEIGHT} ELSE 1 END, d.id
     LIMIT ?`,
    [
      MATCH_OPEN,
      MATCH_CLOSE,
      SNIPPET_ELLIPSIS,
      SNIPPET_TOKENS,
      match,
      from,
      scope.profile,
      ...(scope.sessionId === undefined ? [] : [scope.sessionId]),
      ...(scope.kinds ?? []),
      scope.limit,
    ],
  );
}

/** Replace index rows' texts (the triggers re-index them): a row found holding what the redactor now masks. */
export async function rewriteDocs(q: Queries, docs: ReadonlyArray<{ id: number; text: string }>): Promise<void> {
  for (const doc of docs) await q.run('UPDATE search_docs SET text = ? WHERE id = ?', [doc.text, doc.id]);
}

/** The stored names of a session's attachments whose text is indexed. */
export async function indexedAttachmentNames(q: Queries, sessionId: string): Promise<string[]> {
  const rows = await q.all<{ filename: unknown }>(
    `SELECT json_extract(a.record, '$.filename') AS filename FROM search_docs d
     JOIN attachments a ON a.session_id = d.session_id AND a.position = d.position
     WHERE d.session_id = ? AND d.kind = 'attachment_text'`,
    [sessionId],
  );
  return rows.map((r) => r.filename).filter((f): f is string => typeof f === 'string');
}
