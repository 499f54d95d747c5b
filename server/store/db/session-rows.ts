// A session's rows in the database: read whole, written as the difference from what is stored. Every write
// happens inside the caller's transaction, the search index (search_docs, kept in step by triggers) with it.
import type { Queries } from './connection.js';
import type { Message, Session } from '../sessions.js';
import type * as wire from '../../core/wire.js';
import { HttpError } from '../../core/errors.js';
import { indexText } from './search-query.js';
import { listingOfRow, type ListingRow, type UnreadableSession } from './damage.js';

/**
 * The stored revision (schema 4) each session object was read or written at. Beside the object, not in it: the
 * header is stored whole and would otherwise carry the number; a WeakMap lets a copy go with its object.
 */
const revisions = new WeakMap<Session, number>();

export const SESSION_CHANGED_ELSEWHERE = 'This conversation was changed by another Satchel on the same state folder: reload it and try again';

/**
 * A write whose base is no longer what is stored (another writer on the database changed the session since it was
 * read): refused whole, nothing written. 409, as any write meeting a state it did not expect.
 */
export class SessionConflict extends HttpError {
  constructor() {
    super(409, SESSION_CHANGED_ELSEWHERE);
  }
}

/**
 * Rows per INSERT when many are written at once (an import, a rewrite): each row takes 3 parameters and
 * SQLite allows 32,766 per statement; 500 keeps a statement's text small and still writes 10,000 rows in 20.
 */
const ROWS_PER_INSERT = 500;

/** What every session row has besides its messages and attachments, as the list needs it. */
export type SessionHeader = Omit<Session, 'messages' | 'attachments'>;

export interface SessionListing extends SessionHeader {
  message_count: number;
  attachment_count: number;
}

export function headerOf(session: Session): SessionHeader {
  const { messages: _messages, attachments: _attachments, ...header } = session;
  return header;
}

export function listingOf(session: Session): SessionListing {
  return { ...headerOf(session), message_count: session.messages.length, attachment_count: session.attachments.length };
}

export interface PendingAttachmentText {
  session_id: string;
  position: number;
  /** The record's path and name (null when the record holds none: that attachment has no text to index). */
  path: string | null;
  filename: string | null;
}

/** The attachment at `position` is done with: its text indexed, or none to index. */
export async function settlePendingAttachmentText(q: Queries, id: string, position: number): Promise<void> {
  await q.run('DELETE FROM attachment_text_pending WHERE session_id = ? AND position = ?', [id, position]);
}

/** Attachments stored before schema 2 whose text is not indexed yet (search/backfill.ts), at most `limit`. */
export function pendingAttachmentTexts(q: Queries, limit: number): Promise<PendingAttachmentText[]> {
  return q.all(
    `SELECT p.session_id, p.position, json_extract(a.record, '$.path') AS path, json_extract(a.record, '$.filename') AS filename
     FROM attachment_text_pending p JOIN attachments a ON a.session_id = p.session_id AND a.position = p.position
     LIMIT ?`,
    [limit],
  );
}

/**
 * Every session's listing, for the list at start: no message is read. A row whose header is not a conversation's
 * is handed to `unreadable` and left out (damage.ts), so one damaged row never hides the others.
 */
export async function readListings(q: Queries, unreadable: (u: UnreadableSession) => void = () => {}): Promise<SessionListing[]> {
  const rows = await q.all<ListingRow>('SELECT id, header, message_count, attachment_count FROM sessions');
  const listings: SessionListing[] = [];
  for (const row of rows) {
    const listing = listingOfRow(row);
    if ('reason' in listing) unreadable(listing);
    else listings.push(listing);
  }
  return listings;
}

/** One session whole, as it is stored; undefined when there is none. */
export async function readSession(q: Queries, id: string): Promise<Session | undefined> {
  // The revision with the header, before the rows: rows another writer stored meanwhile only make a write on
  // this copy refused, never accepted.
  const head = await q.get<{ header: string; revision: number }>('SELECT header, revision FROM sessions WHERE id = ?', [id]);
  if (!head) return undefined;
  const messages = await q.all<{ row: string }>('SELECT row FROM messages WHERE session_id = ? ORDER BY position', [id]);
  const attachments = await q.all<{ record: string }>('SELECT record FROM attachments WHERE session_id = ? ORDER BY position', [id]);
  const session: Session = {
    ...(JSON.parse(head.header) as SessionHeader),
    messages: messages.map((m) => JSON.parse(m.row) as Message),
    attachments: attachments.map((a) => JSON.parse(a.record) as wire.Attachment),
  };
  revisions.set(session, head.revision);
  return session;
}

