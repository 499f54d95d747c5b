// Whole conversations made elsewhere (an import, export/import.ts) stored in bounded batches, each its own short
// transaction, so the server's other writes go between two batches instead of waiting for one transaction that
// held an "Export all" or a 10,000-message conversation (issue 37 finding 3). All or nothing still: every
// conversation is written hidden, marked deleted at UNFINISHED_IMPORT, and one last short transaction takes the
// mark off them all at once. Until then no list, read or search shows them (a deleted conversation is answered as
// missing everywhere, and these are not even listed in memory); a failure removes what was written (purge.ts), and
// a kill leaves them marked deleted long ago, so the next start purges them at once (sessions/deletion.ts) with
// their folders: a conversation appears whole or not at all, and an import whole or not at all.
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
function* hiddenSteps(session: Session): Generator<Part> {
  const marked = { ...session, deleted_at: UNFINISHED_IMPORT };
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

/**
 * Store `sessions` (new ids, none stored) in bounded transactions, then show them all in one; `batched` is told
 * after each transaction of rows (the kill test stops the process there). On a failure what was written is
 * removed (or left hidden for the next start to purge) and the error goes on.
 */
export async function insertInBatches(db: Db, sessions: readonly Session[], batched: () => void = () => {}): Promise<void> {
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
    batched();
    // The next batch is prepared on the event loop: requests that came during this transaction go first.
    await nextTurn();
  };
  try {
    for (const session of sessions) {
      for (const part of hiddenSteps(session)) {
        if (batch.length > 0 && (rows + part.rows > IMPORT_ROWS_PER_BATCH || chars + part.chars > IMPORT_CHARS_PER_BATCH)) await flush();
        // Its JSON and index text made here, between transactions, so its transaction only writes.
        if (part.kind) prepareRows(part.kind, part.added);
        batch.push(part.step);
        rows += part.rows;
        chars += part.chars;
      }
    }
    await flush();
    // Every row is stored: the marks go, all in one transaction (a header each, the rows untouched).
    await db.transaction(async (q) => {
      for (const session of sessions) await writeSession(q, last.get(session.session_id), session);
    });
  } catch (err) {
    // Still hidden; removed here in the purge's own batches, or by the next start if this fails too.
    for (const id of last.keys()) await purgeSessionRows(db, id).catch(() => {});
    throw err;
  }
}
