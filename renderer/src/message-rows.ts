// A stored message row as the view draws it (server/core/wire.d.ts `Message`, one shape: the server normalizes
// older rows as it loads them), with every field a row may lack given its empty value.
import type { ExtractedAttachment, Message, MessageRole, SentAttachment, Session } from './api.js';
import { replyActivity, type ReplyActivity } from './reply-activity.js';

export interface MessageRow {
  role: MessageRole;
  text: string;
  /** Epoch seconds. */
  time: number | undefined;
  attachments: SentAttachment[];
  reasoning: string;
  tools: string[];
  /** The tools the agent ran and the usage it reported, stored with the reply. */
  activity: ReplyActivity;
  /** What arrived before the turn was stopped. */
  partial: boolean;
  /** Why a turn ended without an answer. */
  error: boolean;
}

export function normalizeMessage(m: Message): MessageRow {
  return {
    role: typeof m.role === 'string' ? m.role : 'assistant',
    text: typeof m.content === 'string' ? m.content : '',
    time: typeof m.timestamp === 'number' ? m.timestamp : undefined,
    attachments: Array.isArray(m.attachments) ? m.attachments : [],
    reasoning: typeof m.reasoning === 'string' ? m.reasoning : '',
    tools: Array.isArray(m.tool_calls) ? m.tool_calls.map((c) => c?.function?.name).filter((n): n is string => typeof n === 'string') : [],
    activity: replyActivity(m),
    partial: m._partial === true,
    error: m._error === true,
  };
}

/** The rows a conversation shows: tool results are the agent's working notes, not part of the thread. */
export function visibleRows(messages: readonly Message[]): MessageRow[] {
  return messages.filter((m) => m.role !== 'tool').map(normalizeMessage);
}

/** The last user turn, for Regenerate and Edit: its index among the visible rows, text and attachments. */
export function lastUserTurn(rows: readonly MessageRow[]): { index: number; text: string; attachments: SentAttachment[] } | null {
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i];
    if (r && r.role === 'user') return { index: i, text: r.text, attachments: r.attachments };
  }
  return null;
}

/** The stream a session's turn is running on, when one is (the session JSON names it while it runs). */
export function activeStream(session: Session | null | undefined): string | null {
  const id = session?.active_stream_id;
  return typeof id === 'string' && id ? id : null;
}

/** An extracted archive's reference (its `kind`), as opposed to a stored upload. */
export function isExtraction(a: SentAttachment): a is ExtractedAttachment {
  return 'kind' in a && a.kind === 'extraction';
}

/**
 * Where a session's last exchange begins: its last user row (tool rows after it included); -1 when it has none.
 * The server's function of the same name (server/store/messages.ts), which this page cannot import; a test holds
 * the two equal.
 */
export function lastExchangeStart(messages: readonly Message[]): number {
  return messages.findLastIndex((m) => m.role === 'user');
}

/** The rows a regenerated turn keeps: all of them when there is no exchange to drop. */
export function withoutLastExchange(messages: readonly Message[]): Message[] {
  const at = lastExchangeStart(messages);
  return at < 0 ? [...messages] : messages.slice(0, at);
}