/** How many leading rows `after` still shares, object for object, with `before`. */
function sharedPrefix<T>(before: readonly T[], after: readonly T[]): number {
  const n = Math.min(before.length, after.length);
  let i = 0;
  while (i < n && before[i] === after[i]) i++;
  return i;
}

interface RowKind<T> {
  table: 'messages' | 'attachments';
  column: 'row' | 'record';
  doc: 'message' | 'attachment';
  /** The row's searchable text ('' for none). */
  text: (row: T) => string;
}

const MESSAGE_ROWS: RowKind<Message> = { table: 'messages', column: 'row', doc: 'message', text: (m) => (typeof m.content === 'string' ? m.content : '') };
const ATTACHMENT_ROWS: RowKind<wire.Attachment> = {
  table: 'attachments',
  column: 'record',
  doc: 'attachment',
  // The name the person gave the file (issue 38, item 4): what a search finds and its snippet shows.
  text: (a) => (typeof a.display_name === 'string' && a.display_name ? a.display_name : typeof a.filename === 'string' ? a.filename : ''),
};

// A lone surrogate: JSON.stringify writes it as an escape, which SQLite's json_extract reads back as other bytes.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A message's text the index may read from its row (json_extract of its JSON, schema.ts search_texts) instead of
 * a copy: indexing left it as it is, and the row's JSON gives back these very characters (no NUL, no lone
 * surrogate; search-texts.test.ts checks the round trip).
 */
export function readsBackFromRow(raw: string, indexed: string): boolean {
  return indexed === raw && !raw.includes('\u0000') && !LONE_SURROGATE.test(raw);
}

/** What storing a row takes besides SQLite: its JSON and its index text (indexText, a redaction). */
interface PreparedRow {
  json: string;
  indexed: string;
}

/**
 * Rows prepared ahead of the transaction that stores them (prepareRows), by the (frozen) row object; taken out
 * when stored, so a kept session does not hold its rows' JSON twice.
 */
const prepared = new WeakMap<object, PreparedRow>();

function rowKind(kind: 'messages' | 'attachments'): RowKind<Message> | RowKind<wire.Attachment> {
  return kind === 'messages' ? MESSAGE_ROWS : ATTACHMENT_ROWS;
}

/**
 * Make the JSON and the index text of `rows` (frozen rows of one kind, about to be stored) now, outside any
 * transaction: the redaction of a row's text for the index was most of a batch's CPU inside an import's
 * transactions, where every other write waits (issue 37, finding 3). writeRows then only writes. A row not frozen
 * may still change before it is stored: it is left to be made in the transaction, as before.
 */
export function prepareRows(kind: 'messages' | 'attachments', rows: readonly object[]): void {
  const text = rowKind(kind).text as (row: object) => string;
  for (const row of rows) {
    if (!Object.isFrozen(row) || prepared.has(row)) continue;
    prepared.set(row, { json: JSON.stringify(row), indexed: indexText(text(row)) });
  }
}

/** A row's JSON and index text: prepared (prepareRows), or made here. */
function preparedRow<T>(kind: RowKind<T>, row: T): PreparedRow {
  const ready = prepared.get(row as object);
  if (ready) {
    prepared.delete(row as object);
    return ready;
  }
  return { json: JSON.stringify(row), indexed: indexText(kind.text(row)) };
}

/**
 * Store `after`'s rows of one kind where they differ from `before`'s. Rows are compared as objects (the store
 * never changes a stored row in place, sessions.ts): a row appended is one INSERT (and one into the index);
 * from the first row that differs on, the stored rows are replaced.
 */
