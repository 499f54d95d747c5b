// What the agent had of the conversation's documents in the last turn (issue 36), as the page reads and words it:
// the running turn's `context` frame, or else the newest user row that carries a `context` report. Pure, so every
// sentence a chip, the header line and its list show is tested in node; context-chip.ts and context-header.ts draw.
import type { ContextDocument, ContextReport, Message } from './api.js';
import type { AppState } from './store.js';

export type DocOrigin = ContextDocument['origin'];

const ORIGINS = new Set<string>(['attachment', 'arrival', 'workspace']);
const STATES = new Set<string>(['whole', 'passages', 'not_sent', 'unreadable']);
/** Documents a report may list that the page reads: a store of another version may hold anything. */
export const MAX_REPORT_DOCUMENTS = 10_000;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);

function readDocument(value: unknown): ContextDocument | null {
  const d = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const name = str(d.name);
  if (!name || !ORIGINS.has(str(d.origin)) || !STATES.has(str(d.state))) return null;
  return {
    name,
    origin: d.origin as DocOrigin,
    state: d.state as ContextDocument['state'],
    ...(typeof d.where === 'string' && d.where ? { where: d.where } : {}),
    ...(typeof d.reason === 'string' && d.reason ? { reason: d.reason } : {}),
  };
}

/** A report as the page uses it, or null when `value` is none (an older row, a malformed frame). */
export function readReport(value: unknown): ContextReport | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const r = value as Record<string, unknown>;
  if (!Array.isArray(r.documents)) return null;
  const documents = r.documents.slice(0, MAX_REPORT_DOCUMENTS).map(readDocument).filter((d): d is ContextDocument => d !== null);
  const w = r.workspace && typeof r.workspace === 'object' ? (r.workspace as Record<string, unknown>) : null;
  return {
    documents,
    summary: str(r.summary),
    via: r.via === 'hermes_history' ? 'hermes_history' : 'sent',
    ...(w && str(w.name) ? { workspace: { name: str(w.name), listed: count(w.listed), total: count(w.total), changed: count(w.changed) } } : {}),
  };
}

/** The newest user row's report among `messages` (the version shown), or null when no turn reported yet. */
export function storedReport(messages: readonly Message[]): ContextReport | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'user') continue;
    const report = readReport(m.context);
    if (report) return report;
  }
  return null;
}

/** The last turn's report for the session on screen: its running turn's frame first, then its stored rows. */
export function lastReport(state: Pick<AppState, 'session' | 'turn'>): ContextReport | null {
  const session = state.session;
  if (!session) return null;
  const turn = state.turn;
  if (turn && turn.sessionId === session.session_id && turn.context) return turn.context;
  return storedReport(session.messages ?? []);
}

/**
 * The document of `report` a chip stands for: by origin and by one of the chip's names (an attachment's file
 * name; an extracted archive's name or its folder's). A name listed twice (a removed upload's name used again):
 * the first, the newest.
 */
export function documentFor(report: ContextReport | null, names: readonly string[], origin: DocOrigin): ContextDocument | undefined {
  if (!report) return undefined;
  return report.documents.find((d) => d.origin === origin && names.includes(d.name));
}

/** The state of one document in a few words: "whole", "passages: pages 2–3", "not sent (budget)", "not readable: …". */
export function stateWords(doc: ContextDocument): string {
  switch (doc.state) {
    case 'whole':
      return 'whole';
    case 'passages':
      return doc.where ? `passages: ${doc.where}` : 'passages';
    case 'not_sent':
      return doc.reason ? `not sent (${doc.reason})` : 'not sent';
    case 'unreadable':
      return doc.reason ? `not readable: ${doc.reason}` : 'not readable';
  }
}

/** The chip's line: what the agent had of the file in the last turn. */
export function chipContextText(doc: ContextDocument): string {
  return `Last turn: ${stateWords(doc)}`;
}

/** The line's accessible description, a whole sentence for a screen reader. */
export function chipContextLabel(doc: ContextDocument): string {
  return `What the agent had of it in the last turn: ${stateWords(doc)}`;
}

/** Where a document came from, in the list. */
export function originWords(origin: DocOrigin): string {
  return origin === 'attachment' ? 'attached' : origin === 'arrival' ? 'arrived' : 'in the workspace';
}

const plural = (n: number, one: string, many: string): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** "Workspace “proj”: 12 files listed, 2 changed files read" (of how many, when the listing was cut). */
export function workspaceLine(ws: NonNullable<ContextReport['workspace']>): string {
  const listed = ws.total > ws.listed ? `${ws.listed.toLocaleString('en-US')} of ${plural(ws.total, 'file', 'files')} listed` : `${plural(ws.listed, 'file', 'files')} listed`;
  const changed = ws.changed > 0 ? `, ${plural(ws.changed, 'changed file', 'changed files')} read` : '';
  return `Workspace “${ws.name}”: ${listed}${changed}`;
}

/** Said when Hermes keeps the history: the earlier documents were not sent again, and need not be. */
export const HISTORY_LINE = 'Earlier documents are in the agent’s own history: it keeps them as their own turn sent them.';

/** The summary when the server sent none (an older row): counted here. */
export function summaryOf(report: ContextReport): string {
  if (report.summary) return report.summary;
  const whole = report.documents.filter((d) => d.state === 'whole').length;
  return `The agent has ${whole.toLocaleString('en-US')} of ${plural(report.documents.length, 'document', 'documents')} whole`;
}

export interface ContextListItem {
  name: string;
  origin: string;
  state: ContextDocument['state'];
  words: string;
}

/** What the header line and its list show, or null when there is nothing to show (no documents, no report). */
export interface ContextHeaderModel {
  summary: string;
  items: ContextListItem[];
  history: string | null;
  workspace: string | null;
}

export function headerModel(report: ContextReport | null): ContextHeaderModel | null {
  if (!report || (report.documents.length === 0 && !report.workspace)) return null;
  return {
    summary: summaryOf(report),
    items: report.documents.map((d) => ({ name: d.name, origin: originWords(d.origin), state: d.state, words: stateWords(d) })),
    history: report.via === 'hermes_history' ? HISTORY_LINE : null,
    workspace: report.workspace ? workspaceLine(report.workspace) : null,
  };
}
