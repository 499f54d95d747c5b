// The wire shape of GET /api/workspace/preview and GET /api/attachment/preview (docs/API.md, "File previews"),
// declared once for the server that sends it and the UI that shows it.

/** How a file is shown: decided from its first bytes (and its name for SVG and Office), never from the name alone. */
export type PreviewKind = 'image' | 'text' | 'office' | 'pdf' | 'binary';

/** `utf-8-bom` is UTF-8 that starts with a byte order mark; UTF-16 by its mark or by its zero bytes;
 *  `windows-1252` / `iso-8859-1` single-byte Western text (server/content/text-encoding.ts). */
export type TextEncodingName = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'windows-1252' | 'iso-8859-1';

export interface FilePreview {
  kind: PreviewKind;
  /** The file's name (its last path component). */
  name: string;
  /** Relative to the workspace (or the session's attachment folder), `/`-separated, after symlinks inside it. */
  path: string;
  /** Absolute path on this machine, for "Show in folder" on the desktop. */
  abs_path: string;
  size: number;
  /** The media type the raw route serves it with: from its bytes for images, from its name otherwise. */
  mime: string;
  /** `text`: how the bytes were decoded. */
  encoding?: TextEncodingName;
  /** `text`: the decoded text; `office`: its Markdown; `pdf`: its text when it has any. Redacted. */
  text?: string;
  /** The text is the start of a longer file (or conversion). */
  truncated?: boolean;
  /** `office`: where the Markdown came from (the sidecar beside it, or converted now). */
  source?: 'sidecar' | 'converted';
  /** `pdf`: page count and document title, when the file states them. */
  pages?: number;
  title?: string;
  /** Why a preview has less than its kind promises (an Office file that failed to convert…). */
  note?: string;
  /**
   * What the agent gets from the file, from the agent's own reader, where the file's own text above is not it:
   * a PDF with pages without text (their OCR), an image (its OCR), anything else (an archive's list and small
   * members, an audio transcript, or only its name). Redacted.
   */
  agent?: AgentPreview;
}

export interface AgentPreview {
  /** As the chip's summary (GET /api/attachment/summary); `pending`: still being read, open the preview again. */
  state: 'ready' | 'partial' | 'unreadable' | 'pending';
  /** In a few words: "1 page, 612 characters of text, the page recognized by OCR". */
  summary: string;
  /** The text the agent is sent, as it is sent (headers, page markers), up to 256 Ki characters. */
  text: string;
}
