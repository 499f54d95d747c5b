// An import killed (SIGKILL, a real child process) between its bounded transactions (issue 37 finding 3,
// db/import-rows.ts): none of its conversations is shown, whole or in part, the next start removes every row it
// wrote, the search index agrees with its rows, and nothing of the conversation already there is lost. A batching
// that stored each part shown as it went (a conversation per transaction, or a conversation's rows in parts)
// fails here: a kill leaves a conversation listed, or one listed with part of its messages.
// Once every row is stored the conversations are shown a bounded slice per transaction, the first of which commits
// the import: a kill between two of those leaves it committed, and the next start shows every conversation whole.
// Showing them without a commit (each slice on its own) fails here: a kill leaves part of the import shown.
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
import { IMPORT_ROWS_PER_BATCH, IMPORT_SHOWN_PER_BATCH } from './import-rows.js';
import { headerOf, readSession } from './session-rows.js';
import { openStore } from '../../testing/fresh-store.js';

const ROUNDS = 6;
const KEPT = '00000000000b';
/**
 * A long conversation (many transactions of its own), then short ones sharing transactions: enough of them to be
 * shown in three transactions or more.
 */
const IMPORTED = [
  longConversation('00000000000c', 3_000, 'importable'),
  longConversation('00000000000d', 120, 'importable'),
  longConversation('00000000000e', 7, 'importable'),
  ...Array.from({ length: 2 * IMPORT_SHOWN_PER_BATCH + 3 }, (_, i) => longConversation(`0000000010${i.toString(16).padStart(2, '0')}`, 2, 'importable')),
];
const CHILD_TIMEOUT_MS = 60_000;

let work: string;
let template: string;
let child: string;
let sessionsFile: string;
let kept: string;
/** The transactions the whole import takes, of rows and showing conversations (a run to the end says). */
let batches = 0;
let shows = 0;

const json = (s: Session) => [headerOf(s), s.messages, s.attachments].map((part) => JSON.stringify(part)).join('\n');

/** Run the child importing IMPORTED into `stateDir`, killed once it has said `<said> <after>` (never: to the end). */
function run(stateDir: string, after = Infinity, said: 'batch' | 'shown' = 'batch'): Promise<{ killed: boolean; out: string }> {
  const proc = spawn(process.execPath, [child, stateDir, sessionsFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    if (out.includes(`${said} ${after}\n`)) proc.kill('SIGKILL');
  });
  const timer = setTimeout(() => proc.kill('SIGKILL'), CHILD_TIMEOUT_MS);
  return new Promise((resolve) =>
    proc.on('exit', (_code, signal) => {
      clearTimeout(timer);
      resolve({ killed: signal === 'SIGKILL' && !out.includes('done\n'), out });
    }),
  );
}

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-import-kill-'));
  template = path.join(work, 'template');
  await fs.mkdir(template);
  const store = await openStore(template);
  await store.insertAll([longConversation(KEPT, 300, 'keepme')]);
  kept = json((await store.get(KEPT))!);
  await store.close();
  sessionsFile = path.join(work, 'import.json');
  await fs.writeFile(sessionsFile, JSON.stringify(IMPORTED));
  child = await bundleChild('server/store/db/import-rows-child.ts', 'import-rows-child-');
  // One run to the end: how many transactions it takes, and that it is all there after them.
  const whole = path.join(work, 'whole');
  await fs.cp(template, whole, { recursive: true });
  const { out: said } = await run(whole);
  expect(said).toContain('done\n');
  batches = said.split('\n').filter((line) => line.startsWith('batch ')).length;
  shows = said.split('\n').filter((line) => line.startsWith('shown ')).length;
  const store2 = await openStore(whole);
  for (const s of IMPORTED) expect(json((await store2.get(s.session_id))!)).toBe(json(s));
  await store2.close();
}, 180_000);

afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
  if (child) await fs.rm(path.dirname(child), { recursive: true, force: true });
});

