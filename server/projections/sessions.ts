// Sessions, messages and attachments as they leave the server (GET /api/session, the chat `done` frame, the
// session events). Titles, message texts, reasoning and tool calls are free text and go through the redactor;
// ids, stored paths and names, mime types and timestamps are the server's own and go out as stored, because
// the UI sends them back (an attachment in a message, a session id in every request).
import { INTERNAL_MESSAGE_FIELDS, INTERNAL_SESSION_FIELDS } from '../store/sessions.js';
import { versionSummary } from '../store/versions.js';
import type * as wire from '../core/wire.js';
import { publicContextReport, type PublicContextReport } from './context.js';
import { carryUnknown, optional, redactedJson, redactText, serverValue, type RedactedJson, type RedactedText, type ServerValue } from './brand.js';

export interface PublicAttachment {
  filename: ServerValue;
  path: ServerValue;
  size: number;
  mime: ServerValue;
  is_image: boolean;
  /** The person's name for it, as given (core/names.ts givenName): a name, like `filename`, never redacted. */
  display_name?: ServerValue;
}

export interface PublicFileAttachment extends PublicAttachment {
  kind: 'file';
}

export interface PublicExtractedAttachment {
  kind: 'extraction';
  name: ServerValue;
  path: ServerValue;
  /** The spec's name for an extracted archive (wire.d.ts `ExtractedAttachment`). */
  extracted: true;
  /** How many files the extraction wrote. */
  file_count?: number;
  archive_path?: ServerValue;
}

export type PublicChatAttachment = PublicFileAttachment | PublicExtractedAttachment;

export interface PublicToolCall {
  id: RedactedText;
  function: { name: RedactedText; arguments: RedactedText };
}

export interface PublicToolActivity {
  name: RedactedText;
  preview: RedactedText;
  status: wire.ToolActivityStatus;
  duration_seconds?: number;
}

export interface PublicMessage {
  role: ServerValue;
  content: RedactedText;
  timestamp?: number;
  attachments?: PublicChatAttachment[];
  reasoning?: RedactedText;
  tool_calls?: PublicToolCall[];
  tool_call_id?: RedactedText;
  tool_activity?: PublicToolActivity[];
  tool_activity_omitted?: number;
  usage?: wire.ChatUsage;
  _partial?: boolean;
  _error?: boolean;
  versions?: wire.MessageVersions;
  // Stored values (a hand-edited store may hold anything there): redacted like free text.
  error_type?: RedactedText;
  error_hint?: RedactedText;
  error_action?: RedactedText;
  stopped_by?: RedactedText;
  arrival?: PublicArrival;
  context?: PublicContextReport;
  answered_by?: PublicAnsweredBy;
}

/** Who wrote a reply (issue 38, item 6): a connection's name and a model are typed by a person, so redacted. */
export interface PublicAnsweredBy {
  connection?: RedactedText;
  agent?: RedactedText;
  model?: RedactedText;
}

/** Only the strings of a stored `answered_by` (an imported or hand-edited row may hold anything there). */
export function publicAnsweredBy(by: unknown): PublicAnsweredBy | undefined {
  if (!by || typeof by !== 'object' || Array.isArray(by)) return undefined;
  const b = by as Record<string, unknown>;
  const out: PublicAnsweredBy = {};
  for (const key of ['connection', 'agent', 'model'] as const) if (typeof b[key] === 'string' && b[key]) out[key] = redactText(b[key]);
  return Object.keys(out).length > 0 ? out : undefined;
}

export interface PublicArrival {
  source: ServerValue;
  from?: ServerValue;
  last_at: number;
}

/** A profile name is validated before it is stored; a stored session may carry none, or (older stores) anything. */
export type PublicProfile = ServerValue | RedactedJson;

