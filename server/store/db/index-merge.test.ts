// The search index's merges in bounded steps (index-merge.ts): FTS5's automerge off at every open, even on an
// index a migration made again, and the steps keeping the segments as few as automerge kept them.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../../testing/harness.js';
import { SESSION_DB_FILE } from '../sessions.js';
import { Db } from './connection.js';
import { applyIndexMergePolicy, INDEX_MERGE_AFTER_WRITES } from './index-merge.js';
import { migrateSchema } from './schema.js';
import { openStore } from '../../testing/fresh-store.js';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-index-merge-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const automerge = async (db: Db) => (await db.get<{ v: number }>("SELECT v FROM search_config WHERE k = 'automerge'"))?.v;

/** The segments on each level of the index, from FTS5's structure record (row 10 of search_data). */
async function segmentsPerLevel(db: Db): Promise<number[]> {
  const block = (await db.get<{ block: Buffer }>('SELECT block FROM search_data WHERE id = 10'))!.block;
  let i = 4;
  // A V2 record (FTS5 3.44+) says so after the cookie, and carries five more numbers per segment.
  const v2 = block.readUInt32BE(4) === 0xff000001;
  if (v2) i += 4;
  const varint = (): number => {
    let n = 0;
    for (let k = 0; k < 9; k++) {
      const byte = block[i++]!;
      n = n * 128 + (byte & 0x7f);
      if (!(byte & 0x80)) break;
    }
    return n;
  };
  const levels = varint();
  varint(); // segments in all
  varint(); // the write counter
  const out: number[] = [];
  for (let level = 0; level < levels; level++) {
    varint(); // a merge under way on this level
    const segments = varint();
    for (let s = 0; s < segments; s++) for (let k = 0; k < (v2 ? 8 : 3); k++) varint();
    out.push(segments);
  }
  return out;
}

describe('the search index merged in bounded steps', () => {
  it('has FTS5 automerge off after every open, also on an index a migration made again', async () => {
    const store = await openStore(dir);
    await store.close();
    const file = path.join(dir, SESSION_DB_FILE);
    let db = await Db.open(file);
    expect(await automerge(db)).toBe(0);
    // A later migration may make the index again: its settings start over from FTS5's defaults.
    await db.exec("DROP TABLE search; CREATE VIRTUAL TABLE search USING fts5 (text, content = 'search_docs', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3'); INSERT INTO search (search) VALUES ('rebuild');");
    expect(await automerge(db)).toBeUndefined();
    await db.close();
    const again = await openStore(dir);
    await again.close();
    db = await Db.open(file);
    expect(await automerge(db)).toBe(0);
    await db.close();
  });

  it('keeps the segments as few as FTS5 merges them to (at most 4 on a level) over many small writes', async () => {
    const db = await Db.open(path.join(dir, SESSION_DB_FILE));
    try {
      await migrateSchema(db);
      await applyIndexMergePolicy(db);
      // Idempotent: a second open writes the same and changes nothing.
      await applyIndexMergePolicy(db);
      expect(await automerge(db)).toBe(0);
      db.mergeIndexAfterWrites();
      await db.transaction((q) => q.run("INSERT INTO sessions (id, updated_at, message_count, attachment_count, header) VALUES ('00000000000a', '', 0, 0, '{}')"));
      const writes = 60 * INDEX_MERGE_AFTER_WRITES;
      for (let i = 0; i < writes; i++) {
        // One transaction each, as appends are: each writes a segment of its own.
        await db.transaction((q) => q.run("INSERT INTO search_docs (session_id, kind, position, text) VALUES ('00000000000a', 'message', ?, ?)", [i, `message ${i} words${i % 17} ${'lorem ipsum '.repeat(20)}`]));
      }
      await waitUntil(async () => !db.merging, 'the merges have ended');
      const levels = await segmentsPerLevel(db);
      // Unmerged there would be one per write (240), or up to FTS5's crisis bound of 16 on a level.
      expect(Math.max(...levels)).toBeLessThanOrEqual(4);
      await db.run("INSERT INTO search (search) VALUES ('integrity-check')");
      expect((await db.get<{ n: number }>("SELECT count(*) AS n FROM search WHERE search MATCH 'words3'"))!.n).toBe(Math.ceil((writes - 3) / 17));
    } finally {
      await db.close();
    }
  });
});
