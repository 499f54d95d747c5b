// Search over the FTS5 index (schema.ts `search` over `search_docs`): ranked with bm25, a title counting
// double, one profile's sessions that are not deleted. No snippet() here: it is quadratic in a row's hits and
// would run for every ranked row; the store cuts a snippet from the first characters of each row returned
// (rowHead, search-snippet.ts). Run on the search reader's connection (search-reader.ts), never the writer's.
import type { Queries } from './connection.js';

export type SearchKind = 'title' | 'message' | 'attachment' | 'attachment_text';

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
  /** These sessions only (issue 39: an MCP agent key's granted conversations): applied as the index is walked,
   *  before the newest MAX_RANKED_ROWS are taken (grantedWalk). */
  sessionIds?: readonly string[];
}

/**
 * Rows ranked per search, at most: the most recently written matching rows (the highest ids). bm25 scores every
 * row it ranks, and the join, the filters and the sort cost per row too: a word in most of 200,000 messages
 * ("the", or the first letter typed) took 0.3-0.5 s to rank whole, over the 100 ms a search may take. Ranking
 * 2,000 rows put such a search's p95 at 74-104 ms over HTTP on the shared machine, 1,000 well under it
 * (docs/benchmarks.md "Search"); a query matching that many rows says little that one more word would not
 * narrow, and the answer then says it is not complete.
 */
export const MAX_RANKED_ROWS = 1_000;

/**
 * The ids of the newest MAX_RANKED_ROWS rows matching `match`, newest first, and whether more match: FTS5 walks
 * its lists by id, from the end, and stops there, without ranking anything.
 */
export async function matchingIds(q: Queries, match: string): Promise<{ ids: number[]; capped: boolean }> {
  const rows = await q.all<{ rowid: number }>(`SELECT rowid FROM search WHERE search MATCH ? ORDER BY rowid DESC LIMIT ${MAX_RANKED_ROWS + 1}`, [match]);
  return { ids: rows.slice(0, MAX_RANKED_ROWS).map((r) => r.rowid), capped: rows.length > MAX_RANKED_ROWS };
}

/** One ranked row: where it is. What it shows (its text's head, its attachment's name, its role) is read by
 *  rowHead for the rows returned only; read here, each of up to MAX_RANKED_ROWS rows would be loaded whole. */
export interface RankedRow {
  /** The index row's id (search_docs.id). */
  id: number;
  session_id: string;
  kind: SearchKind;
  /** The message's or attachment's position in its session (0 for a title). */
  position: number;
}

/**
 * The scope as two filters: on the index row `d` (one session, some kinds, some sessions) and on its session `s`
 * (the profile's, not deleted: a JSON read of the session's header). `walked`: the chosen sessions are already
 * applied where the index is walked (grantedWalk), so `d` is not tested against them again.
 */
function scopeFilters(scope: SearchScope, walked = false): { doc: string; docParams: Array<string | number>; session: string; sessionParams: Array<string | number> } {
  const session = scope.sessionId === undefined ? '' : 'AND d.session_id = ?';
  const kinds = scope.kinds === undefined ? '' : `AND d.kind IN (${scope.kinds.map(() => '?').join(', ')})`;
  const amongIds = scope.sessionIds !== undefined && !walked;
  const among = amongIds ? 'AND d.session_id IN (SELECT value FROM json_each(?))' : '';
  return {
    doc: `1 ${session} ${kinds} ${among}`,
    docParams: [...(scope.sessionId === undefined ? [] : [scope.sessionId]), ...(scope.kinds ?? []), ...(amongIds ? [JSON.stringify(scope.sessionIds)] : [])],
    session: `json_extract(s.header, '$.deleted_at') IS NULL AND ${PROFILE} = ?`,
    sessionParams: [scope.profile],
  };
}

/**
 * The sessions a search among chosen ones (an MCP key's granted conversations, issue 39) may find, one row each:
 * a table of the connection's own (TEMP), refilled by each such search. The reader runs one search at a time
 * (search-reader.ts), so no other search sees it half-filled; a read-only connection may still write its TEMP
 * tables. A table, not a JSON parameter read per row: the walk tests each matching row against it, and a
 * `json_each` list in the statement cost 3-5 ms more per search at 200 ids (docs/benchmarks.md, session 16).
 */
