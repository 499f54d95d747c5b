// A session's workspace folder: the trusted roots, a listing, and the answer of an upload into it. Apart from
// wire.d.ts (which re-exports it) so each topic of the API is one file under 400 lines.
import type { ExtractedSidecar, Sidecar, SkippedMember } from './attachments.js';

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

/** POST /api/workspace/upload: one item for one part, else all of them. */
export type WorkspaceUploadResponse = WorkspaceItem | { files: WorkspaceItem[]; count: number };
