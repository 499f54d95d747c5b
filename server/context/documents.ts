// The documents of a conversation (issue 36): the attachments of the shown user rows and the files of the
// arrival rows, newest first, each once (by its stored path). The rows are the version shown (`messages`), so a
// document of a version not shown is not the conversation's.
import path from 'node:path';
import type { ChatAttachment } from '../core/wire.js';
import type { ConversationDoc, StoredMessage } from './types.js';

/** satchel://session/<id>: as MCP names a session (mcp/data.ts sessionUri). */
export function sessionUri(sessionId: string): string {
  return `satchel://session/${sessionId}`;
}

/** An attachment as MCP names it (mcp/data.ts attachmentUri): what the agent may ask the tools or MCP for. */
export function attachmentUri(sessionId: string, name: string): string {
  return `${sessionUri(sessionId)}/attachment/${encodeURIComponent(name)}`;
}

/** A workspace file as MCP names it (mcp/data.ts workspaceUri): `rel` percent-encoded whole. */
export function workspaceUri(sessionId: string, rel: string): string {
  return `${sessionUri(sessionId)}/workspace/${encodeURIComponent(rel)}`;
}

/** An Inbox arrival row (inbox/arrivals.ts): Satchel's note of files that came in. */
export function isArrivalRow(row: StoredMessage): boolean {
  return row.role === 'system' && !!row.arrival && typeof row.arrival === 'object';
}

/** The name the chip shows: the person's name for an upload (else its stored name), an extraction's name. */
export function attachmentName(a: ChatAttachment): string {
  return ('display_name' in a && typeof a.display_name === 'string' && a.display_name) || storedAttachmentName(a);
}

/** The name an attachment is stored under in the session's folder: what its Satchel URI names. */
export function storedAttachmentName(a: ChatAttachment): string {
  return ('filename' in a && a.filename) || ('name' in a && a.name) || path.basename(a.path);
}

/** A row's attachments that are read, as the turn reads them: an archive sent with its extraction is the extraction. */
export function readAttachments(list: unknown): ChatAttachment[] {
  if (!Array.isArray(list)) return [];
  const all = (list as ChatAttachment[]).filter((a) => a && typeof a === 'object' && typeof a.path === 'string');
  const extracted = new Set(all.filter((a) => 'extracted' in a && a.extracted).map((a) => (a as { name?: string }).name));
  return all.filter((a) => ('extracted' in a && a.extracted) || !('filename' in a && extracted.has(a.filename)));
}

/**
 * The conversation's documents in `rows` (the history before the new turn), newest first, deduplicated by path
 * (a file attached again is the newer row's). Error rows are Satchel's words and carry nothing.
 */
export function conversationDocs(sessionId: string, rows: readonly StoredMessage[]): ConversationDoc[] {
  const seen = new Set<string>();
  const keys = new Set<string>();
  const out: ConversationDoc[] = [];
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i]!;
    const arrival = isArrivalRow(row);
    if (row._error || (row.role !== 'user' && !arrival)) continue;
    // A row's own attachments in the order it had them, the row newest first.
    for (const a of readAttachments(row.attachments)) {
      if (seen.has(a.path)) continue;
      seen.add(a.path);
      const name = attachmentName(a);
      // Names are unique in a session's folder, but an extraction is named as its archive: the older one of two
      // rows gets its row in its key, so no two documents share one.
      const key = keys.has(`attachment:${name}`) ? `attachment:${name}@${i}` : `attachment:${name}`;
      keys.add(key);
      out.push({ key, name, origin: arrival ? 'arrival' : 'attachment', attachment: a, uri: attachmentUri(sessionId, storedAttachmentName(a)), row: i });
    }
  }
  return out;
}
