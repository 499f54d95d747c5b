// The Inbox's arrival rows (server/inbox/arrivals.ts) as the agent gets them. A row is Satchel's note, not the
// person's words, and not a system prompt (Hermes' gateway takes a body's `system` messages as the prompt):
// - the files that arrived since the person last sent a message are read into the new turn, as the files of a
//   drop are, after the person's text, under "Files that arrived since the last message…", so "what came in today?" is
//   answered from their contents;
// - an arrival the agent was given in an earlier turn is in the history, as an earlier attachment is (history.ts).
// A file only named is named by its Satchel URI, never by its path on this machine (InputOptions.agentUri).
import type { ChatAttachment } from '../core/wire.js';
import { Budget, readAttachment, type InputOptions } from '../content/index.js';
import { contentParts } from './content-parts.js';
import type { ContentPart } from './types.js';

/** At most this many arrived files are read into one turn; the rest are named (a burst of 1,000 stays one request). */
export const MAX_ARRIVED_FILES_READ = 20;

/** Said wherever the rows are: the Inbox, or the conversation "Open with" sent files to (openWithTo: current). */
export const ARRIVALS_HEADING = 'Files that arrived since the last message (from watched folders or opened with Satchel):';

/** A stored row, as far as arrivals are concerned. */
export interface ArrivalLike {
  role: string;
  content?: unknown;
  timestamp?: unknown;
  attachments?: unknown;
  arrival?: unknown;
}

export function isArrivalRow(row: ArrivalLike): boolean {
  return row.role === 'system' && !!row.arrival && typeof row.arrival === 'object';
}

function lastAt(row: ArrivalLike): number {
  const a = row.arrival as { last_at?: unknown };
  if (typeof a.last_at === 'number') return a.last_at;
  return typeof row.timestamp === 'number' ? row.timestamp : 0;
}

/**
 * The arrival rows the agent has not been given: any file of theirs arrived after the last turn started (its user
 * row: the last one before the last reply or outcome row). Not simply the last user row: a note stored without the
 * agent, after the files arrived, was never a turn (store/queued.ts stores rows written during a turn after its
 * rows). Older stores hold arrivals stored during a turn before its rows; they arrived after its start, so the time
 * decides, not the place.
 */
export function unseenArrivals(history: readonly ArrivalLike[]): Set<ArrivalLike> {
  const lastReply = history.findLastIndex((r) => r.role === 'assistant');
  const lastUser = lastReply < 0 ? undefined : history.slice(0, lastReply).findLast((r) => r.role === 'user');
  const since = lastUser && typeof lastUser.timestamp === 'number' ? lastUser.timestamp : -Infinity;
  return new Set(history.filter((r) => isArrivalRow(r) && lastAt(r) > since));
}

function filesOf(row: ArrivalLike): ChatAttachment[] {
  return Array.isArray(row.attachments) ? (row.attachments as ChatAttachment[]).filter((a) => a && typeof a.path === 'string') : [];
}

function nameOf(a: ChatAttachment): string {
  return 'filename' in a ? (a.display_name ?? a.filename) : a.name;
}

function when(row: ArrivalLike): string {
  return typeof row.timestamp === 'number' ? ` (${new Date(row.timestamp * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC)` : '';
}

/** How an arrived file is named to the agent: its name, and its Satchel URI when `agentUri` knows one. */
function named(prefix: string, a: ChatAttachment, agentUri: InputOptions['agentUri']): string {
  const uri = agentUri?.(a.path);
  return `[${prefix}: "${nameOf(a)}"${uri ? `, stored as ${uri}` : ''}]`;
}

/** The unseen arrival rows' files as content parts of the new turn: the first MAX_ARRIVED_FILES_READ read, the rest named. */
export async function arrivalParts(rows: readonly ArrivalLike[], budget: Budget, opts: InputOptions): Promise<ContentPart[]> {
  if (rows.length === 0) return [];
  const parts: ContentPart[] = [{ type: 'text', text: ARRIVALS_HEADING }];
  let read = 0;
  const unread: string[] = [];
  for (const row of rows) {
    parts.push({ type: 'text', text: `${typeof row.content === 'string' ? row.content : ''}${when(row)}` });
    for (const a of filesOf(row)) {
      opts.signal?.throwIfAborted();
      if (read >= MAX_ARRIVED_FILES_READ) {
        unread.push(named('arrived, not read in this turn', a, opts.agentUri));
        continue;
      }
      read++;
      parts.push(...contentParts((await readAttachment(a, budget, opts)).parts));
    }
  }
  if (unread.length > 0) {
    const text = [`${unread.length} more arrived file(s), named only (at most ${MAX_ARRIVED_FILES_READ} are read per message):`, ...unread].join('\n');
    // Named within the budget too: 1,000 names must not push the person's words out.
    parts.push({ type: 'text', text: text.length <= budget.left ? text : `${unread.length} more arrived file(s), not listed (the message budget is spent).` });
    budget.left = Math.max(0, budget.left - text.length);
  }
  return parts;
}