const GRANTED_TABLE = 'search_granted';

async function fillGranted(q: Queries, sessionIds: readonly string[]): Promise<void> {
  await q.run(`CREATE TEMP TABLE IF NOT EXISTS ${GRANTED_TABLE} (session_id TEXT PRIMARY KEY) WITHOUT ROWID`);
  await q.run(`DELETE FROM temp.${GRANTED_TABLE}`);
  await q.run(`INSERT OR IGNORE INTO temp.${GRANTED_TABLE} (session_id) SELECT value FROM json_each(?) WHERE type = 'text'`, [JSON.stringify(sessionIds)]);
}

/**
 * The ids between which every row of the granted sessions lies: the least of their first rows and the greatest of
 * their last (search_docs_session, schema 12), read once per search, in the walk's own statement (so from the same
 * snapshot). FTS5 takes a bound on rowid into its walk (SQLite's plan: `M1><`), so it starts at the granted rows'
 * newest and stops at their oldest instead of passing over every newer conversation's matches of the word: a key
 * granted the 200 least recently active of 2,000 conversations, searching a word in 65 % of 200,000 rows, walked
 * 62 ms of it and now 12 (sqlite3's timer on the bench's history, session 17). Nothing granted has rows: NULL, no row.
 */
const GRANTED_SPAN = `f.rowid BETWEEN
         (SELECT min((SELECT min(d.id) FROM search_docs d WHERE d.session_id = x.session_id)) FROM temp.${GRANTED_TABLE} x)
         AND (SELECT max((SELECT max(d.id) FROM search_docs d WHERE d.session_id = x.session_id)) FROM temp.${GRANTED_TABLE} x)`;

/**
 * The walk of the index for the newest MAX_RANKED_ROWS + 1 matching rows (their ids and bm25), as `hits`. Among
 * chosen sessions, each matching row is tested against them (and the kinds asked) while the index is walked,
 * newest first, before the LIMIT: tested after it, rows of other conversations took the chosen ones' places, and a
 * key granted older conversations found nothing of theirs for a word newer ones use often. bm25 is read only
 * for the rows kept (SQLite computes a column for the rows its WHERE lets through). The walk runs between the
 * granted rows' first and last ids only (GRANTED_SPAN); what it costs grows with the other conversations' matches
 * it passes over inside that span before it has MAX_RANKED_ROWS of the chosen sessions': at most every match of
 * the word, as bm25's own count of them does for any search; bounded by the reader's deadline. Exported for its
 * plan's test (search-granted.test.ts).
 */
export function grantedWalk(scope: SearchScope): { sql: string; params: Array<string | number> } {
  if (scope.sessionIds === undefined) {
    return { sql: `SELECT rowid AS id, bm25(search) AS score FROM search WHERE search MATCH ? ORDER BY rowid DESC LIMIT ${MAX_RANKED_ROWS + 1}`, params: [] };
  }
  const kinds = scope.kinds === undefined ? '' : `AND g.kind IN (${scope.kinds.map(() => '?').join(', ')})`;
  return {
    sql: `SELECT f.rowid AS id, bm25(search) AS score FROM search f CROSS JOIN search_docs g ON g.id = f.rowid
       WHERE search MATCH ? AND ${GRANTED_SPAN} AND g.session_id IN temp.${GRANTED_TABLE} ${kinds}
       ORDER BY f.rowid DESC LIMIT ${MAX_RANKED_ROWS + 1}`,
    params: [...(scope.kinds ?? [])],
  };
}

function scopeFilter(scope: SearchScope): { sql: string; params: Array<string | number> } {
  const f = scopeFilters(scope);
  return { sql: `${f.session} AND ${f.doc}`, params: [...f.sessionParams, ...f.docParams] };
}

/** A ranked row with what rowHead reads of it (its first `chars` characters, its attachment's name, its role). */
export interface RankedHead extends RankedRow {
  first: RowHead | undefined;
}

