// The ledger's recorder for one MCP session (issue 39; the rows: store/mcp-ledger.ts). Every tool call and resource
// read goes through it (mcp/server.ts's `tool` and `resource` wrappers, the only way a tool or resource is
// registered there): what was read, by which key, the bytes served and a SHA-256 of them. A successful read is
// recorded before it is answered, and when the row cannot be written the read is refused: nothing is served
// that the ledger does not hold.
import { createHash } from 'node:crypto';
import { HttpError } from '../core/errors.js';
import { redact } from '../redact/index.js';
import { EVERY_PROFILE, type EventBus } from '../store/events.js';
import type { SessionStore } from '../store/sessions.js';
import type { LedgerOutcome } from '../store/mcp-ledger.js';

/** What one call reads, as the ledger names it; `sessions`: the conversations a cross-conversation search showed. */
export interface LedgerWhat {
  session_id?: string;
  kind: string;
  name?: string;
  range?: string;
  query?: string;
  sessions?: string[];
}

export interface Served {
  bytes: number;
  sha256: string;
}

type Item = { type?: string; text?: string; data?: string; blob?: string };

/** The bytes of what a tool result or a resource read carries (texts as UTF-8, images and blobs decoded), and
 *  their SHA-256: items in order, each prefixed by its length so two splits of the same bytes differ. */
export function servedOf(items: readonly Item[]): Served {
  const hash = createHash('sha256');
  let bytes = 0;
  for (const item of items) {
    const piece = typeof item.text === 'string' ? Buffer.from(item.text, 'utf8') : Buffer.from(item.data ?? item.blob ?? '', 'base64');
    hash.update(`${piece.length}:`);
    hash.update(piece);
    bytes += piece.length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

export function outcomeOf(err: unknown): LedgerOutcome {
  if (err instanceof HttpError && err.status === 404) return 'not_found';
  if (err instanceof HttpError && (err.status === 401 || err.status === 403)) return 'refused';
  return 'error';
}

export type Recorder = (op: string, what: LedgerWhat, outcome: LedgerOutcome, served?: Served) => Promise<void>;

/**
 * The recorder of key `keyId`'s calls. Once a call's rows are in, the windows are told (`mcp_ledger_added`, to every
 * profile's: the ledger is the app's), so the panel's timeline shows every read as it happens: a listing, a search
 * across conversations, a workspace read and a refusal name no conversation, and the receipts' `mcp_read` (a
 * conversation's) left them to Refresh.
 */
export function ledgerRecorder(app: { sessions: Pick<SessionStore, 'appendLedger'>; events?: Pick<EventBus, 'publish'> }, keyId: string): Recorder {
  return async (op, what, outcome, served) => {
    const sessions = what.sessions && what.sessions.length > 0 ? [...new Set(what.sessions)] : [what.session_id ?? null];
    // The query as the person's redactor leaves it: a key typed into a search is not kept.
    const query = what.query === undefined ? '' : redact(what.query);
    // One batch for the call: the rows of a cross-conversation search are kept all or none.
    await app.sessions.appendLedger(
      sessions.map((session) => ({
        key_id: keyId,
        op,
        outcome,
        session_id: session,
        kind: what.kind,
        name: what.name ?? '',
        range: what.range ?? '',
        query,
        bytes: served?.bytes ?? 0,
        sha256: served?.sha256 ?? null,
      })),
    );
    app.events?.publish({ name: 'mcp_ledger_added', profile: EVERY_PROFILE, data: { key_id: keyId } });
  };
}
