// The ledger of MCP reads (issue 39; table mcp_ledger, schema.ts migration 9): every tool call and resource read,
// by which agent key, of what, when, how many bytes were served and a SHA-256 of them. Bounded: the newest
// MAX_LEDGER_ENTRIES rows, none older than LEDGER_MAX_AGE_MS. Queried by key and conversation, newest first.
import type { Db, Queries } from './db/connection.js';
import { log } from '../core/log.js';

/** Rows kept at most: about 200 MB of SQLite at worst, years of an agent reading all day. */
export const MAX_LEDGER_ENTRIES = 1_000_000;
/** Rows older than a year are dropped. */
export const LEDGER_MAX_AGE_MS = 365 * 24 * 60 * 60_000;
/** The bounds are enforced once per this many rows written (a DELETE per read would double a read's cost). */
export const LEDGER_PRUNE_EVERY = 1000;
/** Rows one page of a query answers at most. */
export const MAX_LEDGER_PAGE = 500;
/** Rows one export holds at most (built in memory: about 30 MB of JSON); the next file starts `before` its last. */
export const MAX_LEDGER_EXPORT = 100_000;
/** A stored name, range or query is cut here. */
export const MAX_LEDGER_TEXT_CHARS = 512;

export type LedgerOutcome = 'ok' | 'not_found' | 'refused' | 'error';

export interface LedgerInput {
  key_id: string;
  /** The tool's name, or `resource:<name>` for a resource read. */
  op: string;
  outcome: LedgerOutcome;
  session_id: string | null;
  /** What was read: 'conversation', 'attachment', 'workspace', 'list', 'search'. */
  kind: string;
  name: string;
  /** A page of a read: `messages 0-199`, `chars 0-1000`. */
  range: string;
  /** A search's query, redacted. */
  query: string;
  bytes: number;
  sha256: string | null;
}

export interface LedgerEntry extends LedgerInput {
  id: number;
  at: number;
}

const cut = (text: string) => (text.length > MAX_LEDGER_TEXT_CHARS ? `${text.slice(0, MAX_LEDGER_TEXT_CHARS - 1)}…` : text);

export async function recordLedger(q: Queries, e: LedgerInput, now = Date.now()): Promise<number> {
  const run = await q.run(
    'INSERT INTO mcp_ledger (key_id, at, op, outcome, session_id, kind, name, range, query, bytes, sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [e.key_id, now, e.op, e.outcome, e.session_id, e.kind, cut(e.name), cut(e.range), cut(e.query), e.bytes, e.sha256],
  );
  const id = run.lastID;
  if (id % LEDGER_PRUNE_EVERY === 0) await pruneLedger(q, now);
  return id;
}

const COLUMNS = 'key_id, at, op, outcome, session_id, kind, name, range, query, bytes, sha256';
/** A batch of rows as one statement over one JSON parameter: the same prepared text whatever the batch's size. */
const INSERT_BATCH = `INSERT INTO mcp_ledger (${COLUMNS}) SELECT ${COLUMNS
  .split(', ')
  .map((c, i) => `json_extract(value, '$[${i}]')`)
  .join(', ')} FROM json_each(?)`;

type Pending = { rows: unknown[][]; resolve: () => void; reject: (err: unknown) => void };

/**
 * Writes the ledger's rows for the MCP reads of one database: the rows asked for while a batch is being written
 * wait and go together in the next one (a group commit: no timer, so a lone read waits for nobody), each batch
 * one prepared statement committed on its own (Db.runAlone: one trip to SQLite's thread, where a transaction of
 * one INSERT takes five). A read is answered only once its batch is committed: a batch that fails refuses every
 * read in it, and a crash (a kill, a power cut with the OS's cache lost) can only lose rows of reads that were not
 * answered yet (the WAL's commit is atomic; synchronous=NORMAL gives up at most the last commits on a power cut,
 * as for every write of Satchel). The bounds are kept by a prune queued after a batch that crossed a multiple of
 * LEDGER_PRUNE_EVERY ids, which no read waits for.
 */
export class LedgerWriter {
  private pending: Pending[] = [];
  private writing = false;

  constructor(private readonly db: Pick<Db, 'runAlone' | 'transaction'>) {}

  /** Resolves once `rows` are committed; rejects (and nothing of them is kept) when their batch failed. */
  append(rows: readonly LedgerInput[], now = Date.now()): Promise<void> {
    const cells = rows.map((e) => [e.key_id, now, e.op, e.outcome, e.session_id, e.kind, cut(e.name), cut(e.range), cut(e.query), e.bytes, e.sha256]);
    return new Promise((resolve, reject) => {
      this.pending.push({ rows: cells, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      const rows = batch.flatMap((p) => p.rows);
      try {
        const { lastID } = await this.db.runAlone(INSERT_BATCH, [JSON.stringify(rows)]);
        for (const p of batch) p.resolve();
        if (Math.floor(lastID / LEDGER_PRUNE_EVERY) !== Math.floor((lastID - rows.length) / LEDGER_PRUNE_EVERY)) {
          void this.db.transaction((q) => pruneLedger(q)).catch((err: unknown) => log.warn('mcp: the ledger was not pruned', err));
        }
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    }
    this.writing = false;
  }
}

const writers = new WeakMap<object, LedgerWriter>();

/** The one writer of a database connection's ledger (a restored database is a new connection, a new writer). */
export function ledgerWriter(db: Db): LedgerWriter {
  let writer = writers.get(db);
  if (!writer) writers.set(db, (writer = new LedgerWriter(db)));
  return writer;
}

/** Drops the rows beyond MAX_LEDGER_ENTRIES and those older than LEDGER_MAX_AGE_MS. */
export async function pruneLedger(q: Queries, now = Date.now(), max = MAX_LEDGER_ENTRIES): Promise<void> {
  const last = await q.get<{ id: number | null }>('SELECT max(id) AS id FROM mcp_ledger');
  if (last?.id != null) await q.run('DELETE FROM mcp_ledger WHERE id <= ?', [last.id - max]);
  await q.run('DELETE FROM mcp_ledger WHERE at < ?', [now - LEDGER_MAX_AGE_MS]);
}

export interface LedgerQuery {
  key_id?: string;
  session_id?: string;
  /** Rows with a smaller id only (the next page). */
  before?: number;
  limit: number;
}

/** Newest first; by the indexes on (key_id, id) and (session_id, id), so a page costs its rows, not the table. */
export function queryLedger(q: Queries, query: LedgerQuery): Promise<LedgerEntry[]> {
  const where: string[] = [];
  const params: Array<string | number> = [];
  if (query.key_id !== undefined) (where.push('key_id = ?'), params.push(query.key_id));
  if (query.session_id !== undefined) (where.push('session_id = ?'), params.push(query.session_id));
  if (query.before !== undefined) (where.push('id < ?'), params.push(query.before));
  return q.all<LedgerEntry>(
    `SELECT id, key_id, at, op, outcome, session_id, kind, name, range, query, bytes, sha256 FROM mcp_ledger
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`,
    [...params, query.limit],
  );
}
