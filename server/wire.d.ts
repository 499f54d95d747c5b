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
}

export interface Message {
  role: string;
  text: string;
  attachments: Attachment[];
  /** ISO 8601. */
  created_at: string;
}

export interface SessionSummary {
  session_id: string;
  title: string;
  workspace: string;
  /** The owning profile; sessions from older stores may carry none (then they belong to `default`). */
  profile: unknown;
  created_at: string;
  updated_at: string;
  message_count: number;
}

export interface Session {
  session_id: string;
  title: string;
  workspace: string;
  profile: unknown;
  created_at: string;
  updated_at: string;
  messages: Message[];
  attachments: Attachment[];
}

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

/** POST /api/upload/extract */
export interface ExtractResult {
  ok: true;
  extracted: number;
  /** Relative to the session's attachment folder, `/`-separated. */
  files: string[];
  dest: string;
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
  extracted: boolean;
  extracted_files?: string[];
  extracted_count?: number;
  extract_error?: string;
  sidecar?: Sidecar;
  sidecar_error?: string;
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

/** The server-sent events of GET /api/events, by name, with their `data`. */
export interface ServerEvents {
  session_created: { session: SessionSummary };
  session_renamed: { session_id: string; title: string };
  session_updated: { session_id: string };
  /** One stored attachment, or an archive extracted into the attachment folder. */
  attachment_added: { session_id: string; attachment: Attachment } | { session_id: string; extracted: number; dest: string };
  /** Something was stored under `path` (relative to the workspace root). */
  workspace_changed: { session_id: string; path: string };
}

export type ServerEventName = keyof ServerEvents;
