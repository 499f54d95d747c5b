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

/** At most `limit` rows matching `match` (an FTS5 expression from ftsQuery) in `profile`'s live sessions. */
export function searchRows(q: Queries, match: string, profile: string, limit: number): Promise<SearchRow[]> {
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
     WHERE search MATCH ? AND json_extract(s.header, '$.deleted_at') IS NULL AND ${PROFILE} = ?
     ORDER BY bm25(search) * CASE d.kind WHEN 'title' THEN ${TITLE_WEIGHT} ELSE 1 END, d.id
     LIMIT ?`,
    [MATCH_OPEN, MATCH_CLOSE, SNIPPET_ELLIPSIS, SNIPPET_TOKENS, match, profile, limit],
  );
}

/** Replace index rows' texts (the triggers re-index them): a row found holding what the redactor now masks. */
export async function rewriteDocs(q: Queries, docs: ReadonlyArray<{ id: number; text: string }>): Promise<void> {
  for (const doc of docs) await q.run('UPDATE search_docs SET text = ? WHERE id = ?', [doc.text, doc.id]);
}
