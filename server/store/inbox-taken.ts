// What the Inbox took (issue 33): the content hash of every file a watched folder brought in, per profile, so
// the same bytes never arrive twice. Stored in the session database (table inbox_taken, schema.ts migration 4)
// and written inside the transaction that records the file in its conversation (SessionStore.addAttachment's
// `also`), so after a crash at any moment a file is either recorded with its hash or not at all: never stored
// twice, never recorded without its arrival row.
import type { Queries } from './db/connection.js';

export interface TakenKey {
  profile: string;
  /** SHA-256, hex. */
  hash: string;
}

/** Note `key` as taken; beyond `keep` hashes the oldest are forgotten. Runs inside the caller's transaction. */
export async function recordTaken(q: Queries, key: TakenKey, keep: number): Promise<void> {
  await q.run('INSERT OR IGNORE INTO inbox_taken (profile, hash) VALUES (?, ?)', [key.profile, key.hash]);
  await forgetBeyond(q, keep);
}

async function forgetBeyond(q: Queries, keep: number): Promise<void> {
  await q.run('DELETE FROM inbox_taken WHERE id <= (SELECT MAX(id) FROM inbox_taken) - ?', [keep]);
}

/** Whether `key` was taken before. */
export async function wasTaken(q: Queries, key: TakenKey): Promise<boolean> {
  return (await q.get('SELECT 1 AS x FROM inbox_taken WHERE profile = ? AND hash = ?', [key.profile, key.hash])) !== undefined;
}

/** Every remembered hash, the oldest first (the watcher's memory at start). */
export function takenKeys(q: Queries): Promise<TakenKey[]> {
  return q.all<TakenKey>('SELECT profile, hash FROM inbox_taken ORDER BY id');
}

/** The hashes an older Satchel kept in inbox.json (`profile:hash`), moved in once, in their order. */
export async function importTaken(q: Queries, keys: readonly TakenKey[], keep: number): Promise<void> {
  for (const key of keys) await q.run('INSERT OR IGNORE INTO inbox_taken (profile, hash) VALUES (?, ?)', [key.profile, key.hash]);
  await forgetBeyond(q, keep);
}
