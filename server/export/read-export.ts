// An export's JSON read back into a session (POST /api/session/import). The file is a client's: everything in it
// is checked against the store's caps, and nothing in it becomes a value the server sends as its own unless the
// server made it again here. An attachment's path must be `attachments/<name>` for a file or folder the import
// placed in the new session's folder (its name, size and type come from that file, not from the JSON); its
// absolute path is the new folder's. Rows keep the fields a stored row has (wire.d.ts `Message`) and the other
// versions of the conversation (`_versions`, store/versions.ts); nothing internal of another session comes along.
// The JSON itself was parsed off the event loop within bounds (parse-json.ts); each field is then taken only
// with the type a row Satchel writes has, and times only within the years every reader can write.
import path from 'node:path';
import { quotedName } from '../archive/limits.js';
import { namedAttachment } from '../attachments/extracted.js';
import { sessionFolder } from '../attachments/layout.js';
import { ValueError } from '../core/errors.js';
import { guessMime } from '../core/mime.js';
import { givenName } from '../core/names.js';
import type * as wire from '../core/wire.js';
import { EXPORT_ATTACHMENTS_DIR, EXPORT_MARKER, EXPORT_VERSION } from '../projections/export.js';
import { MAX_STORED_TOOLS } from '../agent/stream/activity.js';
import { MAX_REPLY_BYTES } from '../agent/stream/reply.js';
import { MAX_TOOL_CALLS } from '../agent/stream/tool-calls.js';
import { arrivalFrom } from '../inbox/arrivals.js';
import { MAX_CONNECTION_NAME_CHARS } from '../agent/connections.js';
import { normalizeMessage, type Message } from '../store/messages.js';
import { MAX_VERSION_DEPTH } from './parse-json.js';
import {
  MAX_ATTACHMENTS_PER_SESSION,
  MAX_MESSAGE_CHARS,
  MAX_MESSAGES_PER_SESSION,
  MAX_MODEL_CHARS,
  MAX_SESSION_FILE_BYTES,
  MAX_SYSTEM_PROMPT_CHARS,
  MAX_TITLE_CHARS,
  type Session,
} from '../store/sessions.js';
import { MAX_VERSIONS_PER_MESSAGE, VERSIONS_FIELD } from '../store/versions.js';
import { passesCap } from '../store/caps.js';
import { MAX_DRAFT_ATTACHMENTS, MAX_DRAFT_TEXT_CHARS, type StoredDraftItem } from '../drafts/store.js';

export const NOT_AN_EXPORT = 'This file is not a Satchel export. Choose a .json or .zip file made by Export in Satchel.';
export const newerExport = (version: number) => `This export was made by a newer Satchel (format ${version}); this Satchel reads format ${EXPORT_VERSION}.`;
export const missingAttachment = (ref: string) => `The export refers to an attachment it does not hold: ${ref}`;
export const badExport = (what: string) => `This export cannot be imported: ${what}.`;
/** An export's JSON is a session file with relative paths: the store loads none larger, so none is imported. */
export const MAX_EXPORT_JSON_BYTES = MAX_SESSION_FILE_BYTES;
export const EXPORT_TOO_LARGE = `This export's conversation is larger than Satchel keeps (${MAX_EXPORT_JSON_BYTES / (1024 * 1024)} MiB).`;
/** The person's own messages: the store's cap on what one may write (store/sessions.ts). */
const MAX_USER_ROW_CHARS = MAX_MESSAGE_CHARS;
/** Every other row: an agent's reply is bounded in bytes (agent/stream/reply.ts), so no more characters than that. */
const MAX_OTHER_ROW_CHARS = MAX_REPLY_BYTES;
/** Tool calls one row may carry: as many as one reply of the agent's may make (agent/stream/tool-calls.ts). */
const MAX_ROW_TOOL_CALLS = MAX_TOOL_CALLS;
/** Tools one row's activity keeps: as many as a reply stores (agent/stream/activity.ts). */
const MAX_ROW_TOOL_ACTIVITY = MAX_STORED_TOOLS;
/**
 * Rows of every version together: five versions of a conversation at the store's 10,000 messages. Each version is
 * a whole tail of the conversation, so versions multiply rows, and every row is checked, copied, frozen and indexed
 * on the server's thread after the parse (490,000 rows held it 3.1 s; 90,000 held it 2-4 s on a loaded 2-core
 * machine, 10,000 0.6 s): the bound keeps that to about a second there.
 */
