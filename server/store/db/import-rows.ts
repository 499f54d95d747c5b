// Whole conversations made elsewhere (an import, export/import.ts) stored in bounded batches, each its own short
// transaction, so the server's other writes go between two batches instead of waiting for one transaction that
// held an "Export all" or a 10,000-message conversation (issue 37 finding 3). All or nothing still: every
// conversation is written hidden, marked deleted at UNFINISHED_IMPORT and with the import it belongs to (its
// anchor: the import's first conversation), then shown IMPORT_SHOWN_PER_BATCH at a time, the anchor in the first
// of those transactions. Until then no list, read or search shows them (a deleted conversation is answered as
// missing everywhere, and these are not even listed in memory until the last is shown).
// Crash safety: the first showing transaction is the import's commit. A kill before it leaves them all marked
// deleted long ago, so the next start purges them at once (sessions/deletion.ts) with their folders; a kill after it
// leaves the anchor shown, and the next start shows the rest before anything is listed (finishShownImports): a
// conversation appears whole or not at all, and an import whole or not at all.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Message, Session } from '../sessions.js';
import type { Db } from './connection.js';
import { purgeSessionRows } from './purge.js';
import { prepareRows, writeSession } from './session-rows.js';
import type * as wire from '../../core/wire.js';

/**
 * The mark of a conversation whose import has not finished: deleted at the epoch, so its grace period for Undo is
 * long over (sessions/deletion.ts) and a start after a kill purges it at once; it can never be restored.
 */
export const UNFINISHED_IMPORT = new Date(0).toISOString();

/**
 * Rows (messages, attachments) written per transaction at most. Storing a message with its index entry cost ~240 µs
 * of CPU on a loaded 2-core machine (its redaction for the index, the row, the FTS5 insert): 100 made batches of
 * 24 ms (median) and up to 140 ms (bench/import-writes.mjs); 25 keeps a batch near 6 ms, well inside the 50 ms
 * another write may wait, for more commits in all.
 */
export const IMPORT_ROWS_PER_BATCH = 25;

/** Characters of text per transaction at most: 25 replies cut at their bound must not make one batch. */
export const IMPORT_CHARS_PER_BATCH = 64 * 1024;

/**
 * Conversations shown per transaction once all their rows are stored (a header rewrite each, with its revision
 * check: ~0.1-0.8 ms of CPU on a loaded 2-core machine). The last transaction showed them all at once: 157 ms at
 * 200 conversations, ~2,000 headers at 200,000 messages (bench/import-writes.mjs); 25 keeps one near the row
 * batches' few milliseconds.
 */
export const IMPORT_SHOWN_PER_BATCH = 25;

/**
 * The header field a hidden conversation carries until it is shown: the import's anchor (`with`, the conversation
 * whose showing commits the import) and the conversation's own deletion time, if it had one, to give back.
 */
export const IMPORT_FIELD = 'import_unfinished';

interface Unfinished {
  with: string;
  deleted_at?: string;
}

/** One transaction's worth: steps of one or more conversations, each over the step before it. */
type Step = { before: Session | undefined; after: Session };

/** A step with what it adds: its rows' kind and the rows (prepared before its transaction, prepareRows). */
interface Part {
  step: Step;
  rows: number;
  chars: number;
  kind?: 'messages' | 'attachments';
  added: readonly object[];
}

function textLength(row: Message | wire.Attachment): number {
  const content = (row as { content?: unknown }).content;
  return typeof content === 'string' ? content.length : 0;
}

/**
 * The steps that write `session` hidden: its record (with its title) first, then its messages and attachments
 * appended a bounded part at a time. Each step shares its rows, object for object, with the one before, so
 * writeSession writes only the rows it adds.
 */
function* hiddenSteps(session: Session, anchor: string): Generator<Part> {
  const unfinished: Unfinished = session.deleted_at === undefined ? { with: anchor } : { with: anchor, deleted_at: session.deleted_at };
  const marked = { ...session, deleted_at: UNFINISHED_IMPORT, [IMPORT_FIELD]: unfinished };
  let before: Session | undefined;
  let stored: Session = { ...marked, messages: [], attachments: [] };
  yield { step: { before, after: stored }, rows: 1, chars: session.title.length, added: [] };
  for (const kind of ['messages', 'attachments'] as const) {
    const all: readonly (Message | wire.Attachment)[] = session[kind];
    let from = 0;
    while (from < all.length) {
      let to = from;
      let chars = 0;
      while (to < all.length && to - from < IMPORT_ROWS_PER_BATCH && (to === from || chars + textLength(all[to]!) <= IMPORT_CHARS_PER_BATCH)) chars += textLength(all[to++]!);
      before = stored;
      stored = { ...stored, [kind]: all.slice(0, to) };
      yield { step: { before, after: stored }, rows: to - from, chars, kind, added: all.slice(from, to) };
      from = to;
    }
  }
}

/** Which of the import's steps a transaction was: a batch of hidden rows, or conversations shown. */
export type ImportPhase = 'rows' | 'shown';

/**
 * Store `sessions` (new ids, none stored) in bounded transactions, then show them in bounded transactions, the
 * first of which commits the import; `batched` is told after each transaction (the kill test stops the process
 * there). On a failure what was written is removed (or left hidden for the next start to purge) and the error
 * goes on.
 */
