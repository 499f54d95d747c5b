// What a turn sends the agent (agent.md, "Attachments as model input"): the user's text and its attachments
// as Chat Completions content parts, and for plain OpenAI servers the session's history before it. Only `text`
// and `image_url` parts exist here (Hermes' gateway accepts nothing else). Inlined text — files, Office
// Markdown, archive members, transcripts, then the history — shares one budget per turn; what does not fit
// is cut with a visible marker, never silently. Each attachment is read by the content engine (server/content/)
// and its parts put in this dialect by content-parts.ts.
import path from 'node:path';
import type { ChatAttachment } from '../core/wire.js';
import { arrivalNote, arrivalParts, isArrivalRow, unseenArrivals } from './arrivals-input.js';
import { Budget, readAttachment, type InputOptions } from '../content/index.js';
import { contentParts } from './content-parts.js';
import type { AgentConfig, ChatMessage, ContentPart } from './types.js';

export { Budget, MAX_ARCHIVE_LISTED, MAX_ARCHIVE_MEMBER_BYTES, MAX_IMAGE_BYTES, truncationMarker, type InputOptions } from '../content/index.js';

/** A row of the session's `messages` as stored (agent.md, "What is stored"); only these fields are read. */
export interface StoredMessage {
  role: string;
  content?: unknown;
  attachments?: unknown;
  timestamp?: unknown;
  /** An Inbox arrival row (arrivals-input.ts). */
  arrival?: unknown;
  _error?: boolean;
}

/**
 * The new user turn's `content`: the text alone when nothing is attached, else a list of parts (the text
 * first, then each attachment's parts in order). Draws inlined text from `budget`.
 */
export async function buildUserContent(
  text: string,
  attachments: readonly ChatAttachment[],
  budget: Budget,
  opts: InputOptions,
): Promise<string | ContentPart[]> {
  budget.left = Math.max(0, budget.left - text.length);
  if (attachments.length === 0) return text;
  const parts: ContentPart[] = text ? [{ type: 'text', text }] : [];
  // An archive sent with its extraction is read once, as the extraction: listing the archive too would spend the
  // budget on the same list twice.
  const extracted = new Set(attachments.filter((a) => a && 'extracted' in a && a.extracted).map((a) => (a as { name?: string }).name));
  for (const a of attachments) {
    opts.signal?.throwIfAborted();
    if (!a || typeof a.path !== 'string') continue;
    if (!('extracted' in a && a.extracted) && 'filename' in a && extracted.has(a.filename)) continue;
    parts.push(...contentParts((await readAttachment(a, budget, opts)).parts));
  }
  return parts;
}

function storedText(row: StoredMessage): string {
  const content = typeof row.content === 'string' ? row.content : Array.isArray(row.content) ? row.content.map((p) => (p as { text?: string })?.text ?? '').join('\n') : '';
  if (row.role !== 'user' || !Array.isArray(row.attachments) || row.attachments.length === 0) return content;
  // Earlier attachments are named, not re-read: the agent saw them in their turn.
  const named = row.attachments.map((a) => {
    const att = a as { filename?: string; name?: string; path?: string };
    return `[attached earlier: "${att.filename ?? att.name ?? path.basename(att.path ?? '')}" at ${att.path ?? '?'}]`;
  });
  return [content, ...named].filter(Boolean).join('\n');
}

/**
 * Said before a conversation's first row when it is the agent's (an imported conversation that opens with a
 * greeting): chat templates want the person to speak first, and the row is part of what the person sees.
 */
export const AGENT_OPENING_NOTE = '[This conversation was imported; it opens with the assistant message below.]';

/** The stored history as Chat Completions messages, newest kept first within `budget`, oldest dropped. */
export function historyMessages(history: readonly StoredMessage[], budget: Budget): ChatMessage[] {
  const kept: ChatMessage[] = [];
  const notes = new Set<ChatMessage>();
  let cut = false;
  for (let i = history.length - 1; i >= 0; i--) {
    const row = history[i]!;
    // Error banners are Satchel's words, and tool rows need the assistant's tool_calls beside them: not sent.
    if (row._error || (row.role !== 'user' && row.role !== 'assistant' && row.role !== 'system')) continue;
    // An arrival is Satchel's note of files, not a system prompt: it goes with the person's side of the talk.
    const arrival = isArrivalRow(row);
    const content = arrival ? arrivalNote(row) : storedText(row);
    if (!content) continue;
    if (content.length > budget.left) {
      cut = true;
      break;
    }
    budget.left -= content.length;
    const before = kept.at(-1);
    // Chat templates want the roles to alternate: an arrival joins the person's message next to it.
    if (before?.role === 'user' && (arrival || notes.has(before)) && typeof before.content === 'string') {
      before.content = `${content}\n\n${before.content}`;
      continue;
    }
    const message: ChatMessage = { role: arrival ? 'user' : (row.role as ChatMessage['role']), content };
    if (arrival) notes.add(message);
    kept.push(message);
  }
  kept.reverse();
  // Chat templates expect the conversation to open with the person. A reply cut from its question by the budget
  // goes; the conversation's own first row, when it is the agent's, is what the person sees first and is sent,
  // after a short line of the person's side saying so (system rows before it stay first).
  const first = kept.findIndex((m) => m.role !== 'system');
  if (first >= 0 && kept[first]!.role === 'assistant') {
    if (!cut && budget.left >= AGENT_OPENING_NOTE.length) {
      budget.left -= AGENT_OPENING_NOTE.length;
      kept.splice(first, 0, { role: 'user', content: AGENT_OPENING_NOTE });
    } else {
      while (kept[first]?.role === 'assistant') kept.splice(first, 1);
    }
  }
  return kept;
}

/**
 * Everything a turn sends: the conversation's system prompt when it has one, the history trimmed to what the
 * budget leaves, then the new turn; or the system prompt and the new user turn alone when `historyKept`
 * (Hermes' gateway holds exactly this history under the session header: hermes-continuity.ts decides; it never
 * stores a system message, so the prompt goes with every turn).
 */
export async function buildTurnMessages(
  history: readonly StoredMessage[],
  text: string,
  attachments: readonly ChatAttachment[],
  config: AgentConfig,
  opts: InputOptions,
  historyKept = false,
): Promise<ChatMessage[]> {
  const budget = new Budget(config.contextChars);
  // The person wrote it for every turn: sent whole (it is bounded when stored), and what it takes is taken first.
  const system: ChatMessage[] = opts.systemPrompt ? [{ role: 'system', content: opts.systemPrompt }] : [];
  budget.left = Math.max(0, budget.left - (opts.systemPrompt?.length ?? 0));
  const unseen = unseenArrivals(history);
  const content = await buildUserContent(text, attachments, budget, opts);
  const arrived = await arrivalParts(history.filter((r) => unseen.has(r)), budget, opts);
  const user: ChatMessage = { role: 'user', content: arrived.length === 0 ? content : [...(typeof content === 'string' ? (content ? [{ type: 'text' as const, text: content }] : []) : content), ...arrived] };
  if (historyKept) return [...system, user];
  return [...system, ...historyMessages(history.filter((r) => !unseen.has(r)), budget), user];
}
