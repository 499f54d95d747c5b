// A stored message in one shape. Session files written by older versions hold rows of another shape
// (`{role, text, created_at}`, from POST /api/session/message) and attachments without a `kind`; they are
// rewritten here, once, as the store loads them, into the shape of a conversation's rows (wire.d.ts `Message`),
// so no reader past the store handles two.
import type * as wire from '../core/wire.js';

/** A stored message: the wire's row, plus internal fields a stored session may carry (never sent). */
export interface Message extends wire.Message {
  [internal: string]: unknown;
}

/** Every role a row may have (wire.d.ts `MessageRole`), to read a stored one by. */
const ROLES = { user: true, assistant: true, tool: true, system: true } satisfies Record<wire.MessageRole, true>;

/**
 * A stored row's role. No version of Satchel wrote any other; a row of a foreign store with none, or with one
 * of its own, is shown as the agent's (as the page always showed a row without a role).
 */
function roleOf(role: unknown): wire.MessageRole {
  return isRole(role) ? role : 'assistant';
}

function isRole(role: unknown): role is wire.MessageRole {
  return typeof role === 'string' && Object.hasOwn(ROLES, role);
}

/** The text of a row of any shape an older store wrote; '' when it has none. */
function contentOf(row: Record<string, unknown>): string {
  const { content, text } = row;
  if (typeof content === 'string') return content;
  // A multimodal row of the original project's store: its text parts are what it said.
  if (Array.isArray(content)) return content.map((p) => (typeof (p as { text?: unknown })?.text === 'string' ? (p as { text: string }).text : '')).join('\n');
  return typeof text === 'string' ? text : '';
}

/** Epoch seconds of a row of any shape; undefined when it carries no readable time. */
function timestampOf(row: Record<string, unknown>): number | undefined {
  const { timestamp, created_at } = row;
  if (typeof timestamp === 'number' && Number.isFinite(timestamp)) return timestamp;
  const ms = typeof created_at === 'string' ? Date.parse(created_at) : NaN;
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

/**
 * `raw` (a row as a session file holds it) in the one shape. Fields of the other shape are dropped once their
 * value is moved; every other field (internal ones included) is kept as it is.
 */
export function normalizeMessage(raw: unknown): Message {
  const row = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const { text: _text, created_at: _createdAt, content: _content, timestamp: _timestamp, ...rest } = row;
  const out: Message = { ...rest, role: roleOf(row.role), content: contentOf(row) };
  const timestamp = timestampOf(row);
  if (timestamp !== undefined) out.timestamp = timestamp;
  if (row.attachments !== undefined) out.attachments = normalizeAttachments(row.attachments);
  return out;
}

/**
 * A message's attachments, each with its `kind`. An extraction stored before kinds counted its files in `files`
 * (now `file_count`), and was paired with its archive by position alone (right after it, under its name): that
 * pairing is read once here and kept as `archive_path`.
 */
export function normalizeAttachments(raw: unknown): wire.ChatAttachment[] {
  if (!Array.isArray(raw)) return [];
  const out: wire.ChatAttachment[] = [];
  for (const item of raw as unknown[]) {
    if (!item || typeof item !== 'object' || Array.isArray(item)) continue;
    const a = item as Record<string, unknown>;
    if (a.kind !== 'extraction' && a.extracted !== true) {
      out.push({ ...(a as unknown as wire.Attachment), kind: 'file' });
      continue;
    }
    const { files, ...rest } = a;
    const x = { ...rest, kind: 'extraction', extracted: true } as wire.ExtractedAttachment;
    if (x.file_count === undefined && typeof files === 'number') x.file_count = files;
    const before = out[out.length - 1];
    if (x.archive_path === undefined && a.kind === undefined && before?.kind === 'file' && before.filename === x.name) x.archive_path = before.path;
    out.push(x);
  }
  return out;
}

/**
 * Where a session's last exchange begins: its last user row (the rows after it, tool rows included, are its
 * answer); -1 when it has none. Regenerate drops the rows from here on. The renderer cannot import server code
 * and keeps the same function under the same name (renderer/src/message-rows.ts); a test holds them equal.
 */
export function lastExchangeStart(messages: readonly wire.Message[]): number {
  return messages.findLastIndex((m) => m.role === 'user');
}
