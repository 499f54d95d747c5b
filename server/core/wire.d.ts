// The HTTP API's shapes as they travel (docs/API.md): one declaration for the server that sends them and the
// renderer that reads them (`import type` from both sides). A declaration file, so the renderer's compiler can
// use it without compiling server code, and nothing of it exists at run time.

export interface Attachment {
  filename: string;
  /** Absolute path on the server's disk. */
  path: string;
  size: number;
  mime: string;
  is_image: boolean;
  /** The `.gz` name this file was decompressed from (POST /api/upload of a single gzip-compressed file). */
  decompressed_from?: string;
}

/** A stored upload as a message carries it. */
export interface FileAttachment extends Attachment {
  kind: 'file';
}

/** An archive extracted into the session's attachment folder, as a message refers to it. */
export interface ExtractedAttachment {
  kind: 'extraction';
  name: string;
  /** The extraction folder (`dest` of POST /api/upload/extract). */
  path: string;
  /**
   * Always `true`: the name ../shared/spec/agent.md gives an extracted archive in POST /api/chat/start
   * (`{name, path: <dest>, extracted}`), kept for clients of that contract. Satchel reads `kind`.
   */
  extracted: true;
  /** How many files the extraction wrote, for the message to say "extracted into N files". */
  file_count?: number;
  /** The stored archive (its `path` among the session's uploads) this was extracted from, when the message carries both. */
  archive_path?: string;
}

/** GET /api/attachment/summary: what the agent will get from one attachment, in a few words (issue 25). */
export interface AttachmentSummaryResponse {
  /** ready: all of it; partial: some of it (cut, pages without text); unreadable: only its name. */
  state: 'ready' | 'partial' | 'unreadable';
  /** "12,408 characters of text", "cut at 200,000 of 312,000 characters", "its text could not be extracted: …". */
  text: string;
}

/** What a message carries, by `kind`: a stored upload, or an extracted archive. */
export type ChatAttachment = FileAttachment | ExtractedAttachment;

/**
 * What a client may name in POST /api/chat/start and /api/session/message: an upload as POST /api/upload
 * answered it (no `kind`; the server adds it) or a message's attachment as the server sent it.
 */
export type SentAttachment = Attachment | ChatAttachment;

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

/** GET /api/agent/models: the saved agent's model list, and the model its settings name. */
export type AgentModelsResponse =
  | { ok: true; models: string[]; model: string }
  | { ok: false; type: ChatErrorType | 'no_agent'; message: string; hint?: string };

/** GET /api/config */
export interface ConfigResponse {
  ok: true;
  version: string;
  max_upload_bytes: number;
  max_upload_mb: number;
  profile: string;
}

/** GET /api/profiles */
export interface ProfilesResponse {
  active: string;
  profiles: string[];
}

/** GET /api/workspaces and POST /api/workspaces/add */
export interface WorkspaceRoots {
  workspaces: string[];
  /** Where a new session works unless another folder is chosen. */
  default: string;
}

export interface WorkspaceEntry {
  name: string;
  type: 'file' | 'dir';
  size: number;
  /** ISO 8601. */
  mtime: string;
}

/** GET /api/workspace/list */
export interface WorkspaceListing {
  /** Relative to the workspace root, `/`-separated (`''` for the root). */
  path: string;
  entries: WorkspaceEntry[];
  truncated: boolean;
}

/** Why an archive member was not written: only regular files are. */
export type SkipReason =
  | 'symlink'
  | 'hardlink'
  | 'device'
  | 'fifo'
  | 'directory-only'
  | 'sparse'
  | 'unsupported-type'
  | 'duplicate'
  | 'path-conflict'
  /** The member's path is longer than the platform allows even with each over-long name shortened. */
  | 'name-too-long';

/** An archive member that was not written, and why. */
export interface SkippedMember {
  /** Its path inside the archive, normalized (`/`-separated; a directory ends in `/`). */
  name: string;
  reason: SkipReason;
}

/** POST /api/upload/extract */
export interface ExtractResult {
  ok: true;
  /** How many files were written: a count under this name, as ../shared/spec/http-and-uploads.md fixes it. */
  extracted: number;
  /** Relative to the session's attachment folder, `/`-separated. */
  files: string[];
  dest: string;
  /** The sidecar (or why not) of each Office file extracted; absent when there were none. */
  sidecars?: ExtractedSidecar[];
  /** Members not written (links, devices, empty directories, sparse files ...), in archive order. */
  skipped: SkippedMember[];
}

