// Typed access to the server's JSON API (docs/API.md). Every failure becomes an ApiError carrying the
// server's own `error` text, so the UI can show exactly what the server said.
export interface Attachment {
  filename: string;
  path: string;
  size: number;
  mime: string;
  is_image: boolean;
}

export interface Message {
  role: string;
  text: string;
  attachments?: Attachment[];
  created_at?: string | number;
}

export interface SessionSummary {
  session_id: string;
  title: string;
  workspace: string | null;
  profile?: string | null;
  created_at?: string | number;
  updated_at?: string | number;
  message_count?: number;
}

export interface Session extends SessionSummary {
  messages: Message[];
  attachments?: Attachment[];
}

export interface ServerConfig {
  ok: boolean;
  version: string;
  max_upload_bytes: number;
  max_upload_mb: number;
  profile: string;
}

export interface WorkspaceEntry {
  name: string;
  type: 'file' | 'dir';
  size: number;
  mtime: number | string;
}

/** GET /api/workspaces: the trusted roots, and the folder a session gets when none is chosen (newer servers). */
export interface WorkspaceRoots {
  workspaces: string[];
  default?: string;
}

export interface ExtractResult {
  ok: boolean;
  extracted: number;
  files: string[];
  dest: string;
}

/** One file's result from POST /api/workspace/upload; archive and Office fields are present when relevant. */
export interface WorkspaceUploadItem {
  filename: string;
  path?: string;
  size?: number;
  mime?: string;
  extracted?: boolean;
  /** Extracted paths, relative to the upload target (the server's name; `files` accepted too). */
  extracted_files?: string[];
  extracted_count?: number;
  files?: string[];
  dest?: string;
  extract_error?: string;
  sidecar?: string | { filename?: string; path?: string; size?: number; preview_kind?: string; office_format?: string };
  sidecar_path?: string;
  sidecar_error?: string;
  preview_kind?: string;
  office_format?: string;
  [key: string]: unknown;
}

export interface Capability {
  ok: boolean;
  available: boolean;
  provider: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
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

async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, UNREACHABLE);
  }
  const text = await res.text();
  if (!res.ok) throw new ApiError(res.status, errorText(res.status, text));
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError(res.status, 'The server sent an unreadable answer.');
  }
}

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

/** Workspace listing and preview parameters; `hidden=1` asks for entries whose names start with a dot. */
export function browseParams(id: string, path: string, hidden: boolean): Record<string, string> {
  return hidden ? { session_id: id, path, hidden: '1' } : { session_id: id, path };
}

export const api = {
  config: () => request<ServerConfig>('GET', '/api/config'),
  profiles: () => request<{ active: string; profiles: string[] }>('GET', '/api/profiles'),
  switchProfile: (name: string) => request<{ ok: boolean; active: string }>('POST', '/api/profile/switch', { name }),
  sessions: () => request<{ sessions: SessionSummary[] }>('GET', '/api/sessions'),
  session: (id: string) => request<{ session: Session }>('GET', `/api/session?${q({ session_id: id })}`),
  newSession: (workspace?: string) =>
    request<{ session: Session }>('POST', '/api/session/new', workspace ? { workspace } : {}),
  rename: (id: string, title: string) =>
    request<{ session: Session }>('POST', '/api/session/rename', { session_id: id, title }),
  sendMessage: (id: string, text: string, attachments: Attachment[]) =>
    request<{ session: Session }>('POST', '/api/session/message', { session_id: id, text, attachments }),
  workspaces: () => request<WorkspaceRoots>('GET', '/api/workspaces'),
  addWorkspace: (path: string) => request<WorkspaceRoots>('POST', '/api/workspaces/add', { path }),
  list: (id: string, path: string, hidden = false) =>
    request<{ path: string; entries: WorkspaceEntry[] }>('GET', `/api/workspace/list?${q(browseParams(id, path, hidden))}`),
  capability: () => request<Capability>('GET', '/api/transcribe/capability'),
  async fileText(id: string, path: string, hidden = false): Promise<string> {
    let res: Response;
    try {
      res = await fetch(`/api/workspace/file?${q(browseParams(id, path, hidden))}`, { credentials: 'same-origin' });
    } catch {
      throw new ApiError(0, UNREACHABLE);
    }
    const text = await res.text();
    if (!res.ok) throw new ApiError(res.status, errorText(res.status, text));
    return text;
  },
};
