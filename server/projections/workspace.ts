// Workspace roots, listings and uploads as they leave the server. Every name and path here is one the server
// read from its own disk or wrote there, and the UI sends it back (a root to create a session in, a path to
// browse or preview), so they go out exactly as they are; only error texts are free text.
import type * as wire from '../core/wire.js';
import { carryUnknown, optional, redactText, serverValue, type RedactedText, type ServerValue } from './brand.js';

export interface PublicWorkspaceRoots {
  workspaces: ServerValue[];
  default: ServerValue;
}

export interface PublicWorkspaceEntry {
  name: ServerValue;
  type: 'file' | 'dir';
  size: number;
  mtime: ServerValue;
}

export interface PublicWorkspaceListing {
  path: ServerValue;
  entries: PublicWorkspaceEntry[];
  truncated: boolean;
}

export interface PublicSkippedMember {
  /** A member name from the archive, as the files list carries them. */
  name: ServerValue;
  reason: wire.SkipReason;
}

export interface PublicExtractResult {
  ok: true;
  extracted: number;
  files: ServerValue[];
  dest: ServerValue;
  sidecars?: PublicExtractedSidecar[];
  skipped: PublicSkippedMember[];
}

/** One Office file an extraction wrote: its name as in the files list, and its sidecar or why it has none. */
export interface PublicExtractedSidecar {
  file: ServerValue;
  sidecar?: PublicSidecar;
  sidecar_error?: RedactedText;
  sidecar_reason?: RedactedText;
}

export interface PublicSidecar {
  filename: ServerValue;
  path: ServerValue;
  size: number;
  preview_kind: 'office';
  office_format: wire.OfficeFormat;
}

export interface PublicWorkspaceItem {
  filename: ServerValue;
  path: ServerValue;
  size: number;
  mime?: ServerValue;
  is_image: boolean;
  extracted: boolean;
  extracted_files?: ServerValue[];
  extracted_count?: number;
  skipped?: PublicSkippedMember[];
  /** Texts of a failure: they may quote what was in the archive. */
  extract_error?: RedactedText;
  sidecar?: PublicSidecar;
  sidecar_error?: RedactedText;
  sidecar_reason?: RedactedText;
  sidecars?: PublicExtractedSidecar[];
}

const serverValues = (list: readonly string[]): ServerValue[] => list.map(serverValue);

export function publicWorkspaceRoots(workspaces: readonly string[], fallback: string): PublicWorkspaceRoots {
  return { workspaces: serverValues(workspaces), default: serverValue(fallback) };
}

export function publicWorkspaceEntry(e: wire.WorkspaceEntry): PublicWorkspaceEntry {
  return { name: serverValue(e.name), type: e.type, size: e.size, mtime: serverValue(e.mtime) };
}

export function publicWorkspaceListing(listing: wire.WorkspaceListing): PublicWorkspaceListing {
  return { path: serverValue(listing.path), entries: listing.entries.map(publicWorkspaceEntry), truncated: listing.truncated };
}

const publicSkipped = (list: readonly wire.SkippedMember[]): PublicSkippedMember[] => list.map((m) => ({ name: serverValue(m.name), reason: m.reason }));

export function publicExtractResult(r: {
  extracted: number;
  files: readonly string[];
  dest: string;
  sidecars?: readonly wire.ExtractedSidecar[];
  skipped: readonly wire.SkippedMember[];
}): PublicExtractResult {
  const out: PublicExtractResult = { ok: true, extracted: r.extracted, files: serverValues(r.files), dest: serverValue(r.dest), skipped: publicSkipped(r.skipped) };
  // Absent when the archive held no Office file, as in a workspace upload's item.
  if (r.sidecars?.length) out.sidecars = r.sidecars.map(publicExtractedSidecar);
  return out;
}

/** The file is named as in `files` (the UI matches them), so verbatim; failure texts are free text. */
function publicExtractedSidecar(s: wire.ExtractedSidecar): PublicExtractedSidecar {
  return carryUnknown<PublicExtractedSidecar>(
    {
      file: serverValue(s.file),
      sidecar: optional(s.sidecar, publicSidecar),
      sidecar_error: optional(s.sidecar_error, redactText),
      sidecar_reason: optional(s.sidecar_reason, redactText),
    },
    s,
  );
}

function publicSidecar(s: wire.Sidecar): PublicSidecar {
  return carryUnknown(
    { filename: serverValue(s.filename), path: serverValue(s.path), size: s.size, preview_kind: s.preview_kind, office_format: s.office_format },
    s,
  );
}

export function publicWorkspaceItem(item: wire.WorkspaceItem): PublicWorkspaceItem {
  return carryUnknown<PublicWorkspaceItem>(
    {
      filename: serverValue(item.filename),
      path: serverValue(item.path),
      size: item.size,
      mime: optional(item.mime, serverValue),
      is_image: item.is_image,
      extracted: item.extracted,
      extracted_files: optional(item.extracted_files, serverValues),
      extracted_count: item.extracted_count,
      skipped: optional(item.skipped, publicSkipped),
      extract_error: optional(item.extract_error, redactText),
      sidecar: optional(item.sidecar, publicSidecar),
      sidecar_error: optional(item.sidecar_error, redactText),
      sidecar_reason: optional(item.sidecar_reason, redactText),
      sidecars: optional(item.sidecars, (list) => list.map(publicExtractedSidecar)),
    },
    item,
  );
}

export type PublicWorkspaceUploadResponse = PublicWorkspaceItem | { files: PublicWorkspaceItem[]; count: number };

/** One item for one stored part, else all of them (spec-notes 4.7). */
export function publicWorkspaceUpload(items: readonly wire.WorkspaceItem[]): PublicWorkspaceUploadResponse | undefined {
  const projected = items.map(publicWorkspaceItem);
  return projected.length === 1 ? projected[0] : { files: projected, count: projected.length };
}
