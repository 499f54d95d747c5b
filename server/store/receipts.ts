// MCP read receipts: which agent read what of a conversation, and when (docs/mcp.md "Read receipts"). Read from
// the MCP ledger (store/mcp-ledger.ts, issue 39: one source), by the name the person gave the agent's key, never
// the name a client declares; the receipts stored before the ledger (table mcp_receipts, schema.ts migration 3,
// no longer written) are still listed beside them. Never indexed for search and not exported.
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

/** A conversation's receipts are made from its latest this many reads in the ledger: a recent history, read by
 *  the (session_id, id) index, so the line costs a bounded scan however long the ledger is. */
export const MAX_RECEIPT_LEDGER_ROWS = 5_000;

/** What the ledger's kinds of read show as a receipt: a search's snippets are the conversation's content. */
const RECEIPT_KIND_OF: Readonly<Record<string, ReceiptKind>> = { conversation: 'conversation', attachment: 'attachment', workspace: 'workspace', search: 'conversation' };

/** The name a receipt shows for the agent key `keyId` (mcp/keys.ts: the person's name for it). */
export type KeyName = (keyId: string) => string;

/** The ledger's kinds of read that make a receipt of `kind`. */
const LEDGER_KINDS_OF = (kind: ReceiptKind): string[] => Object.keys(RECEIPT_KIND_OF).filter((k) => RECEIPT_KIND_OF[k] === kind);
const RECEIPT_READS = `session_id = ? AND outcome = 'ok' AND kind IN (${Object.keys(RECEIPT_KIND_OF).map((k) => `'${k}'`).join(', ')})`;

/** One key's receipts of one kind: what the windows are told of after each of its reads (mcp/receipts.ts). */
export interface ReceiptsOf {
  keyId: string;
  kind: ReceiptKind;
}

/**
 * The receipts of the conversation's latest MAX_RECEIPT_LEDGER_ROWS successful reads in the ledger, coalesced as
 * recordReceipt did (reads of one thing by one agent within RECEIPT_COALESCE_MS of the receipt's first read),
 * the latest first. A search's conversation name is '' (its snippets are of the conversation).
 * `of`: only one key's receipts of one kind, the same as those of the whole list (coalescing never joins two keys
 * or kinds, and the rows are the same latest MAX_RECEIPT_LEDGER_ROWS). A read announced after each search of
 * every conversation it showed coalesced all of each one's rows in JS; the others' rows are now passed over by
 * SQLite.
 */
export async function ledgerReceipts(q: Queries, sessionId: string, keyName: KeyName, of?: ReceiptsOf): Promise<StoredReceipt[]> {
  const rows = of
    ? await q.all<{ key_id: string; kind: string; name: string; at: number }>(
        `SELECT key_id, kind, name, at FROM mcp_ledger
         WHERE ${RECEIPT_READS} AND key_id = ? AND kind IN (${LEDGER_KINDS_OF(of.kind).map(() => '?').join(', ')})
           AND id >= ifnull((SELECT id FROM mcp_ledger WHERE ${RECEIPT_READS} ORDER BY id DESC LIMIT 1 OFFSET ${MAX_RECEIPT_LEDGER_ROWS - 1}), 0)
         ORDER BY id DESC`,
        [sessionId, of.keyId, ...LEDGER_KINDS_OF(of.kind), sessionId],
      )
    : await q.all<{ key_id: string; kind: string; name: string; at: number }>(`SELECT key_id, kind, name, at FROM mcp_ledger WHERE ${RECEIPT_READS} ORDER BY id DESC LIMIT ?`, [
        sessionId,
        MAX_RECEIPT_LEDGER_ROWS,
      ]);
  const open = new Map<string, StoredReceipt>();
  const made: StoredReceipt[] = [];
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i]!;
    const kind = RECEIPT_KIND_OF[row.kind]!;
    const name = kind === 'conversation' ? '' : bounded(row.name, MAX_RECEIPT_NAME_CHARS);
    const key = `${row.key_id}\0${kind}\0${name}`;
    const current = open.get(key);
    if (current && row.at - current.first_at <= RECEIPT_COALESCE_MS) {
      current.count++;
      current.last_at = Math.max(current.last_at, row.at);
      continue;
    }
    const receipt: StoredReceipt = { client: bounded(keyName(row.key_id), MAX_CLIENT_NAME_CHARS), client_version: null, kind, name, first_at: row.at, last_at: row.at, count: 1 };
    open.set(key, receipt);
    made.push(receipt);
  }
  // The latest read first; of two read at once, the one made later.
  return made.reverse().sort((a, b) => b.last_at - a.last_at);
}

/** The conversation's receipts, the latest read first: the ledger's and those stored before it, at most
 *  MAX_RECEIPTS_PER_SESSION. */
export async function listReceipts(q: Queries, sessionId: string, keyName: KeyName): Promise<StoredReceipt[]> {
  const [fromLedger, before] = await Promise.all([
    ledgerReceipts(q, sessionId, keyName),
    q.all<StoredReceipt>(
      'SELECT client, client_version, kind, name, first_at, last_at, count FROM mcp_receipts WHERE session_id = ? ORDER BY last_at DESC, id DESC LIMIT ?',
      [sessionId, MAX_RECEIPTS_PER_SESSION],
    ),
  ]);
  return [...fromLedger, ...before].sort((a, b) => b.last_at - a.last_at).slice(0, MAX_RECEIPTS_PER_SESSION);
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
