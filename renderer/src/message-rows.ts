// A stored message row as the view draws it (server/core/wire.d.ts `Message`, one shape: the server normalizes
// older rows as it loads them), with every field a row may lack given its empty value.
import type { Arrival, ChatErrorAction, ExtractedAttachment, Message, MessageRole, MessageVersions, SentAttachment, Session, StoppedBy } from './api.js';
import { replyActivity, type ReplyActivity } from './reply-activity.js';
import { versionLevels } from './version-switcher.js';

export interface MessageRow {
  /** Where the row is in the session's `messages` (what Edit and the versions switcher name). */
  index: number;
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
  /** On a message of the person's with more than one version: which is shown, of how many. */
  versions?: MessageVersions;
  /** A stop's row (shown as a quiet marker, not a failure): who stopped the turn. */
  stoppedBy: StoppedBy | null;
  /** A failure's row: what happened (its content without the `**Error:**` label), what to do, its button. */
  failure: { message: string; hint?: string; action?: ChatErrorAction } | null;
  /** An Inbox arrival row (server/inbox/arrivals.ts): where its files came from. */
  arrival?: Arrival;
  /** A reply's agent and model, as stored with it (issue 38, item 6); absent on rows stored before. */
  answeredBy?: { agent?: string; model?: string };
}

/** A stored `answered_by`, its strings only. */
function answeredByOf(m: Message): MessageRow['answeredBy'] {
  const by = m.answered_by;
  if (!by || typeof by !== 'object') return undefined;
  const agent = typeof by.agent === 'string' && by.agent ? by.agent : undefined;
  const model = typeof by.model === 'string' && by.model ? by.model : undefined;
  return agent || model ? { ...(agent ? { agent } : {}), ...(model ? { model } : {}) } : undefined;
}

/** A stop's row as turns.ts stores it; a row stored before `error_type` by its words (CANCELLED_TEXT there). */
function stoppedBy(m: Message, text: string): StoppedBy | null {
  if (m._error !== true) return null;
  if (m.error_type !== 'cancelled' && (m.error_type !== undefined || !text.startsWith('**Task cancelled:**'))) return null;
  if (m.stopped_by === 'user' || m.stopped_by === 'shutdown') return m.stopped_by;
  return text.includes('Satchel stopped') ? 'shutdown' : 'user';
}

const ACTIONS: readonly unknown[] = ['agent_settings', 'retry'] satisfies ChatErrorAction[];

function failure(m: Message, text: string): MessageRow['failure'] {
  return {
    message: text.replace(/^\*\*(?:Error|Interrupted):\*\*\s*/, ''),
    hint: typeof m.error_hint === 'string' && m.error_hint ? m.error_hint : undefined,
    action: ACTIONS.includes(m.error_action) ? m.error_action : undefined,
  };
}

export function normalizeMessage(m: Message, index = 0): MessageRow {
  const text = typeof m.content === 'string' ? m.content : '';
  const stop = stoppedBy(m, text);
  return {
    index,
    role: typeof m.role === 'string' ? m.role : 'assistant',
    text: typeof m.content === 'string' ? m.content : '',
    time: typeof m.timestamp === 'number' ? m.timestamp : undefined,
    attachments: Array.isArray(m.attachments) ? m.attachments : [],
    reasoning: typeof m.reasoning === 'string' ? m.reasoning : '',
    tools: Array.isArray(m.tool_calls) ? m.tool_calls.map((c) => c?.function?.name).filter((n): n is string => typeof n === 'string') : [],
    activity: replyActivity(m),
    partial: m._partial === true,
    error: m._error === true,
    versions: validVersions(m.versions),
    stoppedBy: stop,
    failure: m._error === true && !stop ? failure(m, text) : null,
    arrival: arrivalOf(m),
    answeredBy: m.role === 'assistant' ? answeredByOf(m) : undefined,
  };
}

/** A row's `arrival` as the view reads it, or undefined for any other row (or a malformed one). */
export function arrivalOf(m: { role?: unknown; arrival?: unknown }): Arrival | undefined {
  const a = m.arrival as Partial<Arrival> | undefined;
  if (m.role !== 'system' || !a || typeof a !== 'object' || (a.source !== 'folder' && a.source !== 'open-with')) return undefined;
  return { source: a.source, ...(typeof a.from === 'string' ? { from: a.from } : {}), last_at: typeof a.last_at === 'number' ? a.last_at : 0 };
}

function validVersions(v: MessageVersions | undefined): MessageVersions | undefined {
  return v && Number.isInteger(v.index) && Number.isInteger(v.count) && v.count > 1 && v.index >= 0 && v.index < v.count ? { ...v, ...versionLevels(v) } : undefined;
}

/**
 * The rows a conversation shows: tool results are the agent's working notes, not part of the thread. `offset`:
 * the stored index of `messages[0]` (a session read tail first: session-pages.ts), so each row's `index` is its own.
 */
export function visibleRows(messages: readonly Message[], offset = 0): MessageRow[] {
  return messages.flatMap((m, i) => (m.role === 'tool' ? [] : [normalizeMessage(m, offset + i)]));
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

/**
 * The rows a new version keeps while its turn runs: those before the message at `index` (the last of the
 * person's by default); all of them when there is none.
 */
export function versionBase(messages: readonly Message[], index?: number): Message[] {
  const at = index ?? lastExchangeStart(messages);
  return at < 0 ? [...messages] : messages.slice(0, at);
}
