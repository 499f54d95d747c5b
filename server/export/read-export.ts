// An export's JSON read back into a session (POST /api/session/import). The file is a client's: everything in it
// is checked against the store's caps, and nothing in it becomes a value the server sends as its own unless the
// server made it again here. An attachment's path must be `attachments/<name>` for a file or folder the import
// placed in the new session's folder (its name, size and type come from that file, not from the JSON); its
// absolute path is the new folder's. Rows keep the fields a stored row has (wire.d.ts `Message`) and the other
// versions of the conversation (`_versions`, store/versions.ts); nothing internal of another session comes along.
import path from 'node:path';
import { quotedName } from '../archive/limits.js';
import { namedAttachment } from '../attachments/extracted.js';
import { sessionFolder } from '../attachments/layout.js';
import { ValueError } from '../core/errors.js';
import { guessMime } from '../core/mime.js';
import type * as wire from '../core/wire.js';
import { EXPORT_ATTACHMENTS_DIR, EXPORT_MARKER, EXPORT_VERSION } from '../projections/export.js';
import { MAX_REPLY_BYTES } from '../agent/stream/reply.js';
import { arrivalFrom } from '../inbox/arrivals.js';
import { normalizeMessage, type Message } from '../store/messages.js';
import { MAX_MESSAGE_CHARS, MAX_MESSAGES_PER_SESSION, MAX_SESSION_FILE_BYTES, MAX_TITLE_CHARS, type Session } from '../store/sessions.js';
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
/** Attachments one row may carry: as many as a message may name (handlers/sessions.ts MAX_MESSAGE_ATTACHMENTS). */
const MAX_ROW_ATTACHMENTS = 100;
/**
 * Versions nested in versions: each level is a branch of a branch further down one conversation, so no real
 * conversation nests deeper than it has messages of the person's; the bound keeps the reader's recursion short.
 */
const MAX_VERSION_DEPTH = 500;

/** The fields a row keeps (wire.d.ts `Message`); `versions` is only ever sent, `_versions` handled apart. */
const ROW_FIELDS = [
  'role', 'content', 'timestamp', 'reasoning', 'tool_call_id', 'tool_activity', 'tool_activity_omitted', 'usage',
  '_partial', '_error', 'error_type', 'error_hint', 'error_action', 'stopped_by',
] as const;

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
}

/** The export's JSON text: its document, or ValueError with the sentence a person reads. */
export function parseExportText(text: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ValueError(NOT_AN_EXPORT);
  }
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
    out.set(name, { filename: name, path: path.join(folder, name), size: target.held.get(name)!.size, mime, is_image: mime.startsWith('image/') });
  }
  return [...out.values()];
}

function rowAttachments(list: unknown, target: ImportTarget, uploads: ReadonlyMap<string, wire.Attachment>): wire.ChatAttachment[] {
  if (!Array.isArray(list) || list.length > MAX_ROW_ATTACHMENTS) throw new ValueError(badExport('a message carries an attachment list Satchel does not keep'));
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

class RowReader {
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
    const picked: Record<string, unknown> = {};
    for (const field of ROW_FIELDS) if (raw[field] !== undefined) picked[field] = raw[field];
    if (typeof picked.content !== 'string') picked.content = '';
    if (typeof picked.timestamp !== 'number' || !Number.isFinite(picked.timestamp)) delete picked.timestamp;
    const row = normalizeMessage(picked);
    const cap = row.role === 'user' ? MAX_USER_ROW_CHARS : MAX_OTHER_ROW_CHARS;
    if (row.content.length > cap) throw new ValueError(badExport(`message ${index + 1} is longer than Satchel keeps (${cap} characters)`));
    if (Array.isArray(raw.tool_calls)) row.tool_calls = raw.tool_calls.filter(isToolCall).map((c) => ({ id: c.id, function: { name: c.function.name, arguments: c.function.arguments } }));
    if (raw.attachments !== undefined) row.attachments = rowAttachments(raw.attachments, this.target, this.uploads);
    if (raw[VERSIONS_FIELD] !== undefined) row[VERSIONS_FIELD] = this.fork(raw[VERSIONS_FIELD], depth);
    // An Inbox arrival row stays one (its files are its attachments, checked above), on a system row only.
    const arrival = row.role === 'system' ? arrivalFrom(raw.arrival) : undefined;
    if (arrival) row.arrival = arrival;
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

/** An ISO 8601 time of the file as the server writes one, or `fallback`. */
function isoTime(value: unknown, fallback: Date): string {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  return new Date(Number.isFinite(ms) ? ms : fallback.getTime()).toISOString();
}

/** The title as the store keeps one (store/sessions.ts `rename`), `Untitled` when nothing of it is left. */
function titleOf(value: unknown): string {
  const clean = typeof value === 'string' ? value.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, MAX_TITLE_CHARS) : '';
  return clean || 'Untitled';
}

/** The session an export's document makes in `target` (a new id, its folder, the profile's default workspace). */
export function importedSession(doc: Record<string, unknown>, target: ImportTarget): Session {
  const attachments = uploadsOf(doc.attachments, target);
  const messages = new RowReader(target, attachments).rows(doc.messages ?? [], 0);
  return {
    session_id: target.sessionId,
    title: titleOf(doc.title),
    workspace: target.workspace,
    profile: target.profile,
    created_at: isoTime(doc.created_at, target.now),
    updated_at: isoTime(doc.updated_at, target.now),
    messages,
    attachments,
  };
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
