// A purge of a long conversation in bounded batches (issue 37 finding 3): another conversation's append is stored
// and answered while the purge runs, every row of the purged one goes with its index entries, and nothing else.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Db } from './db/connection.js';
import { PURGE_ROWS_PER_BATCH } from './db/purge.js';
import { leftOf, longConversation } from '../testing/purge-fixtures.js';
import { SESSION_DB_FILE } from './sessions.js';
import { openStore } from '../testing/fresh-store.js';

/** The conversation purged: as long as one may be, so the purge is many batches. */
const LONG = 10_000;

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-purge-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const NONE = { sessions: 0, messages: 0, attachments: 0, search_docs: 0, attachment_text_pending: 0 };

describe('purging a long conversation', () => {
  it('lets another conversation append between its batches, and leaves nothing of it and everything else', async () => {
    const store = await openStore(dir);
    const other = await store.create({ workspace: '/w', profile: 'default' });
    await store.insert(longConversation('00000000000a', LONG));
    await store.markDeleted('00000000000a');

    const order: string[] = [];
    let batches = 0;
    const purge = store.remove('00000000000a', () => batches++).then(() => order.push('purge'));
    // Asked once the purge is under way: its first batch has been queued before it.
    await new Promise((resolve) => setImmediate(resolve));
    const append = store.addMessage(other.session_id, 'written during the purge', []).then(({ session }) => {
      order.push('append');
      return session;
    });
    const [appended] = await Promise.all([append, purge]);

    // Answered before the purge ended: it did not wait for 10,000 rows to go.
    expect(order).toEqual(['append', 'purge']);
    expect(batches).toBeGreaterThan(LONG / PURGE_ROWS_PER_BATCH);
    expect(appended.messages.map((m) => m.content)).toEqual(['written during the purge']);

    await store.close();
    expect(await leftOf(path.join(dir, SESSION_DB_FILE), '00000000000a')).toEqual(NONE);
    const db = await Db.open(path.join(dir, SESSION_DB_FILE));
    try {
      // The index agrees with its rows, and finds nothing of the purged conversation.
      await db.run("INSERT INTO search (search) VALUES ('integrity-check')");
      expect((await db.get<{ n: number }>("SELECT count(*) AS n FROM search WHERE search MATCH 'purgeable'"))!.n).toBe(0);
      expect((await db.get<{ n: number }>("SELECT count(*) AS n FROM search WHERE search MATCH 'during'"))!.n).toBe(1);
    } finally {
      await db.close();
    }
    const reloaded = await openStore(dir);
    expect(reloaded.list().map((s) => s.session_id)).toEqual([other.session_id]);
    expect((await reloaded.get(other.session_id))!.messages).toHaveLength(1);
    await reloaded.close();
  }, 60_000);
});
