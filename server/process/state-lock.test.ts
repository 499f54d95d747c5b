// One owner per state folder (state-lock.ts): the lock is SQLite's, which SQLite also keeps between connections of
// one process, so these run in the test's own process; server/state-folder.test.ts runs two real servers.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alreadyRunningText, claimStateFolder, INSTANCE_FILE, readInstance, StateFolderInUse, STATE_LOCK_FILE, type StateLock } from './state-lock.js';

let dir: string;
const held: StateLock[] = [];
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-state-lock-'));
});
afterEach(async () => {
  await Promise.all(held.splice(0).map((l) => l.release()));
  await fs.rm(dir, { recursive: true, force: true });
});

async function claim(waitMs = 0): Promise<StateLock> {
  const lock = await claimStateFolder(dir, { addressWaitMs: waitMs });
  held.push(lock);
  return lock;
}

describe('claimStateFolder', () => {
  it('refuses a second owner with the first one\'s address, and lets a new one in once the first releases', async () => {
    const first = await claim();
    await first.announce({ url: 'http://127.0.0.1:45678/', token: 'tok-1' });
    const refused = await claim().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(StateFolderInUse);
    expect((refused as Error).message).toBe(`Satchel is already running on this state folder (${dir}): http://127.0.0.1:45678/`);
    expect((refused as StateFolderInUse).instance).toEqual({ url: 'http://127.0.0.1:45678/', token: 'tok-1' });
    await first.release();
    expect(await fs.readdir(dir)).toEqual([STATE_LOCK_FILE]);
    const second = await claim();
    await second.announce({ url: 'http://127.0.0.1:45679/', token: 'tok-2' });
    expect(await readInstance(dir)).toEqual({ url: 'http://127.0.0.1:45679/', token: 'tok-2' });
    expect((await fs.stat(path.join(dir, INSTANCE_FILE))).mode & 0o777).toBe(0o600);
  });

  it('an owner that has not said its address yet: refused as still starting once the wait is over', async () => {
    await claim();
    const started = Date.now();
    await expect(claim(300)).rejects.toThrow(alreadyRunningText(dir, undefined));
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('waits for the address while the owner starts, and names it', async () => {
    const first = await claim();
    setTimeout(() => void first.announce({ url: 'http://127.0.0.1:45680/', token: 'tok' }), 200);
    await expect(claim(5_000)).rejects.toThrow(`Satchel is already running on this state folder (${dir}): http://127.0.0.1:45680/`);
  });

  it('a stale instance file (its owner crashed) names nobody: the next owner removes it at once', async () => {
    await fs.writeFile(path.join(dir, INSTANCE_FILE), JSON.stringify({ url: 'http://127.0.0.1:1/', token: 'old' }));
    await claim();
    expect(await readInstance(dir)).toBeUndefined();
    await expect(claim(0)).rejects.toThrow(alreadyRunningText(dir, undefined));
  });

  it('reads only an instance file Satchel could have written', async () => {
    const lock = await claim();
    await lock.announce({ url: 'http://127.0.0.1:2/', token: 't' });
    const file = path.join(dir, INSTANCE_FILE);
    for (const bad of [
      'not json',
      JSON.stringify({ url: 'https://127.0.0.1:2/', token: 't' }),
      JSON.stringify({ url: 'http://127.0.0.1:2/x?y', token: 't' }),
      JSON.stringify({ url: 'http://u:p@127.0.0.1:2/', token: 't' }),
      JSON.stringify({ url: 'http://127.0.0.1:2/', token: 'a b' }),
      JSON.stringify({ url: 'http://127.0.0.1:2/', token: '' }),
      JSON.stringify({ url: 'http://127.0.0.1:2/', token: 'x'.repeat(5000) }),
    ]) {
      await fs.writeFile(file, bad);
      expect(await readInstance(dir), bad.slice(0, 60)).toBeUndefined();
    }
    await fs.rm(file);
    await fs.symlink(path.join(dir, 'elsewhere.json'), file);
    await fs.writeFile(path.join(dir, 'elsewhere.json'), JSON.stringify({ url: 'http://127.0.0.1:2/', token: 't' }));
    expect(await readInstance(dir), 'a symlink is not followed').toBeUndefined();
  });
});
