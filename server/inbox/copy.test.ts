// Reading a settled file out of a watched folder (copy.ts), on real files: the bytes and their hash, and each
// refusal (changed since it settled, a hard link, a symlink, the folder replaced) with nothing read.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyIfUnchanged } from './copy.js';
import { sigOf } from './folder.js';
import { watchedFolder, type WatchedForTest } from './testing/watching.js';

// `t.dir` is watched; `t.root` around it holds staging and the "key", outside the watch.
let t: WatchedForTest;
beforeEach(async () => {
  t = await watchedFolder();
});

afterEach(() => t.done());

async function settledSig(name: string) {
  return sigOf(await fs.lstat(path.join(t.dir, name)));
}

describe('copyIfUnchanged', () => {
  it('copies the bytes into a private staging file and hashes them', async () => {
    const bytes = Buffer.from('the invoice, all of it\n');
    await fs.writeFile(path.join(t.dir, 'a.txt'), bytes);
    const staged = path.join(t.root, 'staged');
    const read = await copyIfUnchanged(t.folder, t.folder.held!, 'a.txt', await settledSig('a.txt'), staged);
    expect(read).toEqual({ hash: createHash('sha256').update(bytes).digest('hex') });
    expect(await fs.readFile(staged)).toEqual(bytes);
    expect((await fs.stat(staged)).mode & 0o777).toBe(0o600);
  });

  it('says a file written to since it settled changed', async () => {
    await fs.writeFile(path.join(t.dir, 'a.txt'), 'first');
    const sig = await settledSig('a.txt');
    await fs.appendFile(path.join(t.dir, 'a.txt'), ' and more');
    expect(await copyIfUnchanged(t.folder, t.folder.held!, 'a.txt', sig, path.join(t.root, 'staged'))).toBe('changed');
  });

  it('refuses a hard link and a symlink unread, and a name that is gone', async () => {
    const outside = path.join(t.root, 'id_rsa');
    await fs.writeFile(outside, 'PRIVATE KEY');
    await fs.link(outside, path.join(t.dir, 'linked'));
    expect(await copyIfUnchanged(t.folder, t.folder.held!, 'linked', await settledSig('linked'), path.join(t.root, 's1'))).toEqual({ skip: 'hard_link' });
    await fs.symlink(outside, path.join(t.dir, 'sym'));
    expect(await copyIfUnchanged(t.folder, t.folder.held!, 'sym', await settledSig('sym'), path.join(t.root, 's2'))).toEqual({ skip: 'symlink' });
    expect(await copyIfUnchanged(t.folder, t.folder.held!, 'nothing', { size: 1, mtimeMs: 0, ctimeMs: 0, ino: 0 }, path.join(t.root, 's3'))).toBe('gone');
    // Neither key was read into staging.
    expect((await fs.readdir(t.root)).sort()).toEqual(['id_rsa', 'watched']);
  });

  it('reads nothing once the t.folder at the path is not the one held', async () => {
    await fs.writeFile(path.join(t.dir, 'a.txt'), 'secret');
    const sig = await settledSig('a.txt');
    await fs.rename(t.dir, path.join(t.root, 'moved'));
    await fs.mkdir(t.dir);
    await fs.writeFile(path.join(t.dir, 'a.txt'), 'secret');
    expect(await copyIfUnchanged(t.folder, t.folder.held!, 'a.txt', sig, path.join(t.root, 'staged'))).toBe('gone');
    await expect(fs.stat(path.join(t.root, 'staged'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
