// The WAL after a large write (issue 37 finding 4): back to at most WAL_SIZE_LIMIT_BYTES once the store has been
// idle, not ~100 MiB until Satchel quits; and the idle checkpoint waits for no write.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../../testing/harness.js';
import { SESSION_DB_FILE, SessionStore, type Session } from '../sessions.js';
import { JSON_SESSIONS_DIR } from './import-json.js';
import { WAL_SIZE_LIMIT_BYTES } from './wal.js';
import { openStore } from '../../testing/fresh-store.js';

/** Idle this long, in the test, before the WAL is emptied. */
const IDLE_MS = 1_000;

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-wal-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const walBytes = async () => (await fs.stat(path.join(dir, `${SESSION_DB_FILE}-wal`)).catch(() => ({ size: 0 }))).size;

/** Conversations of about `mib` MiB of text altogether, to write in one go. */
function archive(mib: number): Session[] {
  const text = 'The quick brown fox jumps over the lazy dog while the import runs. '.repeat(15);
  const perSession = 2_000;
  const sessions = Math.ceil((mib * 2 ** 20) / (perSession * text.length));
  const at = '2025-01-01T00:00:00.000Z';
  return Array.from({ length: sessions }, (_, s) => ({
    session_id: (0xa00 + s).toString(16).padStart(12, '0'),
    title: `Imported ${s}`,
    workspace: '/w',
    profile: 'default',
    created_at: at,
    updated_at: at,
    messages: Array.from({ length: perSession }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `${s}/${i} ${text}`, timestamp: 1_700_000_000 + i })),
    attachments: [],
  }));
}

describe('the WAL after a large write', () => {
  it(`is cut back to at most ${WAL_SIZE_LIMIT_BYTES / 2 ** 20} MiB once the store is idle, and a write after it still lands`, async () => {
    // The largest transactions left: an older Satchel's session files moved in at start (import-json.ts).
    await fs.mkdir(path.join(dir, JSON_SESSIONS_DIR));
    for (const s of archive(10)) await fs.writeFile(path.join(dir, JSON_SESSIONS_DIR, `${s.session_id}.json`), JSON.stringify(s));
    const store = new SessionStore(dir, undefined, { idleCheckpointMs: IDLE_MS });
    // The largest the WAL grew while the store loaded: the idle checkpoint may come before load() ends.
    let largest = 0;
    const watch = setInterval(() => void walBytes().then((n) => (largest = Math.max(largest, n))), 5);
    await store.load();
    clearInterval(watch);
    largest = Math.max(largest, await walBytes());
    // The move did fill the WAL past the limit (what the test is about).
    expect(largest).toBeGreaterThan(WAL_SIZE_LIMIT_BYTES);
    await waitUntil(async () => (await walBytes()) <= WAL_SIZE_LIMIT_BYTES, 'the WAL is checkpointed back once idle', 60_000);
    // Still a working store: a write after the checkpoint is stored and read back.
    const s = await store.create({ workspace: '/w', profile: 'default' });
    await store.addMessage(s.session_id, 'after the checkpoint', []);
    await store.close();
    const reloaded = await openStore(dir);
    expect(reloaded.list()).toHaveLength(archive(10).length + 1);
    expect((await reloaded.get(s.session_id))!.messages.map((m) => m.content)).toEqual(['after the checkpoint']);
    await reloaded.close();
  }, 120_000);

  it('stays within the limit through an import, which is written in bounded transactions (db/import-rows.ts)', async () => {
    // Idle checkpoints out of the way: only SQLite's own, between two of the import's transactions, keep it small.
    const store = await openStore(dir, undefined, { idleCheckpointMs: 3_600_000 });
    await store.insertAll(archive(10));
    expect(await walBytes()).toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES);
    expect(store.list()).toHaveLength(archive(10).length);
    await store.close();
  }, 120_000);
});
