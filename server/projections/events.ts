// The data of GET /api/events, one projection per event name: a renamed title is free text, everything else in
// these events is an id, a stored path or a count the UI acts on.
import type { ServerEvent } from '../store/events.js';
import type * as wire from '../core/wire.js';
import { optional, redactText, serverValue, type RedactedText, type ServerValue } from './brand.js';
import { publicReceipt, type PublicReceipt } from './receipts.js';
import { publicAttachment, publicSessionSummary, type PublicAttachment, type PublicSessionSummary } from './sessions.js';

export interface PublicServerEvents {
  session_created: { session: PublicSessionSummary };
  session_renamed: { session_id: ServerValue; title: RedactedText };
  session_updated: { session_id: ServerValue; updated_at?: ServerValue };
  session_deleted: { session_id: ServerValue };
  session_restored: { session: PublicSessionSummary };
  attachment_added: { session_id: ServerValue; attachment: PublicAttachment } | { session_id: ServerValue; file_count: number; dest: ServerValue };
  workspace_changed: { session_id: ServerValue; path: ServerValue };
  mcp_read: { session_id: ServerValue; receipt: PublicReceipt };
  mcp_ledger_added: { key_id: ServerValue };
  capture_sent: { session_id: ServerValue; destination: ServerValue; stream_id?: ServerValue };
  folders_changed: { folder_id: ServerValue };
}

/** `event.data` as it goes out on the stream. */
export function publicEventData(event: ServerEvent): PublicServerEvents[wire.ServerEventName] {
  switch (event.name) {
    case 'session_created':
      return { session: publicSessionSummary(event.data.session) };
    case 'session_renamed':
      return { session_id: serverValue(event.data.session_id), title: redactText(event.data.title) };
    case 'session_restored':
      return { session: publicSessionSummary(event.data.session) };
    case 'session_updated':
      return { session_id: serverValue(event.data.session_id), updated_at: optional(event.data.updated_at, serverValue) };
    case 'session_deleted':
      return { session_id: serverValue(event.data.session_id) };
    case 'attachment_added': {
      const d = event.data;
      return 'attachment' in d
        ? { session_id: serverValue(d.session_id), attachment: publicAttachment(d.attachment) }
        : { session_id: serverValue(d.session_id), file_count: d.file_count, dest: serverValue(d.dest) };
    }
    case 'workspace_changed':
      return { session_id: serverValue(event.data.session_id), path: serverValue(event.data.path) };
    case 'mcp_read':
      return { session_id: serverValue(event.data.session_id), receipt: publicReceipt(event.data.receipt) };
    case 'mcp_ledger_added':
      return { key_id: serverValue(event.data.key_id) };
    case 'capture_sent':
      return { session_id: serverValue(event.data.session_id), destination: serverValue(event.data.destination), stream_id: optional(event.data.stream_id, serverValue) };
    case 'folders_changed':
      return { folder_id: serverValue(event.data.folder_id) };
  }
}
