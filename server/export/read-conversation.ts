// A conversation read for "Export all": whole, as the store's own read does (store/db/session-rows.ts readSession),
// but not kept. Through the store's `get`, every conversation of a year's history would pass through the sessions
// kept in memory (store/session-cache.ts): the export would hold up to its 32 Mi characters of other conversations'
// rows and push out the ones the person is using. One read here is let go once its members are written.
import { readSession } from '../store/db/session-rows.js';
import type { Session, SessionStore } from '../store/sessions.js';

/**
 * The conversation as stored now, or undefined when it is deleted or gone. One the store keeps whole is taken from
 * there (it may hold a write the database has just committed; no read at all). One the database does not hold
 * although it is listed is asked of the store again, which tells a removal from a damaged index (and says so).
 */
export async function conversationForExport(store: SessionStore, id: string): Promise<Session | undefined> {
  if (store.isKept(id)) return store.get(id);
  if (store.getDeleted(id)) return undefined;
  const read = await store.query((q) => readSession(q, id));
  if (!read) return store.get(id);
  // Deleted between the check above and the read: its stored header says so.
  return read.deleted_at === undefined ? read : undefined;
}
