// What the MCP tools and resources return (docs/mcp.md), built from the store: titles, message texts, search
// snippets and the query quoted back are free text; session ids, workspace roots, attachment and file names,
// URIs made of them and timestamps are the server's own, and an agent sends them back to read further.
import type * as wire from '../wire.js';
import { redactText, serverValue, type RedactedText, type ServerValue } from './brand.js';
import type { SessionRecord } from './sessions.js';

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

export function publicMcpSessionRow(s: SessionRecord, uri: string): PublicMcpSessionRow {
  return {
    session_id: serverValue(s.session_id),
    uri: serverValue(uri),
    title: redactText(s.title),
    workspace: serverValue(s.workspace),
    message_count: s.messages.length,
    attachment_count: s.attachments.length,
    created_at: serverValue(s.created_at),
    last_activity: serverValue(s.updated_at),
  };
}

export interface PublicMcpNamed {
  name: ServerValue;
  uri: ServerValue;
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
  const time = m.created_at ?? (typeof m.timestamp === 'number' ? new Date(m.timestamp * 1000).toISOString() : undefined);
  return { index, role: serverValue(m.role), text, time: time === undefined ? undefined : serverValue(time), attachments };
}

export function publicMcpNamed(name: string, uri: string): PublicMcpNamed {
  return { name: serverValue(name), uri: serverValue(uri) };
}

export interface PublicMcpAttachmentRow extends PublicMcpNamed {
  size: number;
  mime: ServerValue;
}

export function publicMcpAttachmentRow(a: wire.Attachment, uri: string): PublicMcpAttachmentRow {
  return { name: serverValue(a.filename), uri: serverValue(uri), size: a.size, mime: serverValue(a.mime) };
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
