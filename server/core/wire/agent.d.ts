// The agent connection as the page may see it (never a key), and the MCP panel's endpoint and snippets. Apart
// from wire.d.ts (which re-exports it) so each topic of the API is one file under 400 lines.
import type { ChatErrorType } from './chat.js';

/** GET /api/agent/models: the saved agent's model list, and the model its settings name. */
export type AgentModelsResponse =
  | { ok: true; models: string[]; model: string }
  | { ok: false; type: ChatErrorType | 'no_agent'; message: string; hint?: string };

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
  /** Satchel's own in-turn tools (list_files, read_file, search_documents) offered to this agent: the person's switch, on by default. */
  tools: boolean;
  /** The server refused a request with tools (on Test, or in a turn): none are offered until a Test finds it takes them. */
  tools_refused: boolean;
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
  | {
      ok: true;
      models: string[];
      kind: AgentKind;
      key_checked: boolean;
      message: string;
      /** Whether the server took a request with one tool (OpenAI-compatible servers only); absent: not tried. */
      tools?: boolean;
    }
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

// Agent keys, grants and the ledger (issue 39; docs/API.md "Agent keys, grants and the ledger").
export type AgentKeyKind = 'claude_code' | 'codex' | 'cursor' | 'hermes' | 'other';

/** What a key may read. Sent: `expires_at` ISO or absent; received: ISO or null. */
export type McpGrant =
  | { kind: 'all'; expires_at?: string | null }
  | { kind: 'conversation'; session_id: string; expires_at?: string | null }
  | { kind: 'inbox'; expires_at?: string | null }
  | { kind: 'workspace'; path: string; expires_at?: string | null }
  /** The conversations in that folder at the time of each call (docs/API.md "Agent keys, grants and the ledger"). */
  | { kind: 'folder'; folder_id: string; expires_at?: string | null };

export interface AgentKey {
  id: string;
  name: string;
  kind: AgentKeyKind;
  created_at: string;
  last_used_at: string | null;
  paused: boolean;
  revoked: boolean;
  revoked_at: string | null;
  grants: McpGrant[];
}

export interface AgentKeysResponse {
  keys: AgentKey[];
}

/** POST /api/mcp/keys: the token and the snippets holding it, shown this once. */
export interface AgentKeyCreated {
  key: AgentKey;
  token: string;
  url: string;
  clients: McpClientSnippets;
}

export interface McpLedgerEntry {
  id: number;
  /** An AgentKey's id, or `launch` (Satchel's own launch token). */
  key_id: string;
  at: string;
  op: string;
  outcome: 'ok' | 'not_found' | 'refused' | 'error';
  session_id: string | null;
  kind: string;
  name: string;
  range: string;
  query: string;
  bytes: number;
  sha256: string | null;
}

/** GET /api/mcp/ledger: newest first; `next` is the `before` of the next page. */
export interface McpLedgerPage {
  entries: McpLedgerEntry[];
  next?: number;
}