export async function insertInBatches(db: Db, sessions: readonly Session[], batched: (phase: ImportPhase) => void = () => {}): Promise<void> {
  if (sessions.length === 0) return;
  const anchor = sessions[0]!.session_id;
  /** Each conversation as last stored hidden (its revision known to writeSession). */
  const last = new Map<string, Session>();
  let batch: Step[] = [];
  let rows = 0;
  let chars = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const steps = batch;
    batch = [];
    rows = 0;
    chars = 0;
    await db.transaction(async (q) => {
      for (const { before, after } of steps) await writeSession(q, before, after);
    });
    for (const { after } of steps) last.set(after.session_id, after);
    batched('rows');
    // The next batch is prepared on the event loop: requests that came during this transaction go first.
    await nextTurn();
  };
  const purgeWritten = async (): Promise<void> => {
    // Still hidden; removed here in the purge's own batches, or by the next start if this fails too.
    for (const id of last.keys()) await purgeSessionRows(db, id).catch(() => {});
  };
  try {
    for (const session of sessions) {
      for (const part of hiddenSteps(session, anchor)) {
        if (batch.length > 0 && (rows + part.rows > IMPORT_ROWS_PER_BATCH || chars + part.chars > IMPORT_CHARS_PER_BATCH)) await flush();
        // Its JSON and index text made here, between transactions, so its transaction only writes.
        if (part.kind) prepareRows(part.kind, part.added);
        batch.push(part.step);
        rows += part.rows;
        chars += part.chars;
      }
    }
    await flush();
  } catch (err) {
    await purgeWritten();
    throw err;
  }
  // Every row is stored: the marks go, a bounded slice of headers per transaction (the rows untouched), the
  // anchor in the first.
  const shown: Session[] = [];
  try {
    for (let from = 0; from < sessions.length; from += IMPORT_SHOWN_PER_BATCH) {
      const slice = sessions.slice(from, from + IMPORT_SHOWN_PER_BATCH);
      await db.transaction(async (q) => {
        for (const session of slice) await writeSession(q, last.get(session.session_id), session);
      });
      shown.push(...slice);
      batched('shown');
      await nextTurn();
    }
  } catch (err) {
    // Committed already (the anchor shown): hidden again, the anchor last, before anything is removed. If that
    // fails too, the import stays committed and the next start shows it whole (finishShownImports).
    if (await hideAgain(db, shown, last, anchor).then(() => true, () => false)) await purgeWritten();
    throw err;
  }
}

/**
 * Hide again the conversations `shown` of a failed import (each back to its hidden version in `last`), in bounded
 * transactions, the anchor alone in the last: until that one commits, a kill leaves the import committed (shown
 * whole at the next start); after it, uncommitted (purged whole).
 */
async function hideAgain(db: Db, shown: readonly Session[], last: Map<string, Session>, anchor: string): Promise<void> {
  const others = shown.filter((s) => s.session_id !== anchor);
  const hideSome = async (some: readonly Session[]): Promise<void> => {
    await db.transaction(async (q) => {
      for (const s of some) {
        const hidden = { ...last.get(s.session_id)! };
        await writeSession(q, s, hidden);
        last.set(s.session_id, hidden);
      }
    });
  };
  for (let from = 0; from < others.length; from += IMPORT_SHOWN_PER_BATCH) await hideSome(others.slice(from, from + IMPORT_SHOWN_PER_BATCH));
  const anchorShown = shown.find((s) => s.session_id === anchor);
  if (anchorShown) await hideSome([anchorShown]);
}

/** The header of a conversation once shown: its hidden header without the mark, its own deletion time given back. */
function shownHeader(hidden: Record<string, unknown>): Record<string, unknown> {
  const { [IMPORT_FIELD]: unfinished, deleted_at: _mark, ...rest } = hidden;
  const own = (unfinished as Unfinished).deleted_at;
  // The key where it was: an own deletion time sat in the header before the mark replaced its value.
  return own === undefined ? rest : { ...hidden, deleted_at: own, [IMPORT_FIELD]: undefined };
}

/**
 * At start, before anything is listed: show the conversations of an import that was committed (its anchor
 * shown) but killed before all were shown, in bounded transactions. Those of an import not committed stay hidden,
 * and the deletion sweep purges them. The number shown.
 */
export async function finishShownImports(db: Db): Promise<number> {
  // A text search first: a damaged header (not JSON) must not stop a start (damage.ts lists it as unreadable).
  const rows = await db.all<{ id: string; header: string }>(`SELECT id, header FROM sessions WHERE instr(header, '"${IMPORT_FIELD}":') > 0`);
  const hidden = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    try {
      const header = JSON.parse(row.header) as Record<string, unknown>;
      const unfinished = header[IMPORT_FIELD] as Unfinished | undefined;
      if (header.deleted_at === UNFINISHED_IMPORT && unfinished && typeof unfinished.with === 'string') hidden.set(row.id, header);
    } catch {
      // Unreadable: damage.ts says so when the listings are read.
    }
  }
  const anchors = new Set([...hidden.values()].map((h) => (h[IMPORT_FIELD] as Unfinished).with));
  const committed = new Set<string>();
  for (const anchor of anchors) {
    if (hidden.has(anchor)) continue;
    if (await db.get('SELECT 1 AS found FROM sessions WHERE id = ?', [anchor])) committed.add(anchor);
  }
  const toShow = [...hidden].filter(([, h]) => committed.has((h[IMPORT_FIELD] as Unfinished).with));
  for (let from = 0; from < toShow.length; from += IMPORT_SHOWN_PER_BATCH) {
    await db.transaction(async (q) => {
      for (const [id, header] of toShow.slice(from, from + IMPORT_SHOWN_PER_BATCH)) {
        await q.run('UPDATE sessions SET header = ?, revision = revision + 1 WHERE id = ?', [JSON.stringify(shownHeader(header)), id]);
      }
    });
  }
  return toShow.length;
}
