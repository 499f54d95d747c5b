// Typed access to the server's JSON API (docs/API.md). Every failure becomes an ApiError carrying the
// server's own `error` text, so the UI can show exactly what the server said.
// The wire shapes are declared once, for the server that sends them and this UI (server/core/wire.d.ts).
import type {
  AgentKey,
  AgentKeyCreated,
  AgentKeyKind,
  AgentKeysResponse,
  AgentConnectionsResponse,
  AgentDiscoverResponse,
  AgentKind,
  AgentModelsResponse,
  AgentSettings,
  AgentSettingsResponse,
  AgentTestResponse,
  Attachment,
  AttachmentSummaryResponse,
  CaptureDestination,
  CaptureSendResponse,
  CaptureView,
  InboxFoldersResponse,
  DatabaseRestoreResponse,
  DatabaseStateResponse,
  FolderSummary,
  FoldersResponse,
  CapabilityResponse as Capability,
  SentAttachment,
  ChatCancelResponse,
  ChatContextPreview,
  ChatStartResponse,
  ConfigResponse as ServerConfig,
  McpGrant,
  McpLedgerPage,
  McpReceiptsResponse,
  McpSettings,
  MessageSummaryAnswer,
  Session,
  SessionSettingsInput,
  SessionSummary,
  WorkspaceEntry,
  WorkspaceRoots,
} from '../../server/core/wire.js';
import { noteStatus } from './access-lost.js';
import type { SearchResponse } from './search-model.js';

// Every wire shape, under its own name; three under the names this UI has always used.
export type * from '../../server/core/wire.js';
export type { CapabilityResponse as Capability, ConfigResponse as ServerConfig, WorkspaceItem as WorkspaceUploadItem } from '../../server/core/wire.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The JSON error body's other fields (`hint`, `type`, `active_stream_id`…), when it had any. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Statuses that mean "this browser has no access cookie": the page must be opened through its token link. */
export function isAuthStatus(status: number): boolean {
  return status === 401 || status === 403;
}

const UNREACHABLE = 'Satchel’s server is not reachable. Is it still running?';

/** The `error` text of a JSON error body, or a generic text for the status. */
export function errorText(status: number, body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && typeof (parsed as { error?: unknown }).error === 'string') {
      return (parsed as { error: string }).error;
    }
  } catch {
    // not JSON: fall through to the generic text
  }
  if (status === 0) return UNREACHABLE;
  return `Request failed (HTTP ${status})`;
}

/** The fields of a JSON error body, or nothing when the body is not a JSON object. */
export function errorDetails(body: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * POST /api/agent/settings and /api/agent/test. An absent `api_key` keeps (or tests with) the saved one at the
 * saved address; a new address gets it only with `keep_api_key` (the person confirmed).
 */
/** A turn that makes a new version of the conversation (Regenerate, Edit) instead of adding to it. */
export interface NewVersion {
  regenerate?: boolean;
  /** The message of the person's the new version starts at (an index into `messages`); the last one by default. */
  messageIndex?: number;
  /** "Regenerate with…": a saved connection and a model for this turn only (issue 38, item 6). */
  connection?: string;
  model?: string;
}

export interface AgentSettingsInput {
  base_url: string;
  api_key?: string;
  keep_api_key?: boolean;
  model: string;
  kind?: AgentKind;
  /** Satchel's own in-turn tools on or off for this connection (issue 36); omitted: kept as saved. */
  tools?: boolean;
  /** Test only: the saved connection whose key may go to its own address (none: the default's). */
  connection?: string;
}

export type DiscoveredAgent = AgentDiscoverResponse['agents'][number];

async function request<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      signal,
      credentials: 'same-origin',
      headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, UNREACHABLE);
  }
  noteStatus(res.status);
  const text = await res.text();
  if (!res.ok) throw new ApiError(res.status, errorText(res.status, text), errorDetails(text));
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError(res.status, 'The server sent an unreadable answer.');
  }
}

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

