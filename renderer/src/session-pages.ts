// A long conversation is read tail first (GET /api/session `limit`, docs/API.md): the page holds its newest rows
// and reads older ones in pages as the person scrolls up or a search names one. The whole answer of 10,000
// messages was 8-10 MB parsed in one task of ~60 ms (issue 37, finding 1); a page of SESSION_PAGE_ROWS is a few
// milliseconds. The session held then carries `messages_offset`: its `messages` are the stored rows from there on,
// and every index the thread, Edit and versions name stays the stored one. Pure rules, tested in node.
import type { Session } from './api.js';

/** Rows of the first read: more than a screen of the longest rows, few enough to parse in a few milliseconds. */
export const SESSION_PAGE_ROWS = 200;
/** Rows read at a time above those held (scrolling up, or toward a search hit): well within the server's 1,000. */
export const OLDER_PAGE_ROWS = 300;

/** The stored index of `session.messages[0]`: 0 for a session read whole. */
export function offsetOf(session: Pick<Session, 'messages_offset'> | null | undefined): number {
  const at = session?.messages_offset;
  return typeof at === 'number' && Number.isInteger(at) && at > 0 ? at : 0;
}

/** Rows stored before those held: older pages to read. */
export function hasOlder(session: Session | null | undefined): boolean {
  return offsetOf(session) > 0;
}

/** Two copies of a stored row are the same row: their JSON (what the server sent for them) is the same. */
function sameRow(a: unknown, b: unknown): boolean {
  return a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The session to show after reading `page`, its newest rows (a tail page, or a session read whole), when `held`
 * is what is on screen: the older rows `held` has beyond the page are kept when the page's first row is one `held`
 * has at the same index, unchanged (a change replaces rows from some index on: an edit, a version shown, a new
 * turn; rows before it are the same, and the row where the page starts tells whether the change reached past it).
 * Otherwise the page alone: older rows are read again when needed.
 */
export function withTail(held: Session | null, page: Session): Session {
  const start = offsetOf(page);
  if (!held || held.session_id !== page.session_id || start === 0) return page;
  const heldStart = offsetOf(held);
  if (start <= heldStart) return page;
  const overlap = start - heldStart;
  if (overlap >= held.messages.length || !sameRow(held.messages[overlap], page.messages[0])) return page;
  return { ...page, messages: [...held.messages.slice(0, overlap), ...page.messages], messages_offset: heldStart };
}

/** What to ask for rows older than `held`'s: `before` and `limit` of GET /api/session, one row overlapping. */
export function olderQuery(held: Session, rows = OLDER_PAGE_ROWS): { before: number; limit: number } {
  const start = offsetOf(held);
  // One row more, the first held: the answer proves it continues what is held (nothing changed between reads).
  return { before: start + 1, limit: Math.min(start, rows) + 1 };
}

/**
 * `held` with the older rows of `page` (an answer to olderQuery(held)) before its own; null when they do not
 * continue it (the conversation changed since `held` was read, or another page came first): read the tail again.
 */
export function withOlder(held: Session | null, page: Session): Session | null {
  if (!held || held.session_id !== page.session_id) return null;
  const start = offsetOf(held);
  const from = offsetOf(page);
  const rows = page.messages;
  if (from + rows.length !== start + 1 || !sameRow(rows[rows.length - 1], held.messages[0])) return null;
  // The header held stays (a change to it comes with its own event and read).
  return { ...held, messages: [...rows.slice(0, -1), ...held.messages], messages_offset: from };
}

/** The rows to read so that the stored row `index` is held: the query, or null when it is held (or never stored). */
export function queryToHold(held: Session, index: number): { before: number; limit: number } | null {
  const start = offsetOf(held);
  if (index >= start || index < 0) return null;
  // A few rows above it too, so it opens with some of what came before it on screen.
  return olderQuery(held, Math.min(start - index + REVEAL_CONTEXT_ROWS, MAX_QUERY_ROWS));
}

/** Rows read above a search hit beyond the hit itself. */
const REVEAL_CONTEXT_ROWS = 20;
/** The server's most rows a page (MAX_SESSION_PAGE_ROWS, 1,000), less the row that overlaps. */
const MAX_QUERY_ROWS = 999;