export type OfficeFormat = 'docx' | 'xlsx' | 'pptx';

/** The Markdown preview written beside an Office file. */
export interface Sidecar {
  filename: string;
  path: string;
  size: number;
  preview_kind: 'office';
  office_format: OfficeFormat;
}

/** One stored part of POST /api/workspace/upload. */
export interface WorkspaceItem {
  filename: string;
  /** The stored file, the extraction folder, or (extraction failed) the folder it would have gone to. */
  path: string;
  size: number;
  mime?: string;
  is_image: boolean;
  /** Whether the archive was extracted: a boolean under this name, as ../shared/spec/http-and-uploads.md fixes it. */
  extracted: boolean;
  extracted_files?: string[];
  extracted_count?: number;
  /** Archive members not written, and why (with `extracted: true`). */
  skipped?: SkippedMember[];
  extract_error?: string;
  sidecar?: Sidecar;
  sidecar_error?: string;
  /** Why the sidecar failed, in plain words (too many parts, not a readable zip, encrypted, …); with sidecar_error. */
  sidecar_reason?: string;
  /** An extracted archive: the sidecar (or why not) of each Office file it held. */
  sidecars?: ExtractedSidecar[];
}

/** The sidecar of one Office file unpacked from an archive, or why it has none. */
export interface ExtractedSidecar {
  /** The Office file, as in `extracted_files` / `files`. */
  file: string;
  sidecar?: Sidecar;
  sidecar_error?: string;
  sidecar_reason?: string;
}

/** POST /api/workspace/upload: one item for one part, else all of them. */
export type WorkspaceUploadResponse = WorkspaceItem | { files: WorkspaceItem[]; count: number };

/** POST /api/transcribe */
export interface TranscribeResponse {
  ok: true;
  transcript: string;
}

/** GET /api/transcribe/capability */
export interface CapabilityResponse {
  ok: true;
  available: boolean;
  provider: string;
}

/** Every error answer. */
export interface ErrorResponse {
  error: string;
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
  /** The quick-capture window sent to a conversation (`stream_id`: the agent's turn it started, for `ask`). */
  capture_sent: { session_id: string; destination: 'current' | 'inbox' | 'ask'; stream_id?: string };
}

export type ServerEventName = keyof ServerEvents;

/** Where the quick-capture window sends (docs/API.md "Quick capture"). */
export type CaptureDestination = 'current' | 'inbox' | 'ask';

/** GET /api/capture */
export interface CaptureView {
  /**
   * The conversation `current` sends to: the one asked for with `?session=`, else the most recently active; `busy`
   * while a reply is being written there (a message sent then comes after it).
   */
  current: { session_id: string; title: string; busy?: boolean } | null;
  /** Whether the Inbox conversation can be sent to. */
  inbox: boolean;
  draft: { text: string; destination: CaptureDestination; session_id: string | null; attachments: Attachment[] };
}

/** POST /api/capture/send */
export interface CaptureSendResponse {
  ok: true;
  destination: CaptureDestination;
  session_id: string;
  /** For `ask`: the agent's turn, streaming in the conversation. */
  stream_id?: string;
  /** A reply was being written there: the message waits and is stored after it. */
  queued?: true;
}

/** POST /api/chat/start */
export type ChatStartResponse =
  | { stream_id: string; session_id: string; pending_started_at: number; title: string }
  | { status: 'suppressed'; reason: 'silent_control_message' };

/** 409 of POST /api/chat/start */
export interface ChatConflictResponse {
  error: string;
  active_stream_id: string;
}

/** 503 of POST /api/chat/start when no agent is configured */
export interface ChatNoAgentResponse {
  error: string;
  hint: string;
}

/** GET /api/chat/stream/status */
export interface ChatStreamStatus {
  active: boolean;
  stream_id: string;
  replay_available: boolean;
  last_seq: number;
  terminal: boolean;
}

/** GET|POST /api/chat/cancel */
export interface ChatCancelResponse {
  ok: true;
  cancelled: boolean;
  stream_id: string;
}

