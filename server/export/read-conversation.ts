// A conversation read for "Export all": its header and attachments at once, its rows in pages of EXPORT_PAGE_ROWS
// as the download takes them, never through the store's kept sessions. Through the store's `get`, every
// conversation of a year's history would pass through the sessions kept in memory (store/session-cache.ts), and a
// 10,000-message conversation read whole is tens of MiB of objects (with 10 of them the server grew by ~300 MiB,
// docs/benchmarks.md): a page is a few hundred KiB.
import type * as wire from '../core/wire.js';
import type { Queries } from '../store/db/connection.js';
import type { SessionHeader } from '../store/db/session-rows.js';
import type { Session, SessionStore } from '../store/sessions.js';

/** Rows read per statement: ~64 KiB of a realistic history's rows (a page is alive while its rows are written, and what lives that long is promoted to V8's old generation: the smaller, the less), so memory stays flat whatever the conversation's length. */
export const EXPORT_PAGE_ROWS = 64;

/** A conversation as the export reads it: everything but its rows, and its rows as the download takes them. */
export interface ExportedSource {
  /** The session without its rows (`messages` is empty). */
  session: Session;
  count: number;
  rows(): AsyncGenerator<wire.Message>;
}

function kept(session: Session): ExportedSource {
  const rows = session.messages;
  return {
    session: { ...session, messages: [] },
    count: rows.length,
    async *rows() {
      yield* rows;
    },
  };
}

/**
 * The conversation as stored now, or undefined when it is deleted or gone. One the store keeps whole is taken
 * from there (no read: its rows are in memory already). Otherwise the header, revision and attachments are read
 * first, and each page only while the stored revision is still that one (one statement: the page and the check
 * see the same state). A page that comes back short means the conversation was written meanwhile: the rest comes
 * from the store's own whole read of it as it is now (it is then kept, as any conversation written is).
 */
export async function conversationForExport(store: SessionStore, id: string): Promise<ExportedSource | undefined> {
  if (store.isKept(id)) {
    const session = await store.get(id);
    return session && kept(session);
  }
  if (store.getDeleted(id)) return undefined;
  const head = await store.query((q) => q.get<{ header: string; revision: number; message_count: number }>('SELECT header, revision, message_count FROM sessions WHERE id = ?', [id]));
  if (!head) {
    // Listed, not stored: removed meanwhile, or a damaged index; the store tells which (and says so).
    const session = await store.get(id);
    return session && kept(session);
  }
  const header = JSON.parse(head.header) as SessionHeader;
  if (header.deleted_at !== undefined) return undefined;
  const attachments = await store.query((q) => q.all<{ record: string }>('SELECT record FROM attachments WHERE session_id = ? ORDER BY position', [id]));
  const session: Session = { ...header, messages: [], attachments: attachments.map((a) => JSON.parse(a.record) as wire.Attachment) };
  return {
    session,
    count: head.message_count,
    async *rows() {
      for (let from = 0; from < head.message_count; from += EXPORT_PAGE_ROWS) {
        const want = Math.min(EXPORT_PAGE_ROWS, head.message_count - from);
        const page = await store.query((q) => pageOf(q, id, from, want, head.revision));
        if (page.length === want) {
          for (const r of page) yield JSON.parse(r.row) as wire.Message;
          continue;
        }
        // Written since its header was read: the rest as it is now, from the store's consistent read.
        const now = await store.get(id);
        const rest = now?.messages.slice(from, head.message_count) ?? [];
        yield* rest;
        // Fewer rows now (a shorter version): the count written in the JSON's layout is only ever a loop bound.
        return;
      }
    },
  };
}

function pageOf(q: Queries, id: string, from: number, count: number, revision: number): Promise<{ row: string }[]> {
  return q.all<{ row: string }>(
    `SELECT row FROM messages WHERE session_id = ? AND position >= ? AND position < ?
       AND (SELECT revision FROM sessions WHERE id = ?) = ? ORDER BY position`,
    [id, from, from + count, id, revision],
  );
}
