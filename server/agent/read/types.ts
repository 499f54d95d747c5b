// What every attachment reader takes and gives.
import type { ContentPart } from '../types.js';
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
}

/** One attachment as the agent gets it: its content parts, and in a few words what they hold. */
export interface AttachmentRead {
  parts: ContentPart[];
  summary: ReadSummary;
}