/** What a session's list row and the full session both start with. */
interface PublicSessionHeader {
  session_id: ServerValue;
  title: RedactedText;
  workspace: ServerValue;
  profile: PublicProfile;
  created_at: ServerValue;
  updated_at: ServerValue;
  pinned: boolean;
  archived: boolean;
  /** The server's own folder id. */
  folder?: ServerValue;
  imported_at?: ServerValue;
}

export interface PublicSessionSummary extends PublicSessionHeader {
  message_count: number;
}

export interface PublicSession extends PublicSessionHeader {
  messages: PublicMessage[];
  attachments: PublicAttachment[];
  active_stream_id?: ServerValue;
  pending_user_message?: RedactedText;
  pending_attachments?: PublicChatAttachment[];
  pending_started_at?: number;
  /** Messages written while the turn runs, stored after its rows (store/queued.ts). */
  queued_messages?: PublicMessage[];
  /** Free text the person chose (a model name, a prompt): redacted like every stored text. */
  model?: RedactedText;
  system_prompt?: RedactedText;
  /** The server's own connection id. */
  connection?: ServerValue;
  keep_out_of_mcp?: boolean;
}

/** What the projections read: the wire shape, whose messages may carry stored fields beyond it. */
export type SessionRecord = Omit<wire.Session, 'messages'> & { messages: readonly wire.Message[] };

const INTERNAL = new Set<string>(INTERNAL_MESSAGE_FIELDS);
const INTERNAL_SESSION = new Set<string>(INTERNAL_SESSION_FIELDS);

export function publicProfile(profile: unknown): PublicProfile {
  return typeof profile === 'string' ? serverValue(profile) : redactedJson(profile);
}

export function publicAttachment(a: wire.Attachment): PublicAttachment {
  return carryUnknown(
    { filename: serverValue(a.filename), path: serverValue(a.path), size: a.size, mime: serverValue(a.mime), is_image: a.is_image, display_name: optional(a.display_name, serverValue) },
    a,
  );
}

export function publicChatAttachment(a: wire.ChatAttachment): PublicChatAttachment {
  if (a.kind === 'extraction') {
    return carryUnknown(
      { kind: 'extraction', name: serverValue(a.name), path: serverValue(a.path), extracted: true, file_count: a.file_count, archive_path: optional(a.archive_path, serverValue) },
      a,
    );
  }
  return { ...publicAttachment(a), kind: 'file' };
}

function publicToolCall(call: wire.ToolCall): PublicToolCall {
  return { id: redactText(call.id), function: { name: redactText(call.function.name), arguments: redactText(call.function.arguments) } };
}

const TOOL_STATUSES: ReadonlySet<string> = new Set<wire.ToolActivityStatus>(['finished', 'failed', 'stopped']);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * Stored already redacted (agent/stream/activity.ts), and redacted again on the way out like every stored text.
 * A store of another version may hold anything here: what is not an entry's shape goes out as its empty value.
 */
function publicToolActivity(list: unknown): PublicToolActivity[] {
  if (!Array.isArray(list)) return [];
  return list.map((item: unknown) => {
    const t = (item && typeof item === 'object' ? item : {}) as Partial<Record<keyof wire.ToolActivity, unknown>>;
    return {
      name: redactText(typeof t.name === 'string' ? t.name : ''),
      preview: redactText(typeof t.preview === 'string' ? t.preview : ''),
      status: typeof t.status === 'string' && TOOL_STATUSES.has(t.status) ? (t.status as wire.ToolActivityStatus) : 'stopped',
      duration_seconds: num(t.duration_seconds),
    };
  });
}

/** Usage as `done`, `metering` and a stored row carry it: numbers only. */
export function publicUsage(u: wire.ChatUsage): wire.ChatUsage {
  return {
    input_tokens: num(u.input_tokens) ?? 0,
    output_tokens: num(u.output_tokens) ?? 0,
    duration_seconds: num(u.duration_seconds) ?? 0,
    ttft_ms: num(u.ttft_ms) ?? null,
    reported: typeof u.reported === 'boolean' ? u.reported : undefined,
  };
}