export interface ChatUsage {
  /** 0 when the agent reported no usage (`reported: false`): kept a number for the original's clients. */
  input_tokens: number;
  output_tokens: number;
  duration_seconds: number;
  ttft_ms: number | null;
  /** False when the agent reported no token counts: the two counts above are unknown, not 0. */
  reported?: boolean;
}

/** How a tool the agent ran ended: `stopped` when the turn ended (stop, failure, end of reply) before it did. */
export type ToolActivityStatus = 'finished' | 'failed' | 'stopped';

/** One tool the agent ran during a reply, as an assistant row keeps it (`tool_activity`). */
export interface ToolActivity {
  name: string;
  /** One line, redacted before it is stored, at most MAX_TOOL_PREVIEW_CHARS characters. */
  preview: string;
  status: ToolActivityStatus;
  /** Seconds from start to end, as the agent's progress events measured them; absent when it did not end. */
  duration_seconds?: number;
}

export interface ChatToolFrame {
  event_type: 'tool.started' | 'tool.completed';
  name: string;
  preview: string;
  args: unknown;
  tid: string;
}

export type ChatErrorType =
  | 'auth_error'
  | 'rate_limit'
  | 'model_not_found'
  | 'no_response'
  | 'unreachable'
  | 'timeout'
  | 'upstream_error'
  | 'interrupted';

/** The frames of GET /api/chat/stream, by event name, with their `data`. */
export interface ChatFrames {
  token: { text: string };
  reasoning: { text: string };
  tool: ChatToolFrame;
  tool_complete: ChatToolFrame & { duration: number; is_error: boolean };
  title: { session_id: string; title: string };
  metering: { tps: number; usage: ChatUsage };
  /**
   * The turn is stored. The session's summary, not the session: a reply may be megabytes, and `done` must stay
   * small enough to reach every watcher and resume; the client reads the stored turn with
   * GET /api/session.
   */
  done: { session: SessionSummary; usage: ChatUsage };
  apperror: { message: string; type: ChatErrorType; hint?: string; action?: ChatErrorAction; session_id: string };
  cancel: { message: string; type: 'cancelled'; status: 'cancelled'; stopped_by: StoppedBy; session_id: string };
  stream_end: { session_id: string };
}

export type ChatFrameName = keyof ChatFrames;

/**
 * Which dialect the agent speaks: Hermes Agent's gateway keeps the history itself; others get it each turn. What
 * each one does is its value in server/agent/dialect/ (a name added here is a compile error until its file exists).
 */
export type AgentKind = 'hermes' | 'openai';

/** GET and POST /api/agent/settings: the agent's settings as the UI may see them, never the key. */
export interface AgentSettings {
  base_url: string | null;
  model: string | null;
  kind: AgentKind | null;
  timeout_ms: number;
  context_chars: number;
  has_api_key: boolean;
  /** Fields the environment sets (shown read-only: a saved value would not take effect). */
  from_env: string[];
}

/** GET and POST /api/agent/settings: the settings, and every kind the server speaks as the page names it. */
export interface AgentSettingsResponse extends AgentSettings {
  kinds: { kind: AgentKind; label: string }[];
}

/** One saved agent connection (GET /api/agent/connections): its settings, never its key. */
export interface AgentConnection extends AgentSettings {
  id: string;
  name: string;
  is_default: boolean;
}

/** GET /api/agent/connections, and the answer of every POST that changes them. */
export interface AgentConnectionsResponse {
  connections: AgentConnection[];
  /** `main` (agent.json's) when nothing else was made the default, even with no agent configured. */
  default_id: string;
  max_connections: number;
  max_name_chars: number;
  /** POST /api/agent/connections: the id of the connection saved. */
  id?: string;
}

/** POST /api/agent/test: `message` is the result in one sentence; `key_checked` false: the key could not be checked. */
export type AgentTestResponse =
  | { ok: true; models: string[]; kind: AgentKind; key_checked: boolean; message: string }
  | { ok: false; type: ChatErrorType; message: string; hint?: string; models?: string[] };

/** GET /api/agent/discover: agents answering on loopback's usual ports. */
export interface AgentDiscoverResponse {
  agents: { kind: AgentKind; base_url: string; label: string; needs_key?: boolean }[];
}

