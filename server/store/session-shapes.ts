// What a stored session is: its shape, the limits of its fields, the fields that never leave the server, and the
// small pure helpers every reader of a session shares. Apart from the store (sessions.ts) so that the many modules
// that only name a session's shape or its limits (handlers, projections, export) do not import the store itself.
import type * as wire from '../core/wire.js';
import type { Queries } from './db/connection.js';
import type { Message } from './messages.js';
import type { Fork } from './versions.js';

export type { Message } from './messages.js';

export const MAX_TITLE_CHARS = 200;
export const MAX_MESSAGE_CHARS = 100_000;
// The caps of a conversation live in caps.ts, the one rule the store and the handlers both ask.
export { MAX_ATTACHMENTS_PER_SESSION, MAX_MESSAGES_PER_SESSION } from './caps.js';
/** A model name: the longest ids listed by OpenRouter and Hugging Face-served models are under 100 characters. */
export const MAX_MODEL_CHARS = 200;
/**
 * A conversation's system prompt. Long personas and house rules run to a few thousand characters; 20,000 holds
 * those several times over while taking a tenth of the default per-turn context budget (200,000
 * characters, settings/table.ts), which the prompt is drawn from first (agent/input.ts).
 */
export const MAX_SYSTEM_PROMPT_CHARS = 20_000;
export const SYSTEM_PROMPT_TOO_LONG = `System prompt too long (max ${MAX_SYSTEM_PROMPT_CHARS} characters)`;
const SESSION_ID = /^[0-9a-f]{12}$/;

/** The database file in the state folder: sessions, their messages and attachments, and the search index. */
export const SESSION_DB_FILE = 'satchel.db';

/** Section 2: internal message fields, never part of a public projection (projections/sessions.ts `publicMessage`). */
export const INTERNAL_MESSAGE_FIELDS = [
  'api_content',
  '_row_id',
  '_state_db_row_id',
  '_db_row_id',
  'state_db_row_id',
  '_active_turn_token',
  '_active_turn_user',
  '_fork_child_turn',
  '_webui_trusted_agent_input_text',
  '_webui_unmatched_native_image_mirror',
  // Satchel's: the other versions of the conversation from this row on (versions.ts); the wire has `versions`.
  '_versions',
  // The Hermes mark of an answered turn (agent/hermes-continuity.ts).
  '_hermes_turn',
] as const;

/**
 * Internal session fields, never part of a public projection: a turn's fork until its rows are stored
 * (versions.ts); Hermes' session id and its counter (agent/hermes-continuity.ts); when the person deleted it
 * (sessions/deletion.ts), which a deleted session is never shown with anyway.
 */
export const INTERNAL_SESSION_FIELDS = ['_pending_versions', '_hermes', 'deleted_at'] as const;

export type Attachment = wire.Attachment;

/** A stored session: the wire shape, with stored messages. */
export interface Session extends Omit<wire.Session, 'messages' | 'queued_messages'> {
  messages: Message[];
  /** Rows written while a turn runs, stored after its rows when it ends (queued.ts). */
  queued_messages?: Message[];
  /** While a turn that makes a new version runs: the versions its first stored row will carry (versions.ts). */
  _pending_versions?: Fork;
  /** Deleted by the person at this time (ISO): hidden from every list and read until it is purged or restored. */
  deleted_at?: string;
}

export const SESSION_NOT_FOUND = 'Session not found';
export const DISK_FULL_SESSION = 'Not enough disk space to save the session';

/** What is stored with an attachment's record, in its transaction (SessionStore.addAttachment). */
export interface AttachmentAlongside {
  /** A further change to the session (the arrival row). */
  change?: (session: Session) => void;
  /** Further statements (the Inbox's record of the file's hash). */
  also?: (q: Queries) => Promise<void>;
}

/** What a store update may be: most changes are activity and move the session's `updated_at`; a flag is not. */
export interface UpdateOptions {
  /** Set `updated_at` to now (default true). Pinning, archiving, deleting or restoring a session is no activity. */
  touch?: boolean;
  /** Apply the change to a deleted session too (only deletion's own steps do). */
  deleted?: boolean;
  /**
   * More statements for the transaction that stores this change (the Inbox's record of what it took): both
   * are committed or neither. Run only when the change itself was applied.
   */
  also?: (q: Queries) => Promise<void>;
}

export function isSessionId(id: unknown): id is string {
  return typeof id === 'string' && SESSION_ID.test(id);
}

/** A row's text: every row has one shape once loaded (messages.ts), so this is its `content`. */
export function messageText(message: wire.Message): string {
  return message.content;
}

export function sessionSummary(s: Session): wire.SessionSummary {
  return {
    session_id: s.session_id,
    title: s.title,
    workspace: s.workspace,
    profile: s.profile,
    created_at: s.created_at,
    updated_at: s.updated_at,
    message_count: s.messages.length,
    ...(s.pinned ? { pinned: true } : {}),
    ...(s.archived ? { archived: true } : {}),
    ...(s.folder !== undefined ? { folder: s.folder } : {}),
    ...(s.imported_at !== undefined ? { imported_at: s.imported_at } : {}),
  };
}
