// A conversation as it travels (docs/API.md "Managing sessions"): its rows, its header and summary, its
// settings, its MCP read receipts, and the answer to a message written into it. Apart from wire.d.ts (which
// re-exports it) so each topic of the API is one file under 400 lines.
import type { Attachment, ChatAttachment } from './attachments.js';
import type { ChatErrorType, ChatUsage, ContextReport, ToolActivity } from './chat.js';

export interface ToolCall {
  id: string;
  function: { name: string; arguments: string };
}

/**
 * One row of a session's `messages`: the shape ../shared/spec/agent.md ("What is stored") gives a conversation's
 * rows. Older stores also hold `{role, text, created_at (ISO 8601)}` rows (POST /api/session/message wrote those
 * before); the store rewrites them into this shape as it loads them (store/messages.ts), so no reader past the
 * store sees two shapes.
 */
/** Who wrote a row: the person, the agent, a tool the agent ran (its result), or a system note. */
export type MessageRole = 'user' | 'assistant' | 'tool' | 'system';

export interface Message {
  role: MessageRole;
  content: string;
  /** Epoch seconds, float. Absent only on a row stored without any time. */
  timestamp?: number;
  attachments?: ChatAttachment[];
  reasoning?: string;
  tool_calls?: ToolCall[];
  /** Tool result rows. */
  tool_call_id?: string;
  /**
   * Assistant rows: the tools the agent ran while writing this reply (Hermes' tool progress), in the order they
   * started, as the live `tool` frames showed them; absent when it ran none. At most MAX_STORED_TOOLS entries.
   */
  tool_activity?: ToolActivity[];
  /** Assistant rows: tools run past MAX_STORED_TOOLS, counted but not kept. */
  tool_activity_omitted?: number;
  /** Assistant rows: the usage the agent reported for this reply; absent when it reported none (unknown, not 0). */
  usage?: ChatUsage;
  /** User rows: what the turn it started gave the agent of the conversation's documents (issue 36). */
  context?: ContextReport;
  /** What arrived before the turn was cancelled or failed. */
  _partial?: boolean;
  /** A row saying why a turn ended without an answer (cancelled, failed, interrupted). */
  _error?: boolean;
  /** An `_error` row's kind: the failure's `apperror` type, or `cancelled` for a stop (Satchel's, additive). */
  error_type?: ChatErrorType | 'cancelled';
  /** A failed turn's one sentence of what to do (the `apperror` hint); `content` keeps `**Error:** <what happened>`. */
  error_hint?: string;
  /** What the row's button does; absent: nothing to open. */
  error_action?: ChatErrorAction;
  /** A stop's row: the person's Stop, or Satchel shutting down. */
  stopped_by?: StoppedBy;
  /**
   * On a message of the person's where the conversation has more than one version (Regenerate, Edit): which
   * one `messages` shows from here on, of how many. Only in what the server sends; never stored in this form.
   */
  versions?: MessageVersions;
  /**
   * A `system` row saying files arrived in the Inbox (issue 26, docs/API.md "Inbox folders"): where from; the
   * files are its `attachments`, its `timestamp` the first one's.
   */
  arrival?: Arrival;
  /** Assistant rows: who wrote this reply (issue 38, item 6), kept with the row; absent on rows stored before. */
  answered_by?: AnsweredBy;
}

/** The agent and model a reply came from, as the turn asked them. */
export interface AnsweredBy {
  /** The saved connection's id (GET /api/agent/connections), when the turn used a saved one. */
  connection?: string;
  /** The connection's name as it was then (a connection renamed or deleted later does not change the row). */
  agent?: string;
  /** The model the turn asked for: the request's, the conversation's, or the connection's own. */
  model?: string;
}

/** Where an Inbox arrival row's files came from. */
export interface Arrival {
  /** A watched folder, or "Open with Satchel" (the desktop shell). */
  source: 'folder' | 'open-with';
  /** The watched folder's name (its last path segment), for `folder`. */
  from?: string;
  /** Epoch seconds of the row's last file (a row gathers a burst: server/inbox/arrivals.ts). */
  last_at: number;
}

/** A message's versions (docs/API.md, "Versions"). */
export interface MessageVersions {
  /** The version shown, 0-based, in the order they were made. */
  index: number;
  count: number;
  /** Some version's message differs from the shown one (an edit); false when only the replies differ (Regenerate). */
  edited: boolean;
  /**
   * The person's message across the versions: its distinct texts (with attachments), in the order first made,
   * and which is shown. `versions[i]` is the version to show for text i: the shown one for the shown text, the
   * latest made for another (an Edit's switcher, "2/2" for two texts however often each was regenerated).
   */
  message: VersionLevel;
  /** The replies to the shown message: the versions with that same message, in the order made (Regenerate's switcher). */
  reply: VersionLevel;
}

