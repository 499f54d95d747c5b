// The rules of one turn's context (issue 36, the design's "What happens in a turn"), apart from any dialect:
// how much of the budget is kept for passages, which passages go and in what words, the note of what was left
// out, and the report the person sees. agent/input.ts walks the history with them and writes the messages.
import type { ContextDocument, ContextReport } from '../core/wire.js';
import { passageLabel, passagesOf, whereOf } from './passages.js';
import { rankPassages } from './rank.js';
import type { ConversationDoc, DocText, Passage } from './types.js';

/**
 * Share of what the new turn leaves that is kept for passages when some earlier document does not fit whole:
 * the history (the talk itself) keeps most of the room, and a question about a document cut out of it still
 * reaches the pages that answer it.
 */
export const PASSAGE_SHARE = 0.25;

/** The least kept for passages (when the budget has it): about three passages with their labels. */
export const MIN_PASSAGE_CHARS = 4_000;

/**
 * Earlier images re-sent as images, newest first: each costs a model about a thousand tokens whatever its text,
 * and a conversation of screenshots would otherwise fill any context; older ones go by their OCR text.
 */
export const MAX_EARLIER_IMAGES = 4;

/**
 * Documents whose text is read for passages in one turn: twenty attachments and a workspace's files are read
 * from DocTexts' memory after their first turn; a workspace of thousands of files is not read in one.
 */
export const MAX_PASSAGE_DOCUMENTS = 200;

/**
 * Earlier documents a turn considers, newest first. A conversation may hold 10,000 attachments (settings/caps.ts);
 * reading and reporting every one at every turn would cost seconds and a large stored row. Older ones are
 * counted in the summary and the note, and stay reachable by name (the tools, MCP).
 */
export const MAX_EARLIER_DOCUMENTS = 100;

/** Documents named in the left-out note before the rest are counted. */
export const MAX_NOTE_NAMES = 20;

/** The heading over passages in the new user message: what they are, and that more can be asked for. */
export const PASSAGES_HEADING =
  'Passages from earlier documents of this conversation that may answer this message (parts only, not the whole documents; ask for a file or a page by its name if you need more):';

/** The room kept for passages out of `left`, the characters the new turn leaves. */
export function passageReserve(left: number): number {
  return Math.min(left, Math.max(MIN_PASSAGE_CHARS, Math.floor(left * PASSAGE_SHARE)));
}

/** How a passage is sent: its label line, then its text. */
export function passageText(p: Passage): string {
  return `--- ${passageLabel(p)} ---\n${p.text}`;
}

export interface Candidate {
  doc: ConversationDoc;
  text: DocText;
}

export interface ChosenPassages {
  /** In the order they are sent: by document (as given), each document's in its own order. */
  passages: Passage[];
  /** Characters they take, heading included. */
  used: number;
  /** Where each document's passages are from, by key ("pages 2–3"). */
  where: Map<string, string>;
}

/**
 * The passages of `candidates` that best answer `query`, best first while they fit in `room` (heading and
 * labels counted). A passage too long for what is left is skipped for a shorter one after it.
 */
export function choosePassages(candidates: readonly Candidate[], query: string, room: number): ChosenPassages {
  const all = candidates.flatMap((c) => passagesOf(c.doc, c.text));
  const chosen = new Set<Passage>();
  let used = PASSAGES_HEADING.length + 1;
  if (room > used) {
    for (const p of rankPassages(all, query, all.length)) {
      const cost = passageText(p).length + 2;
      if (used + cost > room) continue;
      used += cost;
      chosen.add(p);
      if (room - used < 100) break;
    }
  }
  const order = new Map(candidates.map((c, i) => [c.doc.key, i]));
  const passages = [...chosen].sort((a, b) => order.get(a.key)! - order.get(b.key)! || a.seq - b.seq);
  const where = new Map<string, string>();
  for (const key of new Set(passages.map((p) => p.key))) where.set(key, whereOf(passages.filter((p) => p.key === key)));
  return { passages, used: passages.length ? used : 0, where };
}

/** The reason a document gives no text, when it gives none ("its text could not be extracted: …"). */
export function unreadableReason(text: DocText): string | undefined {
  return text.summary.state === 'unreadable' ? text.summary.text : undefined;
}

/** A short line naming a document that is not sent whole, and why: never its path. */
export function namedOnly(name: string, why: string): string {
  return `[attached earlier: "${name}" — ${why}]`;
}

/** The note after everything else: which documents were left out for the budget, and which cannot be read. */
export function leftOutNote(notSent: readonly string[], unreadable: ReadonlyArray<{ name: string; reason: string }>, older = 0): string {
  const lines: string[] = [];
  if (older > 0) lines.push(`[${older} older document(s) of this conversation are not sent in this turn (only the ${MAX_EARLIER_DOCUMENTS} newest are considered); ask about one by its name.]`);
  if (notSent.length) {
    const shown = notSent.slice(0, MAX_NOTE_NAMES).map((n) => `"${n}"`);
    const more = notSent.length - shown.length;
    lines.push(`[Not sent in this turn (no room left in the message budget): ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}. They are still part of this conversation; ask about one by its name.]`);
  }
  for (const u of unreadable.slice(0, MAX_NOTE_NAMES)) lines.push(`[Cannot be read: "${u.name}" — ${u.reason}]`);
  return lines.join('\n');
}

/** "The agent has 3 of 5 documents whole" (or "…has the one document whole", "…all 4 documents whole", "No documents"). */
export function summaryOf(documents: readonly ContextDocument[], unlisted = 0): string {
  const whole = documents.filter((d) => d.state === 'whole').length;
  const total = documents.length + unlisted;
  if (total === 0) return 'No documents in this conversation';
  if (total === 1) return whole ? 'The agent has the one document whole' : 'The agent does not have the one document whole';
  // "2 of 2" reads as a count to check; every document whole is said as such.
  if (whole === total) return total === 2 ? 'The agent has both documents whole' : `The agent has all ${total} documents whole`;
  return `The agent has ${whole} of ${total} documents whole`;
}

/** `unlisted`: documents of the conversation past MAX_EARLIER_DOCUMENTS, counted in the summary, not listed. */
export function reportOf(documents: ContextDocument[], via: ContextReport['via'], workspace?: ContextReport['workspace'], unlisted = 0): ContextReport {
  return { documents, summary: summaryOf(documents, unlisted), via, ...(workspace ? { workspace } : {}) };
}
