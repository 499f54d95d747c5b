// The stored history as Chat Completions messages for one turn (issue 36): newest first within the budget, each
// earlier user row's documents inlined whole in that row, after its text, as in its own turn, while they fit;
// a document that does not fit is named in its row (its passages go with the new message: context/plan.ts), one
// that cannot be read is named with why. Never a path.
import type { Budget } from '../content/index.js';
import { isArrivalRow } from '../context/documents.js';
import { namedOnly, unreadableReason } from '../context/plan.js';
import type { ConversationDoc, DocText, StoredMessage } from '../context/types.js';
import { contentParts } from './content-parts.js';
import type { ChatMessage, ContentPart } from './types.js';

/**
 * Said before a conversation's first row when it is the agent's (an imported conversation that opens with a
 * greeting): chat templates want the person to speak first, and the row is part of what the person sees.
 */
export const AGENT_OPENING_NOTE = '[This conversation was imported; it opens with the assistant message below.]';

/** An earlier document with its whole text, placed in the row that carried it. */
export interface EarlierDoc {
  doc: ConversationDoc;
  text: DocText;
}

export interface HistoryPlan {
  messages: ChatMessage[];
  /** Keys of the documents inlined whole. */
  whole: Set<string>;
  /** Keys of the documents that cannot be read and were named so in their row. */
  named: Set<string>;
}

/** A row's own words: its text, without anything it carried. */
export function rowText(row: StoredMessage): string {
  if (typeof row.content === 'string') return row.content;
  if (Array.isArray(row.content)) return row.content.map((p) => (p as { text?: string })?.text ?? '').join('\n');
  return '';
}

function when(row: StoredMessage): string {
  return typeof row.timestamp === 'number' ? ` (${new Date(row.timestamp * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC)` : '';
}

/** An arrival row the agent saw in an earlier turn: its note and when (its files are its documents). */
function arrivalText(row: StoredMessage): string {
  return `${typeof row.content === 'string' ? row.content : ''}${when(row)}`;
}

/** Characters a document's text takes inlined. */
export function inlinedChars(text: DocText): number {
  return text.chars;
}

const isImage = (t: DocText) => t.kind === 'image';

const asParts = (c: string | ContentPart[]): ContentPart[] => (typeof c === 'string' ? (c ? [{ type: 'text', text: c }] : []) : c);

/** Two messages of the person's side as one (chat templates want the roles to alternate). */
function joined(a: string | ContentPart[], b: string | ContentPart[]): string | ContentPart[] {
  if (typeof a === 'string' && typeof b === 'string') return `${a}\n\n${b}`;
  return [...asParts(a), ...asParts(b)];
}

/**
 * `history` newest kept first within `budget`, oldest dropped; `docs` by the index of the row that carried them.
 * `images` earlier images may go as images (newest first); the rest by their text, as passages.
 */
export function historyMessages(history: readonly StoredMessage[], budget: Budget, docs: ReadonlyMap<number, readonly EarlierDoc[]> = new Map(), images = 0): HistoryPlan {
  const kept: ChatMessage[] = [];
  const notes = new Set<ChatMessage>();
  const whole = new Set<string>();
  const named = new Set<string>();
  let cut = false;
  for (let i = history.length - 1; i >= 0; i--) {
    const row = history[i]!;
    // Error banners are Satchel's words, and tool rows need the assistant's tool_calls beside them: not sent.
    if (row._error || (row.role !== 'user' && row.role !== 'assistant' && row.role !== 'system')) continue;
    // An arrival is Satchel's note of files, not a system prompt: it goes with the person's side of the talk.
    const arrival = isArrivalRow(row);
    const text = arrival ? arrivalText(row) : rowText(row);
    const carried = docs.get(i) ?? [];
    if (!text && carried.length === 0) continue;
    if (text.length > budget.left) {
      cut = true;
      break;
    }
    budget.left -= text.length;
    const parts: ContentPart[] = text ? [{ type: 'text', text }] : [];
    for (const { doc, text: got } of carried) {
      const reason = unreadableReason(got);
      const line = (why: string) => {
        const said = namedOnly(doc.name, why);
        if (said.length > budget.left) return false;
        budget.left -= said.length;
        parts.push({ type: 'text', text: said });
        return true;
      };
      if (reason !== undefined) {
        if (line(`cannot be read: ${reason}`)) named.add(doc.key);
      } else if (inlinedChars(got) <= budget.left && (!isImage(got) || images > 0)) {
        if (isImage(got)) images--;
        budget.left -= inlinedChars(got);
        parts.push(...contentParts(got.parts));
        whole.add(doc.key);
      } else {
        line('not repeated whole in this message; the passages of it that answer the new message, if any, come with that message');
      }
    }
    const content: string | ContentPart[] = parts.length === 1 && parts[0]!.type === 'text' ? parts[0]!.text : parts;
    const before = kept.at(-1);
    // Chat templates want the roles to alternate: an arrival joins the person's message next to it.
    if (before?.role === 'user' && (arrival || notes.has(before))) {
      before.content = joined(content, before.content);
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
  return { messages: kept, whole, named };
}