/**
 * matchingIds, the ranking of those rows and rowHead of each row returned, in one statement: the index is walked
 * once, newest first, for the newest MAX_RANKED_ROWS + 1 matching rows with their bm25 (a score over the whole
 * index's counts, the same in any order of reading); only those rows are joined to their place and session, only
 * ids and places are sorted, and the head, the message's role and the attachment's name are read for the
 * `scope.limit` rows kept, without a trip to SQLite's thread and back for each. Walking the index twice (the ids,
 * then the ranking) and 21 head reads put a search at 3-4x a bare FTS5 query (issue 37, finding 7). The same rows,
 * in the same order, with the same heads and the same `capped` as those steps one by one (search-ranked.test.ts).
 */
export async function rankNewestWithHeads(q: Queries, match: string, scope: SearchScope, chars: number): Promise<{ rows: RankedHead[]; capped: boolean }> {
  if (scope.sessionIds !== undefined) await fillGranted(q, scope.sessionIds);
  const walk = grantedWalk(scope);
  const filter = scopeFilters(scope, true);
  // The session's filter (a JSON read of its header, and the lookup of its row) only for the rows taken, best
  // first, until `limit` are in scope: `docs` is materialized in rank order and scanned in it (no ORDER BY after
  // the join, which would filter all 1,000 before sorting), and most rows are in scope. It cost ~0.5 ms of a
  // search's 5 over 1,000 rows (issue 37, finding 7); search-ranked.test.ts checks the rows and their order
  // against the statements of before.
  const rows = await q.all<{ matched: number; id: number | null; session_id: string; kind: SearchKind; position: number } & HeadColumns>(
    `WITH hits AS MATERIALIZED (${walk.sql}),
     docs AS MATERIALIZED (
       SELECT d.id, d.session_id, d.kind, d.position, h.score * CASE d.kind WHEN 'title' THEN ${TITLE_WEIGHT} ELSE 1 END AS score
       FROM (SELECT id, score FROM hits ORDER BY id DESC LIMIT ${MAX_RANKED_ROWS}) h
       JOIN search_docs d ON d.id = h.id
       WHERE ${filter.doc}
       ORDER BY score, d.id),
     ranked AS MATERIALIZED (
       SELECT r.id, r.session_id, r.kind, r.position, r.score
       FROM docs r CROSS JOIN sessions s ON s.id = r.session_id
       WHERE ${filter.session}
       LIMIT ?),
     heads AS MATERIALIZED (
       SELECT r.id, r.session_id, r.kind, r.position, r.score, ${HEAD_ONCE}
       FROM ranked r
       JOIN search_docs d ON d.id = r.id
       ${HEAD_JOINS})
     SELECT c.matched, h.id, h.session_id, h.kind, h.position, substr(h.first, 1, ?) AS head, length(h.first) > ? AS cut, h.attachment, h.shown, h.role
     FROM (SELECT count(*) AS matched FROM hits) c
     LEFT JOIN heads h ON 1
     ORDER BY h.score, h.id`,
    [match, ...walk.params, ...filter.docParams, ...filter.sessionParams, scope.limit, chars, chars, chars],
  );
  // One row at least (the count), with no ranked row's columns when none is in scope.
  const capped = (rows[0]?.matched ?? 0) > MAX_RANKED_ROWS;
  const ranked = rows.filter((row) => row.id !== null);
  return { rows: ranked.map((row) => ({ id: row.id!, session_id: row.session_id, kind: row.kind, position: row.position, first: headOf(row) })), capped };
}

/**
 * At most `scope.limit` of the rows `ids` (matching ids, matchingIds) in scope, the newest first: what a search
 * whose ranking ran out of time answers. No MATCH: a lookup by id, bounded by the ids' number.
 */
export function newestRows(q: Queries, ids: readonly number[], scope: SearchScope): Promise<RankedRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  const filter = scopeFilter(scope);
  return q.all<RankedRow>(
    `SELECT d.id, d.session_id, d.kind, d.position FROM search_docs d JOIN sessions s ON s.id = d.session_id
     WHERE d.id IN (${ids.map(() => '?').join(', ')}) AND ${filter.sql}
     ORDER BY d.id DESC LIMIT ?`,
    [...ids, ...filter.params, scope.limit],
  );
}

