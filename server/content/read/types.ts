// What every reader takes and gives: neutral parts (no agent dialect, no HTTP, no session), and a summary.
import type { KindName } from '../kind.js';
import type { WorkspaceRoot } from './open.js';
import type { PdfLimits } from '../../workspace/pdf.js';
import type { ReadSummary } from './summary.js';

export interface InputOptions {
  /** Folders attachments may be read from (the session's attachment folder). Anything else is only named. */
  roots: readonly string[];
  /** For audio transcripts through the configured speech-to-text. */
  stateDir?: string;
  /** Replaces speech-to-text (tests; a caller that has its own). Resolves the transcript, rejects on failure. */
  transcribe?: (file: string, filename: string) => Promise<string>;
  signal?: AbortSignal;
  /** The conversation's system prompt: the first message of the turn, drawn from the budget before anything else. */
  systemPrompt?: string;
  /**
   * Told the whole text an attachment gave (an Office document's Markdown, an audio file's transcript), before
   * the budget cuts it, with the attachment's path as the turn named it: the search index takes it (app.ts).
   */
  onAttachmentText?: (attachmentPath: string, text: string) => void;
  /**
   * Nothing is written beside the file (an Office document's Markdown sidecar): a read that must leave the
   * folder as it was (Satchel's in-turn tools reading a workspace, agent/tools/).
   */
  readOnly?: boolean;
  /**
   * The Satchel URI the agent knows a file by (`satchel://session/<id>/attachment/<name>`, core/satchel-uri.ts),
   * from its path: what a line naming the file says where the spec says "its stored path". A path never goes to
   * the agent (it hands the person's user name and folders to a possibly remote server, and no model can open
   * it); unset, or undefined for a file, and the file is named only.
   */
  agentUri?: (file: string) => string | undefined;
  /**
   * How far a PDF is read: the preview's first pages unless a caller reads a document whole for a conversation's
   * passages (context/doc-text.ts), which goes further.
   */
  pdfLimits?: PdfLimits;
  /** The session's workspace, when a turn reads its files: a file below it is read by its rules (open.ts). */
  workspaceRoot?: WorkspaceRoot;
}

/** Where a part's text came from: the file as named, a page of it (from 1), a member of an archive. */
export interface Provenance {
  file: string;
  page?: number;
  member?: string;
}

/** One piece of what a file says. Consumers map these to their own wire (agent/content-parts.ts, MCP). */
export type Part =
  | { type: 'text'; text: string; from: Provenance }
  /** `data` is base64: it goes out as such (a data: URL, MCP image content). */
  | { type: 'image'; mime: string; data: string; from: Provenance };

/** One attachment as read: what it is, its parts, and in a few words what they hold. */
export interface AttachmentRead {
  /** The kind classify decided; absent when the file could not be opened at all (only its name goes). */
  kind?: KindName;
  parts: Part[];
  summary: ReadSummary;
}

export const textPart = (text: string, from: Provenance): Part => ({ type: 'text', text, from });
