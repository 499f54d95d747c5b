// A stored message in one shape. Session files written by older versions hold rows of another shape
// (`{role, text, created_at}`, from POST /api/session/message); they are rewritten here, once, as the store loads
// them, into the shape of a conversation's rows (wire.d.ts `Message`), so no reader past the store handles two.
import type * as wire from '../wire.js';

/** A stored message: the wire's row, plus internal fields a stored session may carry (never sent). */
export interface Message extends wire.Message {
  [internal: string]: unknown;
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
  const out: Message = { ...rest, role: typeof row.role === 'string' ? row.role : 'assistant', content: contentOf(row) };
  const timestamp = timestampOf(row);
  if (timestamp !== undefined) out.timestamp = timestamp;
  return out;
}
