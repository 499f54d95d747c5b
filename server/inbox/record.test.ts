// The Inbox watcher's record (record.ts): inbox.json read back as written (folders, pause, the files seen),
// an older Satchel's hashes moved into the database once, and the taken hashes bounded.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { takenKeys } from '../store/inbox-taken.js';
import type { SessionStore } from '../store/sessions.js';
import { freshStore, removeStore } from '../testing/fresh-store.js';
import { InboxRecord, STATE_FILE, type Recorded } from './record.js';

let dir: string;
let store: SessionStore;

/** Each test on a state folder of its own, its database open, removed after. */
const inState = (name: string, test: () => Promise<void>) =>
  it(name, async () => {
    ({ dir, store } = await freshStore('satchel-inbox-record-'));
    try {
      await test();
    } finally {
      await removeStore({ dir, store });
    }
  });

describe('InboxRecord', () => {
  inState('reads back what it wrote: the added folders, the pause and the files seen per folder', async () => {
    const now: Recorded = { folders: [{ path: '/home/me/Downloads', profile: 'work' }], paused: true };
    const first = new InboxRecord(dir, store, () => now);
    expect(await first.load()).toEqual({ folders: [], paused: false, moved: false });
    first.known.set('/home/me/Downloads', new Map([['a.pdf', { size: 3, mtimeMs: 1.5, ctimeMs: 2.5, ino: 7 }]]));
    first.writeSoon();
    await first.flush();
    const again = new InboxRecord(dir, store, () => now);
    expect(await again.load()).toEqual({ ...now, moved: false });
    expect([...again.known.get('/home/me/Downloads')!]).toEqual([['a.pdf', { size: 3, mtimeMs: 1.5, ctimeMs: 2.5, ino: 7 }]]);
  });

  inState("moves an older Satchel's hashes into the database once, and the file is written without them", async () => {
    await fs.writeFile(path.join(dir, STATE_FILE), JSON.stringify({ hashes: ['default:abc', 'work:def', 'no-colon'], paused: false }));
    const record = new InboxRecord(dir, store, () => ({ folders: [], paused: false }));
    expect((await record.load()).moved).toBe(true);
    expect(record.taken('default:abc') && record.taken('work:def')).toBe(true);
    expect(await store.query(takenKeys)).toEqual(expect.arrayContaining([{ profile: 'default', hash: 'abc' }, { profile: 'work', hash: 'def' }]));
    await record.saveNow();
    expect(JSON.parse(await fs.readFile(path.join(dir, STATE_FILE), 'utf8'))).toEqual({ folders: [], paused: false, known: {} });
  });

  inState('starts afresh from a record that is not JSON', async () => {
    await fs.writeFile(path.join(dir, STATE_FILE), '{ not json');
    expect(await new InboxRecord(dir, store, () => ({ folders: [], paused: false })).load()).toEqual({ folders: [], paused: false, moved: false });
  });
});
