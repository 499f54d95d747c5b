// A conversation's rows removed for good (a purge, sessions/deletion.ts) in bounded batches, each its own short
// transaction, so the other writes of the server go between two batches instead of waiting for one statement
// that removed 10,000 messages and their index entries at once (1-3 s, issue 37 finding 3). The record in
// `sessions` goes last: until then the conversation is still marked deleted, so a crash between two batches
// leaves it hidden and the next start purges the rest. Every batch deletes whole rows of search_docs through its
// triggers, so the FTS5 index agrees with its rows after any batch.
import type { Db } from './connection.js';
import { deleteSession } from './session-rows.js';

/**
 * Rows removed per transaction. A message with its index entry costs ~75-120 µs of CPU to remove here (the FTS5
 * 'delete' tokenizes the old text again), so 50 rows keep a batch at a few milliseconds (bench/store-purge.mjs:
 * median 1.6 ms, the longest, where SQLite merges index segments or checkpoints, under 40 ms), within the 50 ms
 * another write may wait. Smaller costs more in all: each commit writes its own index segment to merge later.
 */
export const PURGE_ROWS_PER_BATCH = 50;

/**
 * The tables that hold a conversation's rows besides its record, each with a column that picks rows within the
 * conversation through an index leading with session_id. The index entries first: a search never meets an entry
 * whose message is gone (it shows none of a deleted conversation anyway, store/search.ts).
 */
const CONVERSATION_TABLES = [
  { table: 'search_docs', key: 'id' },
  { table: 'messages', key: 'position' },
  { table: 'attachments', key: 'position' },
  { table: 'attachment_text_pending', key: 'position' },
  { table: 'mcp_receipts', key: 'id' },
  { table: 'streamed_text', key: 'id' },
] as const;

/**
 * Remove the conversation `id` and every row of it, `rows` at most per transaction; `batched` is told after
 * each batch (the crash test stops the process there). True when there was a record to remove.
 */
export async function purgeSessionRows(db: Db, id: string, rows = PURGE_ROWS_PER_BATCH, batched: () => void = () => {}): Promise<boolean> {
  for (const { table, key } of CONVERSATION_TABLES) {
    for (;;) {
      const { changes } = await db.transaction((q) =>
        q.run(`DELETE FROM ${table} WHERE session_id = ? AND ${key} IN (SELECT ${key} FROM ${table} WHERE session_id = ? LIMIT ?)`, [id, id, rows]),
      );
      if (changes > 0) batched();
      if (changes < rows) break;
    }
  }
  return db.transaction((q) => deleteSession(q, id));
}