async function writeRows<T>(q: Queries, kind: RowKind<T>, id: string, before: readonly T[], after: readonly T[]): Promise<void> {
  const from = sharedPrefix(before, after);
  if (from < before.length) {
    await q.run(`DELETE FROM ${kind.table} WHERE session_id = ? AND position >= ?`, [id, from]);
    await q.run(`DELETE FROM search_docs WHERE session_id = ? AND kind = ? AND position >= ?`, [id, kind.doc, from]);
  }
  for (let start = from; start < after.length; start += ROWS_PER_INSERT) {
    const chunk = after.slice(start, start + ROWS_PER_INSERT);
    const ready = chunk.map((row) => preparedRow(kind, row));
    const rows = chunk.map((_row, i) => [id, start + i, ready[i]!.json] as const);
    await q.run(`INSERT INTO ${kind.table} (session_id, position, ${kind.column}) VALUES ${rows.map(() => '(?, ?, ?)').join(', ')}`, rows.flat());
    // Redacted as it is indexed (search-query.ts indexText): the index never holds a secret to find or to show.
    // A message's text is kept a second time only where that changed it (schema 8: otherwise read from its row).
    const docs = chunk
      .map((row, i) => {
        const raw = kind.text(row);
        const indexed = ready[i]!.indexed;
        return [id, kind.doc, start + i, kind.doc === 'message' && readsBackFromRow(raw, indexed) ? null : indexed, indexed] as const;
      })
      .filter((d) => d[4] !== '')
      .map((d) => d.slice(0, 4) as [string, string, number, string | null]);
    if (docs.length > 0) await q.run(`INSERT INTO search_docs (session_id, kind, position, text) VALUES ${docs.map(() => '(?, ?, ?, ?)').join(', ')}`, docs.flat());
  }
}

/**
 * Store `after` where it differs from `before` (undefined: a session not stored yet). The header is small and
 * written whole; messages and attachments by writeRows; the title's index row when it changed.
 *
 * Only over what `before` was read as: the header is written first, and only where the stored revision is still
 * the one `before` was read or written at (a new session: where no session has its id); otherwise SessionConflict
 * and nothing is written, so a stale copy never replaces another writer's rows (nor collides with them: an
 * append past rows it never saw was a SQLITE_CONSTRAINT). A `before` of unknown revision (made by hand, not read
 * here) is checked against nothing, as before schema 4.
 */
export async function writeSession(q: Queries, before: Session | undefined, after: Session): Promise<void> {
  const id = after.session_id;
  const header = JSON.stringify(headerOf(after));
  const expected = before ? revisions.get(before) : undefined;
  let revision: number;
  if (!before) {
    const { changes } = await q.run(
      `INSERT INTO sessions (id, updated_at, message_count, attachment_count, header, revision) VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT (id) DO NOTHING`,
      [id, after.updated_at, after.messages.length, after.attachments.length, header],
    );
    if (changes === 0) throw new SessionConflict();
    revision = 0;
  } else {
    const found = await q.get<{ revision: number }>(
      `UPDATE sessions SET updated_at = ?, message_count = ?, attachment_count = ?, header = ?, revision = revision + 1
       WHERE id = ? AND (? IS NULL OR revision = ?) RETURNING revision`,
      [after.updated_at, after.messages.length, after.attachments.length, header, id, expected ?? null, expected ?? null],
    );
    if (!found) throw new SessionConflict();
    revision = found.revision;
  }
  if (before?.title !== after.title) {
    await q.run(
      `INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'title', 0, ?)
       ON CONFLICT (session_id, kind, position) DO UPDATE SET text = excluded.text`,
      [id, indexText(after.title)],
    );
  }
  await writeRows(q, MESSAGE_ROWS, id, before?.messages ?? [], after.messages);
  await writeAttachmentRows(q, id, before?.attachments ?? [], after.attachments);
  revisions.set(after, revision);
}

/**
 * writeRows for attachments, with what is kept by attachment position beside them: the indexed text the agent
 * got from each (kind attachment_text, written by indexAttachmentText, not from the row) and the mark of one
 * still to be indexed (attachment_text_pending). Where rows are replaced (an attachment removed), an attachment
 * that stays takes its text and its mark to its new position; a removed one's go with it.
 */