/** One level of the versions switcher: position `index` of `count`, `versions[i]` the version that position shows. */
export interface VersionLevel {
  index: number;
  count: number;
  versions: number[];
}

/** What a failure's button does: open Agent settings on its Chat agent tab, or send the turn again. */
export type ChatErrorAction = 'agent_settings' | 'retry';
/** Who stopped a turn: the person (Stop), or Satchel's shutdown. */
export type StoppedBy = 'user' | 'shutdown';

/** What a session and its summary both say of it. */
export interface SessionHeader {
  session_id: string;
  title: string;
  workspace: string;
  /** The owning profile; sessions from older stores may carry none (then they belong to `default`). */
  profile: unknown;
  created_at: string;
  updated_at: string;
  /** Pinned by the person: listed before the others (stored only when true; the wire always says). */
  pinned?: boolean;
  /** Archived by the person: listed behind "Show archived" (stored only when true; the wire always says). */
  archived?: boolean;
  /** The id of the folder it is in (GET /api/folders); absent: none. One that names no folder counts as none. */
  folder?: string;
  /** When it was imported (ISO), for an imported conversation: the list marks it. */
  imported_at?: string;
}

export interface SessionSummary extends SessionHeader {
  message_count: number;
}

export interface Session extends SessionHeader {
  messages: Message[];
  attachments: Attachment[];
  /** A turn is running (or Satchel stopped during one): what the person sent is kept here until it is stored. */
  active_stream_id?: string;
  pending_user_message?: string;
  pending_attachments?: ChatAttachment[];
  /** Epoch seconds, float. */
  pending_started_at?: number;
  /**
   * While a turn runs: messages written meanwhile (a note, quick capture, an arrival), in the order written. They are
   * stored after the turn's rows when it ends, and shown after the reply being written (docs/API.md).
   */
  queued_messages?: Message[];
  /** The model this conversation's turns ask for (POST /api/session/settings); absent: the agent settings' model. */
  model?: string;
  /** Sent as the first `system` message of every turn of this conversation; absent: none. */
  system_prompt?: string;
  /** The saved agent connection this conversation's turns use (GET /api/agent/connections); absent: the default. */
  connection?: string;
  /** MCP clients do not see this conversation at all (POST /api/session/settings); absent: they do. */
  keep_out_of_mcp?: boolean;
  /**
   * Only in a page (GET /api/session with `limit`): `messages` are the stored rows from this index on, and the
   * conversation has `message_count` rows. Absent: `messages` are all of them.
   */
  messages_offset?: number;
  message_count?: number;
}

/** POST /api/session/settings: each field given replaces the stored one; `null` or '' removes it. */
export interface SessionSettingsInput {
  session_id: string;
  model?: string | null;
  system_prompt?: string | null;
  /** A connection's id; `null` or '': the default connection. A new connection clears `model` unless it is given. */
  connection?: string | null;
  /** true: MCP clients do not see the conversation (not listed, not found by id, not searched); false: they do. */
  keep_out_of_mcp?: boolean;
}

/** One MCP read receipt (GET /api/session/receipts): a client's reads of one thing, coalesced. */
export interface McpReceipt {
  /** The client as a person knows it ("Claude Code"), or the name it gave at `initialize`, redacted and cut. */
  client: string;
  client_version?: string;
  kind: 'conversation' | 'attachment' | 'workspace';
  /** The attachment's or the workspace file's stored name; '' for the conversation. */
  name: string;
  /** ISO times of the first and last read coalesced here, and how many reads. */
  first_at: string;
  last_at: string;
  count: number;
}

/** GET /api/session/receipts?session_id= */
export interface McpReceiptsResponse {
  receipts: McpReceipt[];
}

/**
 * POST /api/session/message with `"answer": "summary"`: the session's summary and the row just stored, at
 * `message_index`, which is the session's last (a new version replaces the rows from its index on).
 */
export interface MessageSummaryAnswer {
  session: SessionSummary;
  /** null while a turn runs: the message waits in `queued_messages` and is stored after the turn's rows. */
  message_index: number | null;
  message: Message;
  /** The message waits for the running turn (docs/API.md, "A message written while a reply streams"). */
  queued?: true;
}

/** A folder conversations are grouped in (GET /api/folders, docs/API.md "Folders"). */
export interface FolderSummary {
  id: string;
  name: string;
  created_at: string;
  /** Conversations in it (not deleted; archived ones counted). */
  count: number;
}

/** GET /api/folders. */
export interface FoldersResponse {
  folders: FolderSummary[];
  max_folders: number;
  max_name_chars: number;
}
