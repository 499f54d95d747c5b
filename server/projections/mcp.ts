// What the MCP tools and resources return (docs/mcp.md), built from the store: titles, message texts, search
// snippets and the query quoted back are free text; session ids, workspace roots, attachment and file names,
// URIs made of them and timestamps are the server's own, and an agent sends them back to read further.
import type * as wire from '../core/wire.js';
import { cutRedacted, redactText, serverValue, type PublicJson, type RedactedText, type ServerValue } from './brand.js';
import type { SessionRecord } from './sessions.js';

/** A session as the list has it: its header and how many messages and attachments it holds. */
export type McpSessionListing = Omit<SessionRecord, 'messages' | 'attachments'> & { message_count: number; attachment_count: number };

export interface PublicMcpSessionRow {
  session_id: ServerValue;
  uri: ServerValue;
  title: RedactedText;
  workspace: ServerValue;
  message_count: number;
  attachment_count: number;
  created_at: ServerValue;
  last_activity: ServerValue;
}

export function publicMcpSessionRow(s: SessionRecord | McpSessionListing, uri: string): PublicMcpSessionRow {
  return {
    session_id: serverValue(s.session_id),
    uri: serverValue(uri),
    title: redactText(s.title),
    workspace: serverValue(s.workspace),
    message_count: 'messages' in s ? s.messages.length : s.message_count,
    attachment_count: 'attachments' in s ? s.attachments.length : s.attachment_count,
    created_at: serverValue(s.created_at),
    last_activity: serverValue(s.updated_at),
  };
}

export interface PublicMcpNamed {
  /** The stored name: what read_attachment takes. */
  name: ServerValue;
  uri: ServerValue;
  /** The name the person gave the file, where it is not `name` (issue 38, item 4): the one to show them. */
  display_name?: ServerValue;
}

export interface PublicMcpMessage {
  index: number;
  role: ServerValue;
  text: RedactedText;
  time: ServerValue | undefined;
  attachments: PublicMcpNamed[];
}

/** One message of read_session: its text redacted (and then bounded: cutRedacted) by the caller. */
export function publicMcpMessage(m: wire.Message, index: number, text: RedactedText, attachments: PublicMcpNamed[]): PublicMcpMessage {
  // A stored time no date can be made of (1e300, imported before times were checked) is said as none, not thrown.
  const date = typeof m.timestamp === 'number' ? new Date(m.timestamp * 1000) : undefined;
  const time = date === undefined || Number.isNaN(date.getTime()) ? undefined : serverValue(date.toISOString());
  return { index, role: serverValue(m.role), text, time, attachments };
}

export function publicMcpNamed(name: string, uri: string, shown?: string): PublicMcpNamed {
  return { name: serverValue(name), uri: serverValue(uri), ...(shown && shown !== name ? { display_name: serverValue(shown) } : {}) };
}

export interface PublicMcpAttachmentRow extends PublicMcpNamed {
  size: number;
  mime: ServerValue;
}

export function publicMcpAttachmentRow(a: wire.Attachment, uri: string): PublicMcpAttachmentRow {
  return { ...publicMcpNamed(a.filename, uri, a.display_name), size: a.size, mime: serverValue(a.mime) };
}

export interface PublicSearchHit {
  where: 'message' | 'attachment' | 'workspace';
  ref: ServerValue;
  uri: ServerValue;
  snippet: RedactedText;
}

/**
 * A hit of search. The snippet is cut from text the search already redacted (secrets are masked before
 * matching); it is redacted once more as a snippet, which can only mask more (redacting twice changes nothing).
 */
export function publicSearchHit(hit: { where: PublicSearchHit['where']; ref: string; uri: string; snippet: string }): PublicSearchHit {
  return { where: hit.where, ref: serverValue(hit.ref), uri: serverValue(hit.uri), snippet: redactText(hit.snippet) };
}

export interface PublicCrossSearchHit {
  session_id: ServerValue;
  title: RedactedText;
  where: 'title' | 'message' | 'attachment';
  ref: ServerValue;
  uri: ServerValue;
  snippet: RedactedText;
}

/** A hit of search across conversations (issue 39): which conversation, its title, and the hit as publicSearchHit. */
export function publicCrossSearchHit(hit: { session_id: string; title: string; where: PublicCrossSearchHit['where']; ref: string; uri: string; snippet: string }): PublicCrossSearchHit {
  return {
    session_id: serverValue(hit.session_id),
    title: redactText(hit.title),
    where: hit.where,
    ref: serverValue(hit.ref),
    uri: serverValue(hit.uri),
    snippet: redactText(hit.snippet),
  };
}