/** GET /api/mcp and POST /api/mcp/regenerate: the MCP panel's endpoint, token and client snippets (docs/mcp.md). */
export interface McpClientSnippets {
  claude_code: string;
  codex: string;
  cursor: string;
  hermes: string;
}

export interface McpSettings {
  url: string;
  token: string;
  clients: McpClientSnippets;
}

/**
 * An extraction kept with a draft's archive chip, as POST /api/upload/extract answered it: its names mean what
 * they mean there (`extracted` the count written, `files` their list), so the answer is kept as it came.
 */
export interface DraftExtraction {
  dest: string;
  extracted: number;
  /** Relative to the session's attachment folder, `/`-separated (at most MAX_DRAFT_LISTED_FILES). */
  files: string[];
}

/** A chip of an unsent draft: a stored upload, with its extraction when it was extracted. */
export interface DraftAttachment extends Attachment {
  extract?: DraftExtraction;
}

/** GET and PUT /api/session/draft: what the composer of a session held, kept across reloads and restarts. */
export interface SessionDraft {
  text: string;
  attachments: DraftAttachment[];
  /** ISO 8601; absent for an empty draft. */
  updated_at?: string;
}

/** GET /api/attachment/folder: the files below a folder of the session's attachment folder (an extracted archive). */
export interface FolderFile {
  /** Relative to the folder listed, `/`-separated. */
  path: string;
  size: number;
}

export interface AttachmentFolder {
  /** The folder, relative to the session's attachment folder (as `name` of /api/attachment/preview takes it). */
  name: string;
  /** The first files in path order (depth first, names sorted), at most MAX_FOLDER_FILES_LISTED (handlers/attachment-folder.ts). */
  files: FolderFile[];
  /** How many files the folder holds (a lower bound when `complete` is false). */
  total: number;
  /** False when the walk stopped at MAX_FOLDER_ENTRIES_WALKED before seeing every entry. */
  complete: boolean;
}

/** GET and POST /api/inbox/folders, POST /api/inbox/pause (server/inbox/routes.ts): the watched folders. */
export type InboxFolderStatus = 'watching' | 'missing' | 'refused' | 'paused';
export interface InboxFolder {
  path: string;
  /** `env`: from SATCHEL_INBOX_FOLDERS (cannot be removed through the API); `settings`: added by the profile. */
  source: 'env' | 'settings';
  status: InboxFolderStatus;
  /** The rule's words when the folder is refused (or was moved or replaced while watched). */
  error?: string;
  /** Files in it that were not taken and why (unreadable, a name not UTF-8, a hard link): the latest few. */
  skipped?: InboxSkippedFile[];
}
export interface InboxSkippedFile {
  /** As the folder lists it; a byte that is not UTF-8 shows as U+FFFD. */
  name: string;
  reason: string;
}
export interface InboxCounts {
  arrived: number;
  duplicate: number;
  ignored: number;
  symlink: number;
  empty: number;
  too_large: number;
  refused: number;
  failed: number;
  /** Names beyond the per-scan limit now, across the folders (not a running total). */
  over_scan_limit: number;
  /** Files Satchel may not read (permissions). */
  unreadable: number;
  /** Files whose name is not valid UTF-8. */
  bad_name: number;
  /** Files with more than one link (a hard link may be to a file from anywhere, ~/.ssh/id_rsa). */
  hard_link: number;
}
export interface InboxFoldersResponse {
  folders: InboxFolder[];
  paused: boolean;
  /** Since the server started. */
  counts: InboxCounts;
}

/** A checked backup of the conversation database (GET /api/database). */
export interface DatabaseBackup {
  name: string;
  created_at: string;
  reason: string;
  size: number;
}
/** GET /api/database: the database's state, its backups, and (damaged) one sentence of what to do. */
export interface DatabaseStateResponse {
  state: 'ok' | 'damaged';
  file: string;
  message?: string;
  /** Conversations set aside at start: their header could not be read. */
  unreadable: { session_id: string; reason: string }[];
  backups: DatabaseBackup[];
}
/** POST /api/database/restore {backup}: the state after the restore, what came back and where the old files went. */
export interface DatabaseRestoreResponse extends DatabaseStateResponse {
  restored: DatabaseBackup;
  set_aside: string;
}