describe('an import killed between its transactions', () => {
  it('takes bounded transactions', () => {
    // The long conversation alone needs one per IMPORT_ROWS_PER_BATCH messages.
    expect(batches).toBeGreaterThanOrEqual(Math.ceil(3_000 / IMPORT_ROWS_PER_BATCH));
    // And its conversations are shown a bounded slice at a time, not all in one last transaction.
    expect(shows).toBe(Math.ceil(IMPORTED.length / IMPORT_SHOWN_PER_BATCH));
  });

  it(`shows none of its conversations, and the next start removes what it wrote (${ROUNDS} kills)`, async () => {
    let partial = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const stateDir = path.join(work, `round-${round}`);
      await fs.cp(template, stateDir, { recursive: true });
      expect((await run(stateDir, randomInt(1, batches))).killed).toBe(true);
      const file = path.join(stateDir, SESSION_DB_FILE);
      // Killed midway: some of its rows are on disk.
      if ((await leftOf(file, IMPORTED[0]!.session_id)).messages > 0) partial++;

      const store = await openStore(stateDir);
      for (const s of IMPORTED) expect(await store.get(s.session_id)).toBeUndefined();
      expect(store.list().map((s) => s.session_id)).toEqual([KEPT]);
      // Not to be brought back half imported either.
      const deletions = new SessionDeletions(stateDir, store, SESSION_DELETE_GRACE_MS);
      for (const s of IMPORTED) await expect(deletions.restore(s.session_id)).rejects.toMatchObject({ status: 404 });
      deletions.start();
      await waitUntil(async () => store.listDeleted().length === 0 && (await leftOf(file, IMPORTED[0]!.session_id)).sessions === 0, 'what the import wrote is removed at start');
      await deletions.stop();
      await store.close();

      for (const s of IMPORTED) expect(await leftOf(file, s.session_id)).toEqual({ sessions: 0, messages: 0, attachments: 0, search_docs: 0, attachment_text_pending: 0 });
      const db = await Db.open(file);
      try {
        await db.run("INSERT INTO search (search) VALUES ('integrity-check')");
        expect((await db.get<{ n: number }>("SELECT count(*) AS n FROM search WHERE search MATCH 'importable'"))!.n).toBe(0);
        expect(json((await readSession(db, KEPT))!)).toBe(kept);
        expect((await db.get<{ n: number }>('SELECT count(*) AS n FROM sessions'))!.n).toBe(1);
      } finally {
        await db.close();
      }
      await fs.rm(stateDir, { recursive: true, force: true });
    }
    // The kills did land with part of the rows written (not all before the first transaction's commit).
    expect(partial).toBeGreaterThan(0);
  }, 240_000);

  it(`killed while its conversations are shown, is shown whole at the next start (every slice boundary)`, async () => {
    for (let after = 1; after < shows; after++) {
      const stateDir = path.join(work, `shown-${after}`);
      await fs.cp(template, stateDir, { recursive: true });
      expect((await run(stateDir, after, 'shown')).killed).toBe(true);
      const file = path.join(stateDir, SESSION_DB_FILE);
      const store = await openStore(stateDir);
      // Every imported conversation listed and whole, as a run to the end leaves it; none left to purge.
      expect(store.list().map((s) => s.session_id).sort()).toEqual([KEPT, ...IMPORTED.map((s) => s.session_id)].sort());
      for (const s of IMPORTED) expect(json((await store.get(s.session_id))!)).toBe(json(s));
      expect(store.listDeleted()).toEqual([]);
      expect((await store.search('default', 'importable', 5)).hits.length).toBeGreaterThan(0);
      await store.close();
      const db = await Db.open(file);
      try {
        await db.run("INSERT INTO search (search) VALUES ('integrity-check')");
        expect(json((await readSession(db, KEPT))!)).toBe(kept);
      } finally {
        await db.close();
      }
      await fs.rm(stateDir, { recursive: true, force: true });
    }
  }, 240_000);
});