/** What read_attachment found, before it leaves (mcp/data.ts): its text already redacted where it was read. */
export type McpAttachmentContent =
  | { kind: 'text'; name: string; mime: string; size: number; text: RedactedText; source: 'file' | 'office-sidecar' | 'office' | 'pdf' | 'archive-listing' | 'transcript' }
  | { kind: 'image'; name: string; mime: string; size: number; data: string; note: string; recognized?: RedactedText }
  | { kind: 'archive'; name: string; files: string[]; truncated: boolean }
  | { kind: 'binary'; name: string; mime: string; size: number; note: string };

export interface PublicMcpArchive {
  kind: 'archive';
  name: ServerValue;
  files: ServerValue[];
  truncated: boolean;
}

export interface PublicMcpBinary {
  kind: 'binary';
  name: ServerValue;
  mime: ServerValue;
  size: number;
  note: ServerValue;
}

/**
 * An extracted archive's file list, or a file whose content is not returned. The names are ones the extractor
 * or an upload wrote, which the agent sends back to read one; the note is the server's own sentence (an image's
 * may name the file). Fields in the order agents have always seen them.
 */
export function publicMcpAttachmentSummary(c: Extract<McpAttachmentContent, { kind: 'archive' | 'binary' }>): PublicMcpArchive | PublicMcpBinary {
  if (c.kind === 'archive') return { kind: 'archive', name: serverValue(c.name), files: c.files.map(serverValue), truncated: c.truncated };
  return { kind: 'binary', name: serverValue(c.name), mime: serverValue(c.mime), size: c.size, note: serverValue(c.note) };
}

export interface PublicMcpBinaryFile {
  path: ServerValue;
  size: number;
  note: ServerValue;
}

export const MCP_BINARY_NOTE = 'binary file: content not returned';

/** A workspace file that is not text: where it is and how large, never its bytes. */
export function publicMcpBinaryFile(path: string, size: number): PublicMcpBinaryFile {
  return { path: serverValue(path), size, note: serverValue(MCP_BINARY_NOTE) };
}

/** An image attachment's note beside its pixels: made by the server from the file's name and sizes. */
export function publicMcpImageNote(c: Extract<McpAttachmentContent, { kind: 'image' }>): ServerValue {
  return serverValue(c.note);
}

export interface PublicMcpAttachmentResource {
  uri: ServerValue;
  /** The stored name (the URI's last part). */
  name: ServerValue;
  /** MCP's name for people (a client shows it over `name`): the name the person gave the file (issue 38). */
  title?: ServerValue;
  description: RedactedText;
}

/** An attachment in resources/list: its session's title (already redacted) says where it is from. */
export function publicMcpAttachmentResource(title: RedactedText, entry: wire.WorkspaceEntry & { shown?: string }, uri: string): PublicMcpAttachmentResource {
  // Appending the server's own words to a redacted title keeps it redacted (redacting the whole again could read
  // "title: 12 bytes" as an assignment and mask differently).
  const description = cutRedacted(title, (t) => `${t}: ${entry.type === 'dir' ? 'extracted archive' : `${entry.size} bytes`}`);
  return { uri: serverValue(uri), name: serverValue(entry.name), ...(entry.shown && entry.shown !== entry.name ? { title: serverValue(entry.shown) } : {}), description };
}

/** A file's media type (guessed from its name), as a resource's mimeType. */
export function publicMcpMime(mime: string): ServerValue {
  return serverValue(mime);
}

/** A failure an agent may see (mcp/server.ts failureText): the server's own refusal, which may quote what was
 *  asked for (a name, a path, a query), so it is free text and redacted like the JSON API's error texts. */
export function publicMcpFailure(message: string): RedactedText {
  return redactText(message);
}

declare const mcpJsonBrand: unique symbol;
/** The JSON text of a projected value. Made only by `mcpJson`. */
export type McpJsonText = string & { readonly [mcpJsonBrand]: true };

/** A text an MCP result may carry: free text through the redactor, a server value, or projected JSON. */
export type McpText = RedactedText | ServerValue | McpJsonText;

/** Pretty JSON (as agents have always read it) of a value whose every string was classified (PublicJson). */
export function mcpJson<const T>(value: T & PublicJson<T>): McpJsonText {
  return JSON.stringify(value, null, 2) as McpJsonText;
}