export const MAX_IMPORTED_ROWS = 50_000;
/**
 * The latest time a row may carry, in epoch seconds: 9999-12-31 23:59:59 UTC, the last second every reader
 * (the page, Markdown, ISO 8601) writes with a four-digit year. A time before 1970 or after this is dropped on
 * import (the row is kept without one, as a row whose time is not a number), never stored: one of 1e300 broke
 * every Markdown export of the profile.
 */
export const MAX_TIMESTAMP_SECONDS = 253_402_300_799;

/** An epoch-seconds time Satchel can write back, or undefined. */
export function storableTimestamp(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_TIMESTAMP_SECONDS ? value : undefined;
}

/**
 * The string fields of a row kept as the file has them (stored, then redacted on the way out like any text).
 * Not among them: `error_action` (a failure's button belongs to the machine where the turn failed: an imported
 * one drew a working "Agent settings" button under any row the file made), and `_partial`/`_error`, which are
 * flags (kept only as `true`).
 */
const ROW_TEXT_FIELDS = ['reasoning', 'tool_call_id', 'error_type', 'error_hint', 'stopped_by'] as const;
/** The flags of a row, kept only when `true`: a string here was served as it was, past the redactor. */
const ROW_FLAGS = ['_partial', '_error'] as const;

/** A file or folder the import placed directly in the new session's folder. */
export interface HeldEntry {
  kind: 'file' | 'dir';
  size: number;
}

export interface ImportTarget {
  sessionId: string;
  stateDir: string;
  workspace: string;
  profile: string;
  /** By name: what is in the new session's folder. */
  held: ReadonlyMap<string, HeldEntry>;
  now: Date;
  /** Who the conversation was with, as this machine knows it (ImportContext); absent: none of it is restored. */
  context?: ImportContext;
}

/**
 * What an import matches an export's names against (issue 38, item 5): the titles the profile's conversations have
 * (an imported one of the same title says "(imported)"), the agent connections by name, and the names of
 * connections the export named that this machine does not have (filled in as conversations are read).
 */
export interface ImportContext {
  titles: ReadonlySet<string>;
  connections: readonly { id: string; name: string }[];
  missingConnections: Set<string>;
}

/** What an imported conversation's title gets when the profile already has one of that title. */
export const IMPORTED_MARK = ' (imported)';

/**
 * An export's parsed JSON (parse-json.ts: undefined when it was not JSON) as an export's document, or ValueError
 * with the sentence a person reads.
 */
export function exportDocument(doc: unknown): Record<string, unknown> {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new ValueError(NOT_AN_EXPORT);
  const version = (doc as Record<string, unknown>)[EXPORT_MARKER];
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) throw new ValueError(NOT_AN_EXPORT);
  if (version > EXPORT_VERSION) throw new ValueError(newerExport(version));
  return doc as Record<string, unknown>;
}