/** Which agent's and which conversation's ledger rows: either left out means all. */
export interface LedgerFilter {
  key_id?: string;
  session_id?: string;
}

function ledgerQuery(filter: LedgerFilter, extra: Record<string, string> = {}): string {
  return q({ ...(filter.key_id ? { key_id: filter.key_id } : {}), ...(filter.session_id ? { session_id: filter.session_id } : {}), ...extra });
}

/** The ledger's download link (the page's access cookie goes along, as for any same-origin link). */
export function ledgerExportUrl(format: 'json' | 'csv', filter: LedgerFilter): string {
  return `/api/mcp/ledger/export?${ledgerQuery(filter, { format })}`;
}

/** Workspace listing and preview parameters; `hidden=1` asks for entries whose names start with a dot. */
export function browseParams(id: string, path: string, hidden: boolean): Record<string, string> {
  return hidden ? { session_id: id, path, hidden: '1' } : { session_id: id, path };
}

export const api = {
  config: () => request<ServerConfig>('GET', '/api/config'),
  /** The quick-capture window (docs/API.md "Quick capture"). */
  capture: (session?: string | null) => request<CaptureView>('GET', `/api/capture${session ? `?${q({ session })}` : ''}`),
  saveCaptureDraft: (draft: { text: string; destination: CaptureDestination; session_id: string | null; attachments: string[] }) =>
    request<{ ok: true }>('PUT', '/api/capture/draft', draft),
  sendCapture: (body: { destination: CaptureDestination; session_id?: string; staging_session_id?: string; text: string; attachments: string[]; reply?: boolean }) =>
    request<CaptureSendResponse>('POST', '/api/capture/send', body),
  /** The watched Inbox folders (docs/API.md "Inbox folders"); a refused folder is a 400 with the rule's words. */
  inboxFolders: () => request<InboxFoldersResponse>('GET', '/api/inbox/folders'),
  addInboxFolder: (path: string) => request<InboxFoldersResponse>('POST', '/api/inbox/folders', { add: path }),
  removeInboxFolder: (path: string) => request<InboxFoldersResponse>('POST', '/api/inbox/folders', { remove: path }),
  pauseInbox: (paused: boolean) => request<InboxFoldersResponse>('POST', '/api/inbox/pause', { paused }),
  /** The conversation database's state and its checked backups; restore one (docs/API.md "Database and backups"). */
  database: () => request<DatabaseStateResponse>('GET', '/api/database'),
  restoreDatabase: (backup: string) => request<DatabaseRestoreResponse>('POST', '/api/database/restore', { backup }),
  profiles: () => request<{ active: string; profiles: string[] }>('GET', '/api/profiles'),
  switchProfile: (name: string) => request<{ ok: boolean; active: string }>('POST', '/api/profile/switch', { name }),
  sessions: () => request<{ sessions: SessionSummary[] }>('GET', '/api/sessions'),
  session: (id: string) => request<{ session: Session }>('GET', `/api/session?${q({ session_id: id })}`),
  /** A page of the conversation's rows: the newest `limit`, or the `limit` before the row at `before` (session-pages.ts). */
  sessionPage: (id: string, limit: number, before?: number) =>
    request<{ session: Session }>('GET', `/api/session?${q({ session_id: id, limit: String(limit), ...(before !== undefined ? { before: String(before) } : {}) })}`),
  newSession: (workspace?: string) =>
    request<{ session: Session }>('POST', '/api/session/new', workspace ? { workspace } : {}),
  rename: (id: string, title: string) =>
    request<{ session: Session }>('POST', '/api/session/rename', { session_id: id, title }),
  /** Hidden at once, purged after `undo_until` unless restored (docs/API.md "Managing sessions"). */
  deleteSession: (id: string) => request<{ ok: true; session_id: string; undo_until: string }>('POST', '/api/session/delete', { session_id: id }),
  restoreSession: (id: string) => request<{ session: Session }>('POST', '/api/session/restore', { session_id: id }),
  pinSession: (id: string, pinned: boolean) => request<{ session: SessionSummary }>('POST', '/api/session/pin', { session_id: id, pinned }),
  archiveSession: (id: string, archived: boolean) => request<{ session: SessionSummary }>('POST', '/api/session/archive', { session_id: id, archived }),
  /** Folders (docs/API.md "Folders"): a conversation's is its summary's `folder`; null moves it out of any. */
  folders: () => request<FoldersResponse>('GET', '/api/folders'),
  newFolder: (name: string) => request<{ folder: FolderSummary }>('POST', '/api/folders/new', { name }),
  renameFolder: (id: string, name: string) => request<{ folder: FolderSummary }>('POST', '/api/folders/rename', { folder_id: id, name }),
  deleteFolder: (id: string) => request<{ folder: FolderSummary; moved: number }>('POST', '/api/folders/delete', { folder_id: id }),
  moveToFolder: (id: string, folderId: string | null) => request<{ session: SessionSummary }>('POST', '/api/session/folder', { session_id: id, folder_id: folderId }),
  /** A message kept without asking an agent; `messageIndex`: as a new version from that message on (Edit). */
  // Asks for the summary and the stored row only: the whole session is every message again (10 MB at 10,000).
  sendMessage: (id: string, text: string, attachments: SentAttachment[], messageIndex?: number) =>
    request<MessageSummaryAnswer>('POST', '/api/session/message', {
      session_id: id,
      text,
      attachments,
      answer: 'summary',
      ...(messageIndex !== undefined ? { message_index: messageIndex } : {}),
    }),
  /**
   * `regenerate`: the turn makes a new version from the session's last message of the person's on, or from the
   * one at `messageIndex` (Edit); the replaced version is kept (Satchel's extension, docs/API.md "Versions").
   */
  startChat: (id: string, message: string, attachments: SentAttachment[], opts: NewVersion = {}) =>
    request<ChatStartResponse>('POST', '/api/chat/start', {
      session_id: id,
      message,
      attachments,
      ...(opts.regenerate ? { regenerate: true, ...(opts.messageIndex !== undefined ? { message_index: opts.messageIndex } : {}) } : {}),
      ...(opts.connection ? { connection: opts.connection } : {}),
      ...(opts.model ? { model: opts.model } : {}),
    }),
  /** What the next turn would give the agent of the conversation's documents, before it is sent (issue 36). */
  chatContext: (id: string, text: string, attachments: SentAttachment[]) =>
    request<ChatContextPreview>('POST', '/api/chat/context', { session_id: id, text, attachments }),
  /** Show version `version` of the conversation from the message at `messageIndex` on. */
  /** The conversation's own model and system prompt: a field given replaces the stored one, null removes it. */
  sessionSettings: (id: string, change: Omit<SessionSettingsInput, 'session_id'>) =>
    request<{ session: Session }>('POST', '/api/session/settings', { session_id: id, ...change }),
  /** What MCP clients read of the conversation, the latest first (docs/API.md "MCP read receipts"). */
  sessionReceipts: (id: string) => request<McpReceiptsResponse>('GET', `/api/session/receipts?${q({ session_id: id })}`),
  showVersion: (id: string, messageIndex: number, version: number) =>
    request<{ session: Session }>('POST', '/api/session/version', { session_id: id, message_index: messageIndex, version }),
  cancelChat: (streamId: string) => request<ChatCancelResponse>('POST', '/api/chat/cancel', { stream_id: streamId }),
  agentSettings: () => request<AgentSettingsResponse>('GET', '/api/agent/settings'),
  saveAgentSettings: (input: AgentSettingsInput) => request<AgentSettingsResponse>('POST', '/api/agent/settings', input),
  testAgent: (input: AgentSettingsInput) => request<AgentTestResponse>('POST', '/api/agent/test', input),
  discoverAgents: () => request<AgentDiscoverResponse>('GET', '/api/agent/discover'),
  agentModels: (connection?: string) => request<AgentModelsResponse>('GET', `/api/agent/models${connection ? `?${q({ connection })}` : ''}`),
  // Several saved agent connections (docs/API.md, "Agent connections").
  agentConnections: () => request<AgentConnectionsResponse>('GET', '/api/agent/connections'),
  saveAgentConnection: (input: AgentSettingsInput & { id?: string; name?: string }) => request<AgentConnectionsResponse>('POST', '/api/agent/connections', input),
  deleteAgentConnection: (id: string) => request<AgentConnectionsResponse>('POST', '/api/agent/connections/delete', { id }),
  defaultAgentConnection: (id: string) => request<AgentConnectionsResponse>('POST', '/api/agent/connections/default', { id }),
  mcpSettings: () => request<McpSettings>('GET', '/api/mcp'),
  regenerateMcpToken: () => request<McpSettings>('POST', '/api/mcp/regenerate'),
  // Each agent its own key, its grants, and the ledger of what it read (docs/API.md "Agent keys").
  agentKeys: () => request<AgentKeysResponse>('GET', '/api/mcp/keys'),
  createAgentKey: (name: string, kind: AgentKeyKind, grants: McpGrant[]) => request<AgentKeyCreated>('POST', '/api/mcp/keys', { name, kind, grants }),
  renameAgentKey: (id: string, name: string) => request<{ key: AgentKey }>('POST', '/api/mcp/keys/rename', { id, name }),
  pauseAgentKey: (id: string, paused: boolean) => request<{ key: AgentKey }>('POST', '/api/mcp/keys/pause', { id, paused }),
  revokeAgentKey: (id: string) => request<{ key: AgentKey }>('POST', '/api/mcp/keys/revoke', { id }),
  setAgentKeyGrants: (id: string, grants: McpGrant[]) => request<{ key: AgentKey }>('POST', '/api/mcp/keys/grants', { id, grants }),
  ledger: (filter: LedgerFilter, before?: number, limit?: number) =>
    request<McpLedgerPage>('GET', `/api/mcp/ledger?${ledgerQuery(filter, { ...(before !== undefined ? { before: String(before) } : {}), ...(limit !== undefined ? { limit: String(limit) } : {}) })}`),
  workspaces: () => request<WorkspaceRoots>('GET', '/api/workspaces'),
  addWorkspace: (path: string) => request<WorkspaceRoots>('POST', '/api/workspaces/add', { path }),
  list: (id: string, path: string, hidden = false) =>
    request<{ path: string; entries: WorkspaceEntry[] }>('GET', `/api/workspace/list?${q(browseParams(id, path, hidden))}`),
  capability: () => request<Capability>('GET', '/api/transcribe/capability'),
  /** What the agent will get from an attachment of the session (its chip's line). */
  attachmentSummary: (id: string, name: string) => request<AttachmentSummaryResponse>('GET', `/api/attachment/summary?${q({ session_id: id, name })}`),
  /** Search everything of the active profile (docs/API.md "Search"): ranked results with snippets. */
  search: (query: string, limit: number, signal?: AbortSignal) =>
    request<SearchResponse>('GET', `/api/search?${q({ q: query, limit: String(limit) })}`, undefined, signal),
  async fileText(id: string, path: string, hidden = false): Promise<string> {
    let res: Response;
    try {
      res = await fetch(`/api/workspace/file?${q(browseParams(id, path, hidden))}`, { credentials: 'same-origin' });
    } catch {
      throw new ApiError(0, UNREACHABLE);
    }
    noteStatus(res.status);
    const text = await res.text();
    if (!res.ok) throw new ApiError(res.status, errorText(res.status, text));
    return text;
  },
};
