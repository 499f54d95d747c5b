// What a message, a draft and an upload say of a file (docs/API.md "Message attachments"): the stored upload,
// the extracted archive, the Office sidecar, an unsent draft's chips, an extracted folder's listing. Apart from
// wire.d.ts (which re-exports it) so each topic of the API is one file under 400 lines.

export interface Attachment {
  filename: string;
  /** Absolute path on the server's disk. */
  path: string;
  size: number;
  mime: string;
  is_image: boolean;
  /** The `.gz` name this file was decompressed from (POST /api/upload of a single gzip-compressed file). */
  decompressed_from?: string;
  /**
   * The name the person gave the file, where it is not `filename` (issue 38, item 4): `Quarterly report Q3.pdf`
   * for a file stored as `Quarterly_report_Q3.pdf`. What the page shows, the agent is told and an export carries;
   * `filename` stays the stored name every route takes. Absent: `filename` is the name.
   */
  display_name?: string;
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

/** The sidecar of one Office file unpacked from an archive, or why it has none. */
export interface ExtractedSidecar {
  /** The Office file, as in `extracted_files` / `files`. */
  file: string;
  sidecar?: Sidecar;
  sidecar_error?: string;
  sidecar_reason?: string;
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