/** An Inbox arrival's place: a folder's name is the person's own, as a file name is. */
function publicArrival(a: wire.Arrival): PublicArrival {
  return { source: serverValue(a.source), from: optional(a.from, serverValue), last_at: a.last_at };
}

/**
 * One stored row. The internal fields of the specification are left out; a field no projection knows (a store
 * written by another version) goes out with every string in it redacted, as it did before projections.
 */
export function publicMessage(m: wire.Message): PublicMessage {
  const out: PublicMessage = {
    role: serverValue(m.role),
    content: redactText(m.content),
    timestamp: m.timestamp,
    attachments: optional(m.attachments, (list) => list.map(publicChatAttachment)),
    reasoning: optional(m.reasoning, redactText),
    tool_calls: optional(m.tool_calls, (calls) => calls.map(publicToolCall)),
    tool_call_id: optional(m.tool_call_id, redactText),
    tool_activity: optional(m.tool_activity, publicToolActivity),
    tool_activity_omitted: num(m.tool_activity_omitted),
    usage: m.usage && typeof m.usage === 'object' ? publicUsage(m.usage) : undefined,
    // Flags: only `true` goes out (an imported string here was served as it was, past the redactor).
    _partial: m._partial === true ? true : undefined,
    _error: m._error === true ? true : undefined,
    versions: versionSummary(m),
    error_type: optional(m.error_type, redactText),
    error_hint: optional(m.error_hint, redactText),
    error_action: optional(m.error_action, redactText),
    stopped_by: optional(m.stopped_by, redactText),
    arrival: optional(m.arrival, publicArrival),
    context: optional(m.context, publicContextReport),
    answered_by: publicAnsweredBy(m.answered_by),
  };
  return carryUnknown(out, m, INTERNAL);
}

function publicSessionHeader(s: SessionRecord | wire.SessionSummary): PublicSessionHeader {
  return {
    session_id: serverValue(s.session_id),
    title: redactText(s.title),
    workspace: serverValue(s.workspace),
    profile: publicProfile(s.profile),
    created_at: serverValue(s.created_at),
    updated_at: serverValue(s.updated_at),
    pinned: s.pinned === true,
    archived: s.archived === true,
    folder: typeof s.folder === 'string' ? serverValue(s.folder) : undefined,
    imported_at: typeof s.imported_at === 'string' ? serverValue(s.imported_at) : undefined,
  };
}

/** A session's row in the list; from the stored session, or from a summary already made (the events carry those). */
export function publicSessionSummary(s: SessionRecord | wire.SessionSummary): PublicSessionSummary {
  return {
    ...publicSessionHeader(s),
    message_count: 'messages' in s ? s.messages.length : s.message_count,
  };
}

export function publicSession(s: SessionRecord): PublicSession {
  return carryUnknown<PublicSession>({
    ...publicSessionHeader(s),
    messages: s.messages.map(publicMessage),
    attachments: s.attachments.map(publicAttachment),
    active_stream_id: optional(s.active_stream_id, serverValue),
    pending_user_message: optional(s.pending_user_message, redactText),
    pending_attachments: optional(s.pending_attachments, (list) => list.map(publicChatAttachment)),
    pending_started_at: s.pending_started_at,
    queued_messages: Array.isArray(s.queued_messages) && s.queued_messages.length > 0 ? s.queued_messages.map(publicMessage) : undefined,
    model: optional(s.model, redactText),
    system_prompt: optional(s.system_prompt, redactText),
    connection: optional(s.connection, serverValue),
    keep_out_of_mcp: s.keep_out_of_mcp === true ? true : undefined,
  }, s, INTERNAL_SESSION);
}

/** POST /api/session/delete: the session's id (the server's own) and until when Undo (restore) can bring it back. */
export function publicDeletion(sessionId: string, undoUntil: Date) {
  return { ok: true as const, session_id: serverValue(sessionId), undo_until: serverValue(undoUntil.toISOString()) };
}
