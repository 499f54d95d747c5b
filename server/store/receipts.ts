// MCP read receipts: which MCP client read what of a conversation, and when (docs/mcp.md "Read receipts").
// Stored in the session database (table mcp_receipts, schema.ts migration 3), removed with the conversation by
// cascade when it is purged; never indexed for search and not exported (a record of access, not content).
import type { Queries } from './db/connection.js';
import type * as wire from '../core/wire.js';
import { redact } from '../redact/index.js';

/**
 * Repeated reads of the same thing by the same client within this window of the receipt's first read are one
 * receipt with a count: an agent polling a file every few seconds makes one line per ten minutes, not hundreds.
 * Counted from the first read, not the last, so a day of polling still shows when it went on (144 receipts a day
 * at most per thing, within MAX_RECEIPTS_PER_SESSION). Ten minutes is longer than an agent's single task step.
 */
export const RECEIPT_COALESCE_MS = 10 * 60_000;
/** At most this many receipts per conversation, the oldest dropped: the list is a recent history, not a log. */
export const MAX_RECEIPTS_PER_SESSION = 200;
/** A client's name as given at `initialize` is cut here: any client can send any text, and it is shown in a line. */
export const MAX_CLIENT_NAME_CHARS = 64;
/** A client's version string, likewise. */
export const MAX_CLIENT_VERSION_CHARS = 32;
/** A read thing's name (an attachment's stored name, a workspace path), cut for the table and the line. */
export const MAX_RECEIPT_NAME_CHARS = 512;

export type ReceiptKind = 'conversation' | 'attachment' | 'workspace';

export interface ReceiptInput {
  client: string;
  clientVersion?: string;
  kind: ReceiptKind;
  /** The attachment's or the workspace file's stored name; '' for the conversation itself. */
  name: string;
}

export interface StoredReceipt {
  client: string;
  client_version: string | null;
  kind: ReceiptKind;
  name: string;
  /** Epoch milliseconds of the first and the last read coalesced into this receipt. */
  first_at: number;
  last_at: number;
  count: number;
}

/** The clientInfo names well-known clients send, by the name a person knows them under. */
const FRIENDLY_CLIENTS: readonly [RegExp, string][] = [
  [/^claude[-_ ]?code$/i, 'Claude Code'],
  [/^claude[-_ ]?(ai|desktop)?$/i, 'Claude'],
  [/^codex([-_ ]mcp[-_ ]client)?$/i, 'Codex'],
  [/^cursor([-_ ]vscode)?$/i, 'Cursor'],
  [/^hermes([-_ ]agent)?$/i, 'Hermes'],
];

/** Control characters and other invisible format characters (bidi overrides) that would garble a line. */
const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

function bounded(text: string, max: number): string {
  const clean = redact(text.replace(INVISIBLE, '')).trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** The name shown for the client that said `name` at `initialize`: a friendly one, or its own, cleaned and cut. */
export function clientLabel(name: unknown): string {
  const given = typeof name === 'string' ? name.trim() : '';
  for (const [pattern, label] of FRIENDLY_CLIENTS) if (pattern.test(given)) return label;
  return bounded(given, MAX_CLIENT_NAME_CHARS) || 'An MCP client';
}

export function clientVersion(version: unknown): string | undefined {
  return typeof version === 'string' ? bounded(version, MAX_CLIENT_VERSION_CHARS) || undefined : undefined;
}

/**
 * Record one read: the client's receipt for the same thing within RECEIPT_COALESCE_MS counts one more, or a new
 * one is added and the conversation's oldest beyond MAX_RECEIPTS_PER_SESSION are dropped. Run in a transaction.
 */
export async function recordReceipt(q: Queries, sessionId: string, read: ReceiptInput, now = Date.now()): Promise<StoredReceipt> {
  const client = bounded(read.client, MAX_CLIENT_NAME_CHARS);
  const version = read.clientVersion === undefined ? null : bounded(read.clientVersion, MAX_CLIENT_VERSION_CHARS);
  const name = bounded(read.name, MAX_RECEIPT_NAME_CHARS);
  const recent = await q.get<{ id: number }>(
    'SELECT id FROM mcp_receipts WHERE session_id = ? AND client = ? AND kind = ? AND name = ? AND first_at >= ? ORDER BY last_at DESC LIMIT 1',
    [sessionId, client, read.kind, name, now - RECEIPT_COALESCE_MS],
  );
  if (recent) {
    await q.run('UPDATE mcp_receipts SET count = count + 1, last_at = ?, client_version = ? WHERE id = ?', [now, version, recent.id]);
  } else {
    await q.run('INSERT INTO mcp_receipts (session_id, client, client_version, kind, name, first_at, last_at, count) VALUES (?, ?, ?, ?, ?, ?, ?, 1)', [
      sessionId,
      client,
      version,
      read.kind,
      name,
      now,
      now,
    ]);
    await q.run(
      `DELETE FROM mcp_receipts WHERE session_id = ? AND id NOT IN
         (SELECT id FROM mcp_receipts WHERE session_id = ? ORDER BY last_at DESC, id DESC LIMIT ?)`,
      [sessionId, sessionId, MAX_RECEIPTS_PER_SESSION],
    );
  }
  const row = await q.get<StoredReceipt>(
    'SELECT client, client_version, kind, name, first_at, last_at, count FROM mcp_receipts WHERE session_id = ? AND client = ? AND kind = ? AND name = ? ORDER BY last_at DESC LIMIT 1',
    [sessionId, client, read.kind, name],
  );
  return row!;
}

/** The conversation's receipts, the latest read first. */
export function listReceipts(q: Queries, sessionId: string): Promise<StoredReceipt[]> {
  return q.all<StoredReceipt>(
    'SELECT client, client_version, kind, name, first_at, last_at, count FROM mcp_receipts WHERE session_id = ? ORDER BY last_at DESC, id DESC',
    [sessionId],
  );
}

/** A stored receipt in its wire shape (ISO times, no null). */
export function wireReceipt(r: StoredReceipt): wire.McpReceipt {
  return {
    client: r.client,
    ...(r.client_version ? { client_version: r.client_version } : {}),
    kind: r.kind,
    name: r.name,
    first_at: new Date(r.first_at).toISOString(),
    last_at: new Date(r.last_at).toISOString(),
    count: r.count,
  };
}
