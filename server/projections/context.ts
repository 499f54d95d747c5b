// What a turn gave the agent of the conversation's documents (issue 36) as it goes out: in the `context` frame,
// a stored user row's `context` and POST /api/chat/context. Names, places and reasons are the person's words or
// Satchel's, redacted like every free text; a store of another version may hold anything, so every field is
// checked and what is not its shape goes out as its empty value.
import type * as wire from '../core/wire.js';
import { redactText, type RedactedText } from './brand.js';

export interface PublicContextDocument {
  name: RedactedText;
  origin: wire.ContextDocument['origin'];
  state: wire.ContextDocument['state'];
  where?: RedactedText;
  reason?: RedactedText;
}

export interface PublicContextReport {
  documents: PublicContextDocument[];
  summary: RedactedText;
  via: wire.ContextReport['via'];
  workspace?: { name: RedactedText; listed: number; total: number; changed: number };
}

const ORIGINS = new Set<string>(['attachment', 'arrival', 'workspace']);
const STATES = new Set<string>(['whole', 'passages', 'not_sent', 'unreadable']);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);

function publicDocument(value: unknown): PublicContextDocument {
  const d = (value && typeof value === 'object' ? value : {}) as Partial<Record<keyof wire.ContextDocument, unknown>>;
  return {
    name: redactText(str(d.name)),
    origin: ORIGINS.has(str(d.origin)) ? (d.origin as wire.ContextDocument['origin']) : 'attachment',
    state: STATES.has(str(d.state)) ? (d.state as wire.ContextDocument['state']) : 'not_sent',
    ...(typeof d.where === 'string' ? { where: redactText(d.where) } : {}),
    ...(typeof d.reason === 'string' ? { reason: redactText(d.reason) } : {}),
  };
}

export function publicContextReport(value: unknown): PublicContextReport {
  const r = (value && typeof value === 'object' ? value : {}) as Partial<Record<keyof wire.ContextReport, unknown>>;
  const w = r.workspace && typeof r.workspace === 'object' ? (r.workspace as Partial<Record<string, unknown>>) : undefined;
  return {
    documents: Array.isArray(r.documents) ? r.documents.map(publicDocument) : [],
    summary: redactText(str(r.summary)),
    via: r.via === 'hermes_history' ? 'hermes_history' : 'sent',
    ...(w ? { workspace: { name: redactText(str(w.name)), listed: count(w.listed), total: count(w.total), changed: count(w.changed) } } : {}),
  };
}

/** POST /api/chat/context: the report a turn not yet sent would have, and what it would no longer send whole. */
export function publicContextPreview(report: unknown, leftOut: readonly string[]): PublicContextReport & { left_out: RedactedText[] } {
  return { ...publicContextReport(report), left_out: leftOut.map((name) => redactText(name)) };
}
