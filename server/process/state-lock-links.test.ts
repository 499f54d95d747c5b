// A POSIX lock belongs to the process, and closing any descriptor of the locked file drops it: a hard link to
// instance.lock dropped where Satchel reads files (a watched Inbox folder, a workspace, "Open with") must never be
// opened and closed (store/never-open.ts). Whether the lock is still held is asked from another process, since
// SQLite keeps its own view of a lock within one process.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { AnchoredDir } from '../store/anchored.js';
import { claimStateFolder, STATE_LOCK_FILE, type StateLock } from './state-lock.js';

const sqlite3Path = createRequire(import.meta.url).resolve('sqlite3');
let dir: string;
let lock: StateLock | undefined;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-lock-links-'));
});
afterEach(async () => {
  await lock?.release();
  lock = undefined;
  await fs.rm(dir, { recursive: true, force: true });
});

/** What another process gets when it tries the lock: 'busy' while this one holds it. */
function otherProcessTries(file: string): string {
  const script = `
    const sqlite3 = require(${JSON.stringify(sqlite3Path)});
    const db = new sqlite3.Database(${JSON.stringify(file)});
    db.configure('busyTimeout', 0);
    db.exec('PRAGMA journal_mode = OFF; PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT;', (err) => {
      process.stdout.write(err ? (err.code === 'SQLITE_BUSY' ? 'busy' : err.code) : 'taken');
      db.close();
    });`;
  return spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 }).stdout;
}

it('a hard link to instance.lock in a folder Satchel reads is refused unopened, and the state folder stays owned', async () => {
  const state = path.join(dir, 'state');
  lock = await claimStateFolder(state, { addressWaitMs: 0 });
  const lockFile = path.join(state, STATE_LOCK_FILE);
  const watched = path.join(dir, 'Downloads');
  await fs.mkdir(watched);
  await fs.link(lockFile, path.join(watched, 'notes.txt'));
  const folder = await AnchoredDir.open(watched);
  try {
    await expect(folder.openFile('notes.txt', fs.constants.O_RDONLY)).rejects.toMatchObject({ code: 'EACCES' });
  } finally {
    await folder.close();
  }
  expect(otherProcessTries(lockFile)).toBe('busy');

  // The control: an open and close of the same link anywhere in the process drops the lock, which is why.
  await (await fs.open(path.join(watched, 'notes.txt'), 'r')).close();
  expect(otherProcessTries(lockFile)).toBe('taken');
});