async function writeAttachmentRows(q: Queries, id: string, before: readonly wire.Attachment[], after: readonly wire.Attachment[]): Promise<void> {
  const from = sharedPrefix(before, after);
  if (from >= before.length) {
    await writeRows(q, ATTACHMENT_ROWS, id, before, after);
    return markPending(q, id, from, after.length);
  }
  const texts = await q.all<{ position: number; text: string }>(
    `SELECT position, text FROM search_docs WHERE session_id = ? AND kind = 'attachment_text' AND position >= ?`,
    [id, from],
  );
  const pending = await q.all<{ position: number }>('SELECT position FROM attachment_text_pending WHERE session_id = ? AND position >= ?', [id, from]);
  await q.run(`DELETE FROM search_docs WHERE session_id = ? AND kind = 'attachment_text' AND position >= ?`, [id, from]);
  await q.run('DELETE FROM attachment_text_pending WHERE session_id = ? AND position >= ?', [id, from]);
  await writeRows(q, ATTACHMENT_ROWS, id, before, after);
  const movedTo = new Map<number, number>();
  const oldPosition = new Map(before.slice(from).map((row, i) => [row, from + i] as const));
  after.forEach((row, i) => {
    const old = i >= from ? oldPosition.get(row) : undefined;
    if (old !== undefined) movedTo.set(old, i);
  });
  for (const t of texts) {
    const to = movedTo.get(t.position);
    if (to !== undefined) await q.run(`INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'attachment_text', ?, ?)`, [id, to, t.text]);
  }
  const keptPending = new Set(pending.map((p) => movedTo.get(p.position)).filter((to) => to !== undefined));
  // New here (not moved from a later position): its text is still to be indexed, as is a moved one's not yet indexed.
  const moved = new Set(movedTo.values());
  for (let i = from; i < after.length; i++) {
    if (keptPending.has(i) || !moved.has(i)) await markPending(q, id, i, i + 1);
  }
}

/**
 * Mark the attachments at positions `from` … `to` as having text still to index (attachment_text_pending): the
 * background pass reads it (search/backfill.ts), unless an upload indexes it first (which clears the mark). So an
 * attachment stored by any path (an upload, an imported conversation) becomes searchable.
 */
async function markPending(q: Queries, id: string, from: number, to: number): Promise<void> {
  for (let start = from; start < to; start += ROWS_PER_INSERT) {
    const end = Math.min(to, start + ROWS_PER_INSERT);
    const rows = Array.from({ length: end - start }, (_, i) => [id, start + i] as const);
    await q.run(`INSERT OR IGNORE INTO attachment_text_pending (session_id, position) VALUES ${rows.map(() => '(?, ?)').join(', ')}`, rows.flat());
  }
}

/**
 * Index `indexed` (indexText of what the agent got from the attachment stored at `attachmentPath`: its Office
 * sidecar, its text, its transcript) as that attachment's attachment_text, replacing any before; '' removes it.
 * The position is looked up in this transaction, so a write moving the attachment cannot come between. False when
 * the session stores no attachment at that path.
 */
export async function writeAttachmentText(q: Queries, id: string, attachmentPath: string, indexed: string): Promise<boolean> {
  const at = await q.get<{ position: number }>(`SELECT position FROM attachments WHERE session_id = ? AND json_extract(record, '$.path') = ? ORDER BY position LIMIT 1`, [id, attachmentPath]);
  if (!at) return false;
  await q.run('DELETE FROM attachment_text_pending WHERE session_id = ? AND position = ?', [id, at.position]);
  if (indexed.trim() === '') {
    await q.run(`DELETE FROM search_docs WHERE session_id = ? AND kind = 'attachment_text' AND position = ?`, [id, at.position]);
    return true;
  }
  await q.run(
    `INSERT INTO search_docs (session_id, kind, position, text) VALUES (?, 'attachment_text', ?, ?)
     ON CONFLICT (session_id, kind, position) DO UPDATE SET text = excluded.text`,
    [id, at.position, indexed],
  );
  return true;
}

/** Remove a session and everything of it in the database (its rows and index entries go by cascade). */
export async function deleteSession(q: Queries, id: string): Promise<boolean> {
  return (await q.run('DELETE FROM sessions WHERE id = ?', [id])).changes > 0;
}
