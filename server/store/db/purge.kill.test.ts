// A purge killed (SIGKILL, a real child process) between its batches (issue 37 finding 3): the conversation stays
// hidden and cannot be restored, the next start finishes the purge, the search index agrees with its rows, and
// nothing of any other conversation is lost.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild } from '../../testing/compile.js';
import { waitUntil } from '../../testing/harness.js';
import { SESSION_DELETE_GRACE_MS, SessionDeletions } from '../../sessions/deletion.js';
import { leftOf, longConversation } from '../../testing/purge-fixtures.js';
import { SESSION_DB_FILE, type Session } from '../sessions.js';
import { Db } from './connection.js';
import { PURGE_ROWS_PER_BATCH } from './purge.js';
import { headerOf, readSession } from './session-rows.js';
import { openStore } from '../../testing/fresh-store.js';

const ROUNDS = 6;
const PURGED = '00000000000a';
const PURGED_MESSAGES = 5_000;
/** The batches the purge takes: the index entries, then the messages, (then one attachment and its mark). */
const BATCHES = Math.ceil((PURGED_MESSAGES + 1) / PURGE_ROWS_PER_BATCH) + Math.ceil(PURGED_MESSAGES / PURGE_ROWS_PER_BATCH);
const CHILD_TIMEOUT_MS = 60_000;

let work: string;
let template: string;
let child: string;
const kept = new Map<string, string>();

const json = (s: Session) => [headerOf(s), s.messages, s.attachments].map((part) => JSON.stringify(part)).join('\n');

/** Run the child purging PURGED in `stateDir`, killed once it has said `batch <after>`; true when it was killed. */
function killedAfter(stateDir: string, after: number): Promise<boolean> {
  const proc = spawn(process.execPath, [child, stateDir, PURGED], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    if (out.includes(`batch ${after}\n`)) proc.kill('SIGKILL');
  });
  const timer = setTimeout(() => proc.kill('SIGKILL'), CHILD_TIMEOUT_MS);
  return new Promise((resolve) =>
    proc.on('exit', (_code, signal) => {
      clearTimeout(timer);
      resolve(signal === 'SIGKILL' && !out.includes('done\n'));
    }),
  );
}

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-purge-kill-'));
  template = path.join(work, 'template');
  await fs.mkdir(template);
  const store = await openStore(template);
  await store.insertAll([longConversation(PURGED, PURGED_MESSAGES), longConversation('00000000000b', 300, 'keepme'), longConversation('00000000000c', 20, 'alsokept')]);
  const other = await store.create({ workspace: '/w', profile: 'default' });
  await store.addMessage(other.session_id, 'a short one', []);
  // Deleted a minute ago: the grace period is over, so the purge is due at once at the next start.
  await store.markDeleted(PURGED, new Date(Date.now() - 60_000));
  for (const s of store.list()) kept.set(s.session_id, json((await store.get(s.session_id))!));
  await store.close();
  child = await bundleChild('server/store/db/purge-child.ts', 'purge-child-');
}, 120_000);

afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
  if (child) await fs.rm(path.dirname(child), { recursive: true, force: true });
});

describe('a purge killed between its batches', () => {
  it(`is finished at the next start, and nothing else is lost (${ROUNDS} kills)`, async () => {
    let partial = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const stateDir = path.join(work, `round-${round}`);
      await fs.cp(template, stateDir, { recursive: true });
      expect(await killedAfter(stateDir, randomInt(1, BATCHES - 1))).toBe(true);
      const file = path.join(stateDir, SESSION_DB_FILE);
      const left = await leftOf(file, PURGED);
      // Killed midway: the record is still there, marked, with part of its rows gone.
      expect(left.sessions).toBe(1);
      if (left.messages < PURGED_MESSAGES || left.search_docs < PURGED_MESSAGES + 2) partial++;

      const store = await openStore(stateDir);
      // Hidden, and not to be brought back half purged.
      expect(await store.get(PURGED)).toBeUndefined();
      const deletions = new SessionDeletions(stateDir, store, SESSION_DELETE_GRACE_MS);
      await expect(deletions.restore(PURGED)).rejects.toMatchObject({ status: 404 });
      deletions.start();
      await waitUntil(async () => store.getDeleted(PURGED) === undefined && (await leftOf(file, PURGED)).sessions === 0, 'the purge is finished at start');
      await deletions.stop();
      await store.close();

      expect(await leftOf(file, PURGED)).toEqual({ sessions: 0, messages: 0, attachments: 0, search_docs: 0, attachment_text_pending: 0 });
      const db = await Db.open(file);
      try {
        await db.run("INSERT INTO search (search) VALUES ('integrity-check')");
        expect((await db.get<{ n: number }>("SELECT count(*) AS n FROM search WHERE search MATCH 'purgeable'"))!.n).toBe(0);
        for (const [id, whole] of kept) expect(json((await readSession(db, id))!)).toBe(whole);
        expect((await db.get<{ n: number }>('SELECT count(*) AS n FROM sessions'))!.n).toBe(kept.size);
      } finally {
        await db.close();
      }
      await fs.rm(stateDir, { recursive: true, force: true });
    }
    // The kills did land with part of the rows gone (not all before the first batch's commit).
    expect(partial).toBeGreaterThan(0);
  }, 240_000);
});
