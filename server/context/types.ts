// The shapes of the context layer (issue 36, "what the agent is given of a conversation"): a conversation's
// documents, each one's whole text as its reader gives it, and the passages it is cut into for retrieval. The
// layer sits between content/ (what a file says) and agent/ (a turn in its dialect); it never imports agent/.
import type { ChatAttachment } from '../core/wire.js';
import type { KindName, Part, ReadSummary } from '../content/index.js';

/** A row of the session's `messages` as stored (agent.md, "What is stored"); only these fields are read. */
export interface StoredMessage {
  role: string;
  content?: unknown;
  attachments?: unknown;
  timestamp?: unknown;
  /** An Inbox arrival row (agent/arrivals-input.ts). */
  arrival?: unknown;
  _error?: boolean;
  /** The report of what the turn this row opened gave the agent (a user row; wire `Message.context`). */
  context?: unknown;
}

/** One document of a conversation: an earlier attachment, a file that arrived, or a workspace file. */
export interface ConversationDoc {
  /** 'attachment:<name>' | 'workspace:<rel>': stable within the conversation. */
  key: string;
  /** As the chip shows it (never a path). */
  name: string;
  origin: 'attachment' | 'arrival' | 'workspace';
  /** Its `path` is absolute, for reading only: never sent. */
  attachment: ChatAttachment;
  /** satchel://session/<id>/attachment/<name> | …/workspace/<rel>: what the agent may name it by. */
  uri: string;
  /** Index of the stored row that carried it (attachments, arrivals). */
  row?: number;
}

/** A document's whole text parts as its reader gives them under MAX_DOC_CHARS (doc-text.ts). */
export interface DocText {
  /** Absent when the file could not be opened at all. */
  kind?: KindName;
  parts: Part[];
  /** Characters of text among `parts` (images not counted). */
  chars: number;
  summary: ReadSummary;
  /** A preview's read that did not wait for it (an audio file not transcribed yet): its size is not known. */
  pending?: boolean;
}

/** A piece of a document's text small enough to send on its own, with where it is from. */
export interface Passage {
  key: string;
  /** The document's name, as its label says it. */
  name: string;
  page?: number;
  slide?: number;
  sheet?: string;
  member?: string;
  section?: string;
  text: string;
  /** Its place in the document (from 0): ties in ranking keep the document's order. */
  seq: number;
}

/**
 * The session's workspace as a turn tells the agent of it (server/context/workspace.ts, the workspace part).
 * Declared here until that module lands; it then declares the same shape.
 */
export interface WorkspaceContext {
  /** The folder's base name, never its path. */
  name: string;
  /** A bounded listing of the workspace, as the new user message carries it. */
  listing: string;
  listed: number;
  total: number;
  /** Files new or changed since the previous turn started: read into the turn like attachments. */
  changed: ConversationDoc[];
  /** Every other readable workspace file: documents for passages. */
  files: ConversationDoc[];
  root: string;
}
