// Sessions in the state folder's database (db/), one transaction per change, serialized per session so two
// concurrent updates cannot lose each other's changes. Every session's listing is in memory from the start;
// a session's messages are read on its first use and kept (see `get`).
//
// `SessionStore` is what the rest of the server holds: the operations callers ask for, each a thin step over its
// parts: the stored shapes and limits (session-shapes.ts), the sessions kept in memory (session-cache.ts), the
// write queue and its drafts (write-queue.ts), the connection's life (session-database.ts), listings, reads and
// writes (session-records.ts), what each operation changes (session-edits.ts), and the tables beside a session
// (receipts, streamed text, the search index).
import type * as wire from '../core/wire.js';
import { ValueError } from '../core/errors.js';
import type { Queries } from './db/connection.js';
import { indexedAttachmentNames, type SearchScope } from './db/search.js';
import { pendingAttachmentTexts, type PendingAttachmentText } from './db/session-rows.js';
import { ledgerWriter, type LedgerInput } from './mcp-ledger.js';
import { listReceipts, recordReceipt, type KeyName, type ReceiptInput, type StoredReceipt } from './receipts.js';
import { indexAttachmentText, searchSessions, type SearchHits } from './search.js';
import {
  attachmentEdit,
  conversationEdit,
  flagsEdit,
  markDeletedEdit,
  messageEdit,
  renameEdit,
  restoreEdit,
  versionEdit,
  type ConversationChange,
} from './session-edits.js';
import { SessionRecords } from './session-records.js';
import { SESSION_NOT_FOUND, type Attachment, type AttachmentAlongside, type Session } from './session-shapes.js';
import { appendStreamedText, readStreamedText, removeStreamedText, type StreamedText } from './streamed-text.js';

// What callers import from the store, wherever it lives now.
export * from './session-shapes.js';
export { keptChars, MAX_KEPT_CHARS, MAX_KEPT_SESSIONS, type KeepLimits } from './session-cache.js';
export { MAX_SESSION_FILE_BYTES, oversizedSessionWarning } from './db/import-json.js';
export type { SessionListing } from './db/session-rows.js';

export class SessionStore extends SessionRecords {
  async rename(id: string, title: string): Promise<Session> {
    return this.update(id, renameEdit(title));
  }

  /** Pin or archive a session, or take that back: flags, not activity, so its place by last activity stays. */
  setFlags(id: string, flags: { pinned?: boolean; archived?: boolean }): Promise<Session> {
    return this.update(id, flagsEdit(flags), { touch: false });
  }

  /**
   * Mark a session deleted: from now on it is answered as missing everywhere, until restore() or remove().
   * Refused while a turn runs (SessionBusy, 409): that turn would go on storing rows into a hidden session.
   */
  markDeleted(id: string, at: Date = new Date()): Promise<Session> {
    return this.update(id, markDeletedEdit(at), { touch: false });
  }

  /** Take a deletion back (Undo): the session is shown again as it was. Not found unless it is deleted. */
  restore(id: string): Promise<Session> {
    if (!this.getDeleted(id)) return Promise.reject(new ValueError(SESSION_NOT_FOUND));
    return this.update(id, restoreEdit, { touch: false, deleted: true });
  }

  /**
   * The conversation's own model and system prompt (POST /api/session/settings). A field left undefined is kept;
   * null or blank removes it, so the agent settings' model (or no system prompt) applies again.
   */
  async setConversation(id: string, change: ConversationChange): Promise<Session> {
    return this.update(id, conversationEdit(change));
  }

  /** A receipt in the table from before the ledger (store/receipts.ts): no reads write it now; tests make rows of
   *  an older database with it. */
  recordReceipt(id: string, read: ReceiptInput, now?: number): Promise<StoredReceipt> {
    return this.opened().transaction((q) => recordReceipt(q, id, read, now));
  }

  /** Keep one batch of a streaming reply's shown text (store/streamed-text.ts). */
  async appendStreamedText(id: string, streamId: string, batch: StreamedText): Promise<void> {
    return this.opened().transaction((q) => appendStreamedText(q, id, streamId, batch));
  }

  /** The shown text kept of a stream (its turn interrupted by a crash). */
  async streamedText(id: string, streamId: string): Promise<StreamedText> {
    return readStreamedText(this.opened(), id, streamId);
  }