/** The refusal of a reference, quoting it as the file spells it (shortened, control characters shown as `?`). */
function missing(ref: unknown): ValueError {
  return new ValueError(missingAttachment(quotedName(String(ref))), true);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `attachments/<name>` → the held entry's name, or undefined when the reference names nothing the import placed. */
function heldName(ref: unknown, kind: HeldEntry['kind'], target: ImportTarget): string | undefined {
  if (typeof ref !== 'string') return undefined;
  const prefix = `${EXPORT_ATTACHMENTS_DIR}/`;
  if (!ref.startsWith(prefix)) return undefined;
  const name = ref.slice(prefix.length);
  return name !== '' && !name.includes('/') && target.held.get(name)?.kind === kind ? name : undefined;
}

/** Longer than any name an upload keeps (core/names.ts MAX_NAME_CHARS, in UTF-16 units at most twice that). */
const MAX_GIVEN_NAME_INPUT = 1024;

function uploadsOf(list: unknown, target: ImportTarget): wire.Attachment[] {
  if (list === undefined) return [];
  if (!Array.isArray(list) || passesCap('attachments', 0, list.length)) throw new ValueError(badExport('its attachment list is not one Satchel keeps'));
  const folder = sessionFolder(target.stateDir, target.sessionId);
  const out = new Map<string, wire.Attachment>();
  for (const item of list) {
    const ref = isObject(item) ? item.path : undefined;
    const name = heldName(ref, 'file', target);
    if (name === undefined) throw missing(ref);
    const mime = guessMime(name);
    const upload: wire.Attachment = { filename: name, path: path.join(folder, name), size: target.held.get(name)!.size, mime, is_image: mime.startsWith('image/') };
    // The person's name for it, held to the rule an upload's is (a file is free to say anything here).
    const given = isObject(item) && typeof item.display_name === 'string' && item.display_name.length <= MAX_GIVEN_NAME_INPUT ? givenName(item.display_name) : null;
    if (given !== null && given !== name) upload.display_name = given;
    out.set(name, upload);
  }
  return [...out.values()];
}

function rowAttachments(list: unknown, target: ImportTarget, uploads: ReadonlyMap<string, wire.Attachment>): wire.ChatAttachment[] {
  if (!Array.isArray(list) || passesCap('messageAttachments', 0, list.length)) throw new ValueError(badExport('a message carries an attachment list Satchel does not keep'));
  const folder = sessionFolder(target.stateDir, target.sessionId);
  return list.map((item: unknown) => {
    const given = isObject(item) ? item : {};
    const isExtraction = given.kind === 'extraction' || given.extracted === true;
    const name = heldName(given.path, isExtraction ? 'dir' : 'file', target);
    if (name === undefined) throw missing(given.path);
    const archive = heldName(given.archive_path, 'file', target);
    const remapped = { ...given, path: path.join(folder, name), archive_path: archive === undefined ? undefined : path.join(folder, archive) };
    // The same judge as a message a client sends names its attachments by (attachments/extracted.ts).
    const found = namedAttachment(remapped, { session_id: target.sessionId }, uploads, target.stateDir);
    if (!found) throw missing(given.path);
    return found;
  });
}

function isToolCall(v: unknown): v is wire.ToolCall {
  return isObject(v) && typeof v.id === 'string' && isObject(v.function) && typeof v.function.name === 'string' && typeof v.function.arguments === 'string';
}

/** A row's tool activity as a reply stores it (wire.d.ts `ToolActivity`), or undefined. */
function toolActivityOf(list: unknown): wire.ToolActivity[] | undefined {
  if (!Array.isArray(list)) return undefined;
  if (list.length > MAX_ROW_TOOL_ACTIVITY) throw new ValueError(badExport(`a message lists more than ${MAX_ROW_TOOL_ACTIVITY} tools`));
  return list.filter(isObject).map((t) => {
    const out: wire.ToolActivity = {
      name: typeof t.name === 'string' ? t.name : '',
      preview: typeof t.preview === 'string' ? t.preview : '',
      status: t.status === 'finished' || t.status === 'failed' ? t.status : 'stopped',
    };
    if (typeof t.duration_seconds === 'number' && Number.isFinite(t.duration_seconds)) out.duration_seconds = t.duration_seconds;
    return out;
  });
}

/** A row's usage as a reply stores it: numbers only. */
function usageOf(raw: unknown): wire.ChatUsage | undefined {
  if (!isObject(raw)) return undefined;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const usage: wire.ChatUsage = { input_tokens: n(raw.input_tokens) ?? 0, output_tokens: n(raw.output_tokens) ?? 0, duration_seconds: n(raw.duration_seconds) ?? 0, ttft_ms: n(raw.ttft_ms) ?? null };
  if (typeof raw.reported === 'boolean') usage.reported = raw.reported;
  return usage;
}

/** Longer than any connection name (80) or model name (200) Satchel keeps. */
const MAX_ANSWERED_BY_CHARS = MAX_MODEL_CHARS;

/** Who wrote a reply, as a turn stores it (agent/turn-rows.ts answeredBy): short strings only. */
function answeredByOf(raw: unknown): wire.AnsweredBy | undefined {
  if (!isObject(raw)) return undefined;
  const out: wire.AnsweredBy = {};
  for (const key of ['connection', 'agent', 'model'] as const) {
    const value = raw[key];
    if (typeof value === 'string' && value.trim()) out[key] = value.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, MAX_ANSWERED_BY_CHARS);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

class RowReader {
  /** Rows read so far, in every version. */
  private count = 0;
  private readonly uploads: ReadonlyMap<string, wire.Attachment>;

  constructor(
    private readonly target: ImportTarget,
    uploads: readonly wire.Attachment[],
  ) {
    this.uploads = new Map(uploads.map((a) => [a.path, a]));
  }

  rows(list: unknown, depth: number): Message[] {
    if (!Array.isArray(list)) throw new ValueError(badExport('its messages are not a list'));
    if (passesCap('messages', 0, list.length)) throw new ValueError(badExport(`it has more than ${MAX_MESSAGES_PER_SESSION} messages`));
    return list.map((row: unknown, i) => this.row(row, i, depth));
  }

  private row(raw: unknown, index: number, depth: number): Message {
    if (!isObject(raw)) throw new ValueError(badExport(`message ${index + 1} is not a message`));
    if (++this.count > MAX_IMPORTED_ROWS) throw new ValueError(badExport(`it has more than ${MAX_IMPORTED_ROWS} messages in all its versions`));
    // Each field as a row Satchel writes holds it: a value of another type (an object where text belongs, nested
    // as deep as the file likes) is dropped, never stored for the store's recursive copy to walk.
    const picked: Record<string, unknown> = { role: raw.role, content: typeof raw.content === 'string' ? raw.content : '' };
    const timestamp = storableTimestamp(raw.timestamp);
    if (timestamp !== undefined) picked.timestamp = timestamp;
    for (const field of ROW_TEXT_FIELDS) if (typeof raw[field] === 'string') picked[field] = raw[field];
    for (const flag of ROW_FLAGS) if (raw[flag] === true) picked[flag] = true;
    const activity = toolActivityOf(raw.tool_activity);
    if (activity) picked.tool_activity = activity;
    if (typeof raw.tool_activity_omitted === 'number' && Number.isSafeInteger(raw.tool_activity_omitted) && raw.tool_activity_omitted > 0) picked.tool_activity_omitted = raw.tool_activity_omitted;
    const usage = usageOf(raw.usage);
    if (usage) picked.usage = usage;
    const by = answeredByOf(raw.answered_by);
    if (by) picked.answered_by = by;
    const row = normalizeMessage(picked);
    const cap = row.role === 'user' ? MAX_USER_ROW_CHARS : MAX_OTHER_ROW_CHARS;
    if (row.content.length > cap) throw new ValueError(badExport(`message ${index + 1} is longer than Satchel keeps (${cap} characters)`));
    if (Array.isArray(raw.tool_calls)) {
      if (raw.tool_calls.length > MAX_ROW_TOOL_CALLS) throw new ValueError(badExport(`message ${index + 1} has more than ${MAX_ROW_TOOL_CALLS} tool calls`));
      row.tool_calls = raw.tool_calls.filter(isToolCall).map((c) => ({ id: c.id, function: { name: c.function.name, arguments: c.function.arguments } }));
    }
    if (raw.attachments !== undefined) row.attachments = rowAttachments(raw.attachments, this.target, this.uploads);
    if (raw[VERSIONS_FIELD] !== undefined) row[VERSIONS_FIELD] = this.fork(raw[VERSIONS_FIELD], depth);
    // An Inbox arrival row stays one (its files are its attachments, checked above), on a system row only.
    const arrival = row.role === 'system' ? arrivalFrom(raw.arrival) : undefined;
    if (arrival && storableTimestamp(arrival.last_at) !== undefined) row.arrival = arrival;
    return row;
  }

  private fork(raw: unknown, depth: number): { before: Message[][]; after: Message[][] } {
    if (depth >= MAX_VERSION_DEPTH) throw new ValueError(badExport('its versions nest deeper than Satchel keeps'));
    const f = isObject(raw) ? raw : {};
    const tails = (list: unknown) => (Array.isArray(list) ? list.map((tail) => this.rows(tail, depth + 1)).filter((t) => t.length > 0) : []);
    const fork = { before: tails(f.before), after: tails(f.after) };
    if (passesCap('versions', 0, fork.before.length + fork.after.length + 1)) throw new ValueError(badExport(`a message has more than ${MAX_VERSIONS_PER_MESSAGE} versions`));
    return fork;
  }
}

/** An ISO 8601 time of the file as the server writes one, or `fallback` (not a time, or outside 1970-9999). */
function isoTime(value: unknown, fallback: Date): string {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  return new Date(storableTimestamp(ms / 1000) !== undefined ? ms : fallback.getTime()).toISOString();
}

/** The title as the store keeps one (store/sessions.ts `rename`), `Untitled` when nothing of it is left. */
function titleOf(value: unknown): string {
  const clean = typeof value === 'string' ? value.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, MAX_TITLE_CHARS) : '';
  return clean || 'Untitled';
}

/** The title, marked "(imported)" (cut to fit the store's cap) when the profile has a conversation of that title. */
function markedTitle(title: string, context: ImportContext | undefined): string {
  if (!context?.titles.has(title)) return title;
  return title.slice(0, MAX_TITLE_CHARS - IMPORTED_MARK.length).trimEnd() + IMPORTED_MARK;
}

/** An optional text of the document (its model, its system prompt): a string within `max`, else refused; blank is none. */
function optionalText(doc: Record<string, unknown>, field: string, max: number, what: string): string | undefined {
  const value = doc[field];
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  if (value.length > max) throw new ValueError(badExport(`its ${what} is longer than Satchel keeps (${max} characters)`));
  return value;
}

/**
 * The connection the export names, as this machine's connection id: the one of the same name, else one whose name
 * differs only in case; none (the default applies) when the export names none or this machine has no such
 * connection, which is then noted in `missingConnections`.
 */
function connectionOf(doc: Record<string, unknown>, context: ImportContext | undefined): string | undefined {
  const name = doc.connection_name;
  if (!context || typeof name !== 'string' || name.trim() === '') return undefined;
  const found = context.connections.find((c) => c.name === name) ?? context.connections.find((c) => c.name.toLowerCase() === name.toLowerCase());
  if (!found) context.missingConnections.add(name.slice(0, MAX_CONNECTION_NAME_CHARS));
  return found?.id;
}

/** The session an export's document makes in `target` (a new id, its folder, the profile's default workspace). */
export function importedSession(doc: Record<string, unknown>, target: ImportTarget): Session {
  const attachments = uploadsOf(doc.attachments, target);
  const messages = new RowReader(target, attachments).rows(doc.messages ?? [], 0);
  const model = optionalText(doc, 'model', MAX_MODEL_CHARS, 'model name');
  const systemPrompt = optionalText(doc, 'system_prompt', MAX_SYSTEM_PROMPT_CHARS, 'system prompt');
  const connection = connectionOf(doc, target.context);
  return {
    session_id: target.sessionId,
    title: markedTitle(titleOf(doc.title), target.context),
    workspace: target.workspace,
    profile: target.profile,
    created_at: isoTime(doc.created_at, target.now),
    updated_at: isoTime(doc.updated_at, target.now),
    ...(model !== undefined ? { model } : {}),
    ...(systemPrompt !== undefined ? { system_prompt: systemPrompt } : {}),
    ...(connection !== undefined ? { connection } : {}),
    imported_at: target.now.toISOString(),
    messages,
    attachments,
  };
}

/** The folder name an export's document names (looked up or made by the import: store/folders.ts foldersNamed). */
export function importedFolderName(doc: Record<string, unknown>): string | undefined {
  return typeof doc.folder === 'string' && doc.folder.trim() !== '' ? doc.folder : undefined;
}

/**
 * The composer's draft an export carries (projections/export.ts `draft`), for the imported `session`: its text
 * under the draft's cap, and chips only for uploads the import stored (another reference is dropped, as a stored
 * draft's chip whose upload is gone is). None when it holds nothing. Restored so that an upload only the draft
 * named stays named: the sweep of unsent uploads (drafts/sweep.ts) keeps what a draft holds.
 */
export function importedDraft(doc: Record<string, unknown>, session: Session): { text: string; attachments: StoredDraftItem[] } | undefined {
  const raw = doc.draft;
  if (raw === undefined) return undefined;
  if (!isObject(raw)) throw new ValueError(badExport('its draft is not one Satchel keeps'));
  const text = typeof raw.text === 'string' ? raw.text : '';
  if (text.length > MAX_DRAFT_TEXT_CHARS) throw new ValueError(badExport(`its draft is longer than Satchel keeps (${MAX_DRAFT_TEXT_CHARS} characters)`));
  const list = Array.isArray(raw.attachments) ? raw.attachments : [];
  if (list.length > MAX_DRAFT_ATTACHMENTS) throw new ValueError(badExport(`its draft has more than ${MAX_DRAFT_ATTACHMENTS} attachments`));
  const stored = new Map(session.attachments.map((a) => [`${EXPORT_ATTACHMENTS_DIR}/${a.filename}`, a.path]));
  const attachments: StoredDraftItem[] = [];
  for (const item of list) {
    const found = stored.get(String(isObject(item) ? item.path : item));
    if (found !== undefined && !attachments.some((a) => a.path === found)) attachments.push({ path: found });
  }
  return text || attachments.length > 0 ? { text, attachments } : undefined;
}