/** What a returned row shows: its text's first characters (and whether it goes on), its attachment's name, its role. */
export interface RowHead {
  head: string;
  cut: boolean;
  /** The attachment's stored name, for kinds attachment and attachment_text. */
  attachment: string | null;
  /** The name the person gave it (`display_name`), where it differs from the stored one. */
  shown: string | null;
  /** The stored message's role, for kind message. */
  role: string | null;
}

// What rowHead reads of search_docs `d`: whether the text goes on past `chars` is asked of the next character, not
// of length(), which would count all of it. Parameters: chars, chars + 1.
// A message's row holds its text where its index row does not (schema 8: search_texts).
const DOC_TEXT = `ifnull(d.text, json_extract(m.row, '$.content'))`;
const HEAD_COLUMNS = `substr(${DOC_TEXT}, 1, ?) AS head, substr(${DOC_TEXT}, ?, 1) <> '' AS cut,
       CASE WHEN d.kind IN ('attachment', 'attachment_text') THEN json_extract(a.record, '$.filename') END AS attachment,
       CASE WHEN d.kind IN ('attachment', 'attachment_text') THEN json_extract(a.record, '$.display_name') END AS shown,
       CASE WHEN d.kind = 'message' THEN json_extract(m.row, '$.role') END AS role`;
const HEAD_JOINS = `LEFT JOIN messages m ON m.session_id = d.session_id AND m.position = d.position AND d.kind = 'message'
     LEFT JOIN attachments a ON a.session_id = d.session_id AND a.position = d.position AND d.kind IN ('attachment', 'attachment_text')`;
/**
 * HEAD_COLUMNS with the text read once (`first`: its first `chars` + 1 characters, a parameter): a message's text is
 * its row's JSON parsed, and reading it for the head and again for `cut` parsed each returned row's JSON once more
 * (~0.5 ms of a search's 22 rows at 200,000 messages, issue 37 finding 7). The head and `cut` are made from it.
 */
const HEAD_ONCE = `substr(${DOC_TEXT}, 1, ? + 1) AS first,
       CASE WHEN d.kind IN ('attachment', 'attachment_text') THEN json_extract(a.record, '$.filename') END AS attachment,
       CASE WHEN d.kind IN ('attachment', 'attachment_text') THEN json_extract(a.record, '$.display_name') END AS shown,
       CASE WHEN d.kind = 'message' THEN json_extract(m.row, '$.role') END AS role`;
interface HeadColumns {
  head: unknown;
  cut: unknown;
  attachment: unknown;
  shown: unknown;
  role: unknown;
}

function headOf(row: HeadColumns | undefined): RowHead | undefined {
  if (!row || typeof row.head !== 'string') return undefined;
  return {
    head: row.head,
    cut: row.cut === 1,
    attachment: typeof row.attachment === 'string' ? row.attachment : null,
    shown: typeof row.shown === 'string' && row.shown !== '' ? row.shown : null,
    role: typeof row.role === 'string' ? row.role : null,
  };
}

/** The first `chars` characters of index row `id`'s text and what else it shows; undefined when it is gone. */
export async function rowHead(q: Queries, id: number, chars: number): Promise<RowHead | undefined> {
  return headOf(await q.get<HeadColumns>(`SELECT ${HEAD_COLUMNS} FROM search_docs d ${HEAD_JOINS} WHERE d.id = ?`, [chars, chars + 1, id]));
}

/** Replace index rows' texts (the triggers re-index them): rows found holding what the redactor now masks. */
export async function rewriteDocs(q: Queries, docs: ReadonlyArray<{ id: number; was: string; text: string }>): Promise<void> {
  // Only a row still holding what the search read (`was`): the search reads on its own connection, and a write
  // may have replaced the row since.
  for (const doc of docs) await q.run('UPDATE search_docs SET text = ? WHERE id = ? AND id IN (SELECT id FROM search_texts WHERE id = ? AND text = ?)', [doc.text, doc.id, doc.id, doc.was]);
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
