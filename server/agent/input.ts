// What a turn sends the agent (agent.md, "Attachments as model input"; issue 36, "What happens in a turn"): the
// user's text and its attachments as Chat Completions content parts, the history before it with each earlier
// document inlined in its own row while it fits, and the passages of the documents that do not fit that answer
// the new message. Only `text` and `image_url` parts exist here (Hermes' gateway accepts nothing else). One
// budget per turn, drawn in a fixed order; what does not fit is cut or named, never silently dropped, and no
// local path is ever sent. Each file is read by the content engine (server/content/), its whole text kept
// between turns (context/doc-text.ts), its parts put in this dialect by content-parts.ts.
import type { ChatAttachment, ContextDocument, ContextReport } from '../core/wire.js';
import { arrivalParts, unseenArrivals } from './arrivals-input.js';
import { Budget, readAttachment, type AttachmentRead, type InputOptions } from '../content/index.js';
import { DocTexts } from '../context/doc-text.js';
import { attachmentName, attachmentUri, conversationDocs, readAttachments, storedAttachmentName } from '../context/documents.js';
import { choosePassages, leftOutNote, MAX_EARLIER_DOCUMENTS, MAX_EARLIER_IMAGES, MAX_PASSAGE_DOCUMENTS, passageReserve, PASSAGES_HEADING, passageText, reportOf, unreadableReason, type Candidate } from '../context/plan.js';
import type { ConversationDoc, DocText, StoredMessage, WorkspaceContext } from '../context/types.js';
import { contentParts, MAX_TEXT_PART_CHARS } from './content-parts.js';
import { historyMessages, inlinedChars, rowText, type EarlierDoc } from './history.js';
import type { AgentConfig, ChatMessage, ContentPart } from './types.js';

export { Budget, MAX_ARCHIVE_LISTED, MAX_ARCHIVE_MEMBER_BYTES, MAX_IMAGE_BYTES, truncationMarker, type InputOptions } from '../content/index.js';
export { AGENT_OPENING_NOTE, historyMessages } from './history.js';
export type { StoredMessage } from '../context/types.js';

/** What a turn is built with beyond the readers' options. */
export interface TurnInputOptions extends InputOptions {
  /** The conversation: its documents are named by their satchel:// URI. */
  sessionId?: string;
  /** Documents' whole texts, kept between turns (one per app); a fresh one when absent. */
  docTexts?: DocTexts;
  /** The session's workspace as this turn tells the agent of it. */
  workspace?: WorkspaceContext;
  /** A preview (POST /api/chat/context): nothing kept, nothing indexed, no transcription waited for. */
  dry?: boolean;
}

export interface TurnMessages {
  messages: ChatMessage[];
  /** What the turn gave the agent of each document of the conversation. */
  report: ContextReport;
}

/** At most this many files are read concurrently for one turn: each reader has its own limits (PDF worker, OCR). */
const READ_CONCURRENCY = 2;

