// The record of what the Inbox took moves from inbox.json into the database once (issue 33, finding 11): the
// hashes an older Satchel kept there still stop the same bytes from arriving again, and the file is rewritten
// without them.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Db } from '../store/db/connection.js';
import { SESSION_DB_FILE } from '../store/sessions.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import type { InboxCounts } from './watcher.js';

const FAST = { settleMs: 200, pollMs: 50, rescanMs: 300 };
let server: TestServer | undefined;
let tmp: string | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const counts = async (s: TestServer) => ((await (await s.api('/api/inbox/folders')).json()) as { counts: InboxCounts }).counts;

async function until(what: string, probe: () => Promise<boolean>, deadlineMs = 15_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it("inbox.json's hashes are moved into the database once: the same bytes are still a duplicate, before and after a restart", async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-inbox-taken-'));
  const stateDir = path.join(tmp, 'state');
  const dir = path.join(tmp, 'Downloads');
  await fs.mkdir(stateDir, { recursive: true });
  await fs.mkdir(dir);
  const real = await fs.realpath(dir);
  const old = createHash('sha256').update('taken long ago').digest('hex');
  await fs.writeFile(path.join(stateDir, 'inbox.json'), JSON.stringify({ folders: [{ path: real, profile: 'default' }], paused: false, hashes: [`default:${old}`], known: { [real]: {} } }));

  let s = await startTestServer({ stateDir, inbox: FAST });
  server = s;
  // The watcher starts beside the server (app.ts), not before it answers.
  const readStored = async () => JSON.parse(await fs.readFile(path.join(stateDir, 'inbox.json'), 'utf8')) as Record<string, unknown>;
  await until('inbox.json rewritten', async () => (await readStored()).hashes === undefined);
  const stored = await readStored();
  expect(stored.folders).toEqual([{ path: real, profile: 'default' }]);
  const db = await Db.openReadOnly(path.join(stateDir, SESSION_DB_FILE));
  expect(await db.all('SELECT profile, hash FROM inbox_taken')).toEqual([{ profile: 'default', hash: old }]);
  await db.close();

  await fs.writeFile(path.join(dir, 'again.txt'), 'taken long ago');
  await until('the duplicate', async () => (await counts(s)).duplicate === 1);
  expect((await counts(s)).arrived).toBe(0);
  await fs.writeFile(path.join(dir, 'new.txt'), 'new bytes');
  await until('the new file', async () => (await counts(s)).arrived === 1);

  await s.close();
  s = await startTestServer({ stateDir, inbox: FAST });
  server = s;
  // Both hashes are known after the restart: the same bytes under other names are duplicates.
  await fs.writeFile(path.join(dir, 'copy-of-new.txt'), 'new bytes');
  await fs.writeFile(path.join(dir, 'copy-of-old.txt'), 'taken long ago');
  await until('two duplicates', async () => (await counts(s)).duplicate === 2);
  expect((await counts(s)).arrived).toBe(0);
});
