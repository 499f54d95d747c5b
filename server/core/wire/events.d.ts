// The server-sent events of GET /api/events by name, with their data: the one map the server's event bus
// (store/events.ts) publishes by and the page (renderer/src/events.ts) types its handlers by, so a handler for
// an event the server does not send, or of another shape, does not compile. Apart from wire.d.ts (which
// re-exports it).
import type { Attachment } from './attachments.js';
import type { McpReceipt, SessionSummary } from './sessions.js';

/** The server-sent events of GET /api/events, by name, with their `data`. */
export interface ServerEvents {
  session_created: { session: SessionSummary };
  session_renamed: { session_id: string; title: string };
  /** `updated_at`: the session's after the change, when the publisher knows it (a message stored by POST /api/session/message). */
  session_updated: { session_id: string; updated_at?: string };
  /** Deleted (Undo may still bring it back: session_restored). */
  session_deleted: { session_id: string };
  session_restored: { session: SessionSummary };
  /** One stored attachment, or an archive extracted into the attachment folder (`file_count` files written). */
  attachment_added: { session_id: string; attachment: Attachment } | { session_id: string; file_count: number; dest: string };
  /** Something was stored under `path` (relative to the workspace root). */
  workspace_changed: { session_id: string; path: string };
  /** An MCP client read something of the session: the receipt as it stands after this read. */
  mcp_read: { session_id: string; receipt: McpReceipt };
  /** An MCP call or read was recorded in the ledger (any outcome, whether or not it names a conversation): the
   *  panel's timeline adds it. Sent to every profile's windows: the ledger is the app's, not a profile's. */
  mcp_ledger_added: { key_id: string };
  /** The quick-capture window sent to a conversation (`stream_id`: the agent's turn it started, for `ask`). */
  capture_sent: { session_id: string; destination: 'current' | 'inbox' | 'ask'; stream_id?: string };
  /** A folder was made, renamed or deleted (its conversations then in none): the list reads the folders again. */
  folders_changed: { folder_id: string };
}

export type ServerEventName = keyof ServerEvents;