async function mapLimited<T, R>(items: readonly T[], limit: number, f: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

function docOf(a: ChatAttachment, sessionId: string, origin: ConversationDoc['origin'] = 'attachment'): ConversationDoc {
  const name = attachmentName(a);
  // Called by the person's name; reached by the stored one (the URI the tools and MCP resolve).
  return { key: `attachment:${name}`, name, origin, attachment: a, uri: attachmentUri(sessionId, storedAttachmentName(a)) };
}

/**
 * One file of the new turn as the agent gets it, within `budget`: its whole text from `texts` when it fits (read
 * once, kept for the turns after), else read again under what is left, cut with the reader's marker.
 */
async function readForTurn(doc: ConversationDoc, budget: Budget, opts: TurnInputOptions, texts: DocTexts | undefined, documents: ContextDocument[]): Promise<ContentPart[]> {
  let read: AttachmentRead | DocText | undefined;
  const left = budget.left;
  if (texts) {
    const whole = await texts.get(doc, opts, { dry: opts.dry });
    // A preview reads nothing twice and waits for nothing: what the whole text would take is what it says.
    if (opts.dry || (inlinedChars(whole) <= budget.left && whole.parts.length > 0)) {
      budget.left = Math.max(0, budget.left - inlinedChars(whole));
      read = whole;
    }
  }
  read ??= await readAttachment(doc.attachment, budget, opts);
  const reason = read.summary.state === 'unreadable' ? read.summary.text : undefined;
  const sent = Math.min(left, read.parts.reduce((n, p) => n + (p.type === 'text' ? p.text.length : 0), 0));
  const fits = ('pending' in read && read.pending) || ('chars' in read ? read.chars <= left : budget.left > 0);
  documents.push({
    name: doc.name,
    origin: doc.origin,
    ...(reason !== undefined ? { state: 'unreadable', reason } : fits ? { state: 'whole' } : sent > 0 ? { state: 'passages', where: `the first ${sent.toLocaleString('en-US')} characters` } : { state: 'not_sent', reason: 'budget' }),
  });
  return contentParts(read.parts);
}

/**
 * The new user turn's `content`: the text alone when nothing is attached, else a list of parts (the text
 * first, then each attachment's parts in order). Draws inlined text from `budget`.
 */
export async function buildUserContent(
  text: string,
  attachments: readonly ChatAttachment[],
  budget: Budget,
  opts: TurnInputOptions,
  texts?: DocTexts,
  documents: ContextDocument[] = [],
): Promise<string | ContentPart[]> {
  budget.left = Math.max(0, budget.left - text.length);
  if (attachments.length === 0) return text;
  const parts: ContentPart[] = text ? [{ type: 'text', text }] : [];
  // An archive sent with its extraction is read once, as the extraction: listing the archive too would spend the
  // budget on the same list twice.
  for (const a of readAttachments(attachments)) {
    opts.signal?.throwIfAborted();
    parts.push(...(await readForTurn(docOf(a, opts.sessionId ?? ''), budget, opts, texts, documents)));
  }
  return parts;
}

/**
 * Texts joined by blank lines into as few parts as MAX_TEXT_PART_CHARS allows: Hermes' gateway reads at most 1,000
 * parts of a message (MAX_CONTENT_LIST_SIZE), and a budget's worth of short passages (slides) could pass that.
 */
function packed(texts: readonly string[]): ContentPart[] {
  const out: ContentPart[] = [];
  for (const text of texts) {
    const last = out.at(-1);
    if (last?.type === 'text' && last.text.length + 2 + text.length <= MAX_TEXT_PART_CHARS) last.text += `\n\n${text}`;
    else out.push({ type: 'text', text });
  }
  return out;
}

const asParts = (c: string | ContentPart[]): ContentPart[] => (typeof c === 'string' ? (c ? [{ type: 'text', text: c }] : []) : c);

/** The state an earlier document had in its own turn, as that turn's report kept it (Hermes holds that turn). */
function stateInItsTurn(history: readonly StoredMessage[], doc: ConversationDoc): ContextDocument {
  const said = (history[doc.row ?? -1]?.context as { documents?: unknown } | undefined)?.documents;
  const own = Array.isArray(said) ? (said as ContextDocument[]).find((d) => d && d.name === doc.name) : undefined;
  return own && typeof own.state === 'string' ? { ...own, origin: doc.origin } : { name: doc.name, origin: doc.origin, state: 'whole' };
}

/**
 * Everything a turn sends, and the report of it: the conversation's system prompt when it has one, the history
 * trimmed to what the budget leaves, then the new turn; or the system prompt and the new user turn alone when
 * `historyKept` (Hermes' gateway holds exactly this history under the session header: hermes-continuity.ts
 * decides; it never stores a system message, so the prompt goes with every turn).
 */
export async function buildTurnMessages(
  history: readonly StoredMessage[],
  text: string,
  attachments: readonly ChatAttachment[],
  config: AgentConfig,
  opts: TurnInputOptions,
  historyKept = false,
): Promise<TurnMessages> {
  const budget = new Budget(config.contextChars);
  const texts = opts.docTexts ?? new DocTexts();
  const sessionId = opts.sessionId ?? '';
  const documents: ContextDocument[] = [];
  // 1. The person wrote it for every turn: sent whole (it is bounded when stored), and what it takes is taken first.
  const system: ChatMessage[] = opts.systemPrompt ? [{ role: 'system', content: opts.systemPrompt }] : [];
  budget.left = Math.max(0, budget.left - (opts.systemPrompt?.length ?? 0));
  // 2. The new text and attachments, then the files that arrived since the last turn.
  const unseen = unseenArrivals(history);
  const parts = asParts(await buildUserContent(text, attachments, budget, opts, texts, documents));
  const unseenRows = history.filter((r) => unseen.has(r));
  parts.push(...(await arrivalParts(unseenRows, budget, opts)));
  for (const row of unseenRows) for (const a of readAttachments(row.attachments)) documents.push({ name: attachmentName(a), origin: 'arrival', state: 'whole' });
  // 3. The workspace: its name and bounded listing, then its files changed since the last turn, read like attachments.
  const ws = opts.workspace;
  if (ws) {
    if (ws.listing) parts.push({ type: 'text', text: ws.listing });
    budget.left = Math.max(0, budget.left - ws.listing.length);
    for (const doc of ws.changed) parts.push(...(await readForTurn(doc, budget, opts, texts, documents)));
  }
  // 4. The earlier documents, newest first (a file attached again in this turn is this turn's).
  const fresh = new Set(attachments.map((a) => a?.path));
  const rows = history.filter((r) => !unseen.has(r));
  const all = conversationDocs(sessionId, history).filter((d) => !fresh.has(d.attachment.path) && !unseen.has(history[d.row!]!));
  const earlier = all.slice(0, MAX_EARLIER_DOCUMENTS);
  const older = all.length - earlier.length;
  let messagesBefore: ChatMessage[] = [];
  const whole = new Set<string>();
  const named = new Set<string>();
  const candidates: Candidate[] = [];
  const got = new Map<string, DocText>();
  if (historyKept) {
    for (const d of earlier) documents.push(stateInItsTurn(history, d));
  } else {
    for (const [i, t] of (await mapLimited(earlier, READ_CONCURRENCY, (d) => (opts.signal?.throwIfAborted(), texts.get(d, opts, { dry: opts.dry })))).entries()) got.set(earlier[i]!.key, t);
    // 5. Kept for passages when some earlier document cannot be whole; what the history leaves is added after it.
    // Only a readable document can have passages; one that cannot be read is named, whatever the room.
    const readable = earlier.filter((d) => unreadableReason(got.get(d.key)!) === undefined);
    const docChars = readable.reduce((n, d) => n + inlinedChars(got.get(d.key)!), 0);
    const needed = !!ws?.files.length || (readable.length > 0 && docChars + rows.reduce((n, r) => n + rowText(r).length, 0) > budget.left);
    const reserve = needed ? passageReserve(budget.left) : 0;
    budget.left -= reserve;
    // 6. The history, newest first, each row's documents inlined after its text while they fit.
    const byRow = new Map<number, EarlierDoc[]>();
    for (const d of earlier) {
      // Indexes of `rows` (the history without the arrivals this turn reads) for the walk.
      const at = rows.indexOf(history[d.row!]!);
      byRow.set(at, [...(byRow.get(at) ?? []), { doc: d, text: got.get(d.key)! }]);
    }
    const planned = historyMessages(rows, budget, byRow, MAX_EARLIER_IMAGES);
    messagesBefore = planned.messages;
    planned.whole.forEach((k) => whole.add(k));
    planned.named.forEach((k) => named.add(k));
    budget.left += reserve;
    for (const d of earlier) if (!whole.has(d.key) && unreadableReason(got.get(d.key)!) === undefined) candidates.push({ doc: d, text: got.get(d.key)! });
  }
  // 7. Passages of every document not whole (workspace files among them), best first while they fit.
  const room = budget.left;
  const changedKeys = new Set((ws?.changed ?? []).map((d) => d.key));
  const wsFiles = (ws?.files ?? []).filter((d) => !changedKeys.has(d.key)).slice(0, Math.max(0, MAX_PASSAGE_DOCUMENTS - candidates.length));
  for (const [i, t] of (await mapLimited(wsFiles, READ_CONCURRENCY, (d) => (opts.signal?.throwIfAborted(), texts.get(d, opts, { dry: opts.dry })))).entries()) {
    if (unreadableReason(t) === undefined) candidates.push({ doc: wsFiles[i]!, text: t });
  }
  const chosen = choosePassages(candidates.slice(0, MAX_PASSAGE_DOCUMENTS), text, room);
  if (chosen.passages.length) {
    parts.push(...packed([PASSAGES_HEADING, ...chosen.passages.map(passageText)]));
    budget.left -= chosen.used;
  }
  // 8. The report, and a note of what was left out.
  const notSent: string[] = [];
  const unreadable: Array<{ name: string; reason: string }> = [];
  if (!historyKept) {
    for (const d of earlier) {
      const t = got.get(d.key)!;
      const reason = unreadableReason(t);
      if (reason !== undefined) {
        documents.push({ name: d.name, origin: d.origin, state: 'unreadable', reason });
        if (!named.has(d.key)) unreadable.push({ name: d.name, reason });
      } else if (whole.has(d.key)) documents.push({ name: d.name, origin: d.origin, state: 'whole' });
      else if (chosen.where.has(d.key)) documents.push({ name: d.name, origin: d.origin, state: 'passages', where: chosen.where.get(d.key)! });
      else {
        documents.push({ name: d.name, origin: d.origin, state: 'not_sent', reason: 'budget' });
        notSent.push(d.name);
      }
    }
  }
  for (const d of ws?.files ?? []) if (chosen.where.has(d.key)) documents.push({ name: d.name, origin: 'workspace', state: 'passages', where: chosen.where.get(d.key)! });
  const note = leftOutNote(notSent, unreadable, older);
  if (note) parts.push({ type: 'text', text: note });
  const content: string | ContentPart[] = parts.length === 1 && parts[0]!.type === 'text' && parts[0]!.text === text ? text : parts.length === 0 ? text : parts;
  const report = reportOf(documents, historyKept ? 'hermes_history' : 'sent', ws ? { name: ws.name, listed: ws.listed, total: ws.total, changed: ws.changed.length } : undefined, older);
  return { messages: [...system, ...messagesBefore, { role: 'user', content }], report };
}