  /** Drop the kept text of one stream (its rows are stored), or of all (at start, after recovery). */
  async removeStreamedText(stream?: { sessionId: string; streamId: string }): Promise<void> {
    return this.opened().transaction((q) => removeStreamedText(q, stream));
  }

  /** Rows of the MCP ledger, committed when it resolves (store/mcp-ledger.ts LedgerWriter: batched, one statement). */
  appendLedger(rows: readonly LedgerInput[], now?: number): Promise<void> {
    return ledgerWriter(this.opened()).append(rows, now);
  }

  /** The session's MCP read receipts (the ledger's, and the table's from before it), the latest first. */
  receipts(id: string, keyName: KeyName): Promise<StoredReceipt[]> {
    return listReceipts(this.opened(), id, keyName);
  }

  /**
   * Store a message without asking the agent (POST /api/session/message, quick capture), as a user row of the one
   * stored shape (`{role, content, timestamp, attachments}`); while a turn runs it waits for the turn's rows
   * (queued.ts: `queued` says so). A conversation turn stores its rows through turns.ts.
   */
  async addMessage(id: string, text: string, attachments: wire.ChatAttachment[]): Promise<{ session: Session; queued: boolean }> {
    let queued = false;
    const session = await this.update(
      id,
      messageEdit(text, attachments, (waits) => {
        queued = waits;
      }),
    );
    return { session, queued };
  }

  /**
   * Store a message without asking the agent as a new version of the conversation from the user row at `at`
   * on (Edit with no agent connected): the version it replaces is kept (versions.ts). Refused while a turn runs.
   */
  async addVersion(id: string, at: unknown, text: string, attachments: wire.ChatAttachment[]): Promise<Session> {
    return this.update(id, versionEdit(at, text, attachments));
  }

  /**
   * The best `limit` hits of the person's words `query` in `profile`'s sessions, deleted ones never (search.ts):
   * titles, messages, attachment names and the text the agent got from attachments.
   */
  search(profile: string, query: string, limit: number, only: Pick<SearchScope, 'sessionId' | 'kinds' | 'sessionIds'> = {}, signal?: AbortSignal): Promise<SearchHits> {
    const reader = this.database.searchReader();
    return searchSessions(this.opened(), reader, (id) => this.listings.get(id), query, { profile, limit, ...only }, signal);
  }

  /** The stored names of the session's attachments whose text the index holds (MCP's search walks the others). */
  indexedAttachmentNames(id: string): Promise<string[]> {
    return indexedAttachmentNames(this.opened(), id);
  }

  /**
   * Index the text the agent got from the session's attachment stored at `attachmentPath` (its Office sidecar,
   * its text, its transcript), replacing what was indexed of it; `settle` clears the backfill's mark at that
   * position (search/backfill.ts). False when the session (or the attachment) is not stored.
   */
  async indexAttachmentText(id: string, attachmentPath: string | null, text: string, settle?: number): Promise<boolean> {
    // A session removed from memory only awaits its rows' cascade: nothing to index, a mark only to clear.
    if (!this.listings.has(id)) return settle === undefined ? false : indexAttachmentText(this.opened(), id, null, '', settle);
    return indexAttachmentText(this.opened(), id, attachmentPath, text, settle);
  }

  /** Attachments stored before the index took their text (schema 2), at most `limit` (search/backfill.ts). */
  pendingAttachmentTexts(limit: number): Promise<PendingAttachmentText[]> {
    return pendingAttachmentTexts(this.opened(), limit);
  }

  /**
   * Record `attachment` in the session; `alongside` adds to the same transaction (the Inbox: the file's arrival
   * row and the record that it was taken), so the file is never recorded without them, nor they without it.
   */
  addAttachment(id: string, attachment: Attachment, alongside: AttachmentAlongside = {}): Promise<Session> {
    return this.update(id, attachmentEdit(attachment, alongside), { also: alongside.also });
  }

  /** Read from the database outside any session (the Inbox's record at start). */
  query<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    return work(this.opened());
  }

  /** One transaction of the caller's own statements (the Inbox's record moved in from inbox.json). */
  transaction<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    return this.opened().transaction(work);
  }
}
