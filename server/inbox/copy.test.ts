// Reading a settled file out of a watched folder (copy.ts), on real files: the bytes and their hash, and each
// refusal (changed since it settled, a hard link, a symlink, the folder replaced) with nothing read.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyIfUnchanged } from './copy.js';
import { closeWatch, holdFolder, newFolder, sigOf, type Folder } from './folder.js';

const noPlaces = { protectedPlaces: { isPlace: () => false } } as unknown as Parameters<typeof holdFolder>[1];

let tmp: string;
let watched: string;
let folder: Folder;

beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-copy-'));
  watched = path.join(tmp, 'watched');
  await fs.mkdir(watched);
  watched = await fs.realpath(watched);
  folder = newFolder(watched, 'settings', 'default');
  folder.real = watched;
  folder.held = await holdFolder(watched, noPlaces);
});

afterEach(async () => {
  closeWatch(folder);
  await fs.rm(tmp, { recursive: true, force: true });
});

async function settledSig(name: string) {
  return sigOf(await fs.lstat(path.join(watched, name)));
}

describe('copyIfUnchanged', () => {
  it('copies the bytes into a private staging file and hashes them', async () => {
    const bytes = Buffer.from('the invoice, all of it\n');
    await fs.writeFile(path.join(watched, 'a.txt'), bytes);
    const staged = path.join(tmp, 'staged');
    const read = await copyIfUnchanged(folder, folder.held!, 'a.txt', await settledSig('a.txt'), staged);
    expect(read).toEqual({ hash: createHash('sha256').update(bytes).digest('hex') });
    expect(await fs.readFile(staged)).toEqual(bytes);
    expect((await fs.stat(staged)).mode & 0o777).toBe(0o600);
  });

  it('says a file written to since it settled changed', async () => {
    await fs.writeFile(path.join(watched, 'a.txt'), 'first');
    const sig = await settledSig('a.txt');
    await fs.appendFile(path.join(watched, 'a.txt'), ' and more');
    expect(await copyIfUnchanged(folder, folder.held!, 'a.txt', sig, path.join(tmp, 'staged'))).toBe('changed');
  });

  it('refuses a hard link and a symlink unread, and a name that is gone', async () => {
    const outside = path.join(tmp, 'id_rsa');
    await fs.writeFile(outside, 'PRIVATE KEY');
    await fs.link(outside, path.join(watched, 'linked'));
    expect(await copyIfUnchanged(folder, folder.held!, 'linked', await settledSig('linked'), path.join(tmp, 's1'))).toEqual({ skip: 'hard_link' });
    await fs.symlink(outside, path.join(watched, 'sym'));
    expect(await copyIfUnchanged(folder, folder.held!, 'sym', await settledSig('sym'), path.join(tmp, 's2'))).toEqual({ skip: 'symlink' });
    expect(await copyIfUnchanged(folder, folder.held!, 'nothing', { size: 1, mtimeMs: 0, ctimeMs: 0, ino: 0 }, path.join(tmp, 's3'))).toBe('gone');
    // Neither key was read into staging.
    expect((await fs.readdir(tmp)).sort()).toEqual(['id_rsa', 'watched']);
  });

  it('reads nothing once the folder at the path is not the one held', async () => {
    await fs.writeFile(path.join(watched, 'a.txt'), 'secret');
    const sig = await settledSig('a.txt');
    await fs.rename(watched, path.join(tmp, 'moved'));
    await fs.mkdir(watched);
    await fs.writeFile(path.join(watched, 'a.txt'), 'secret');
    expect(await copyIfUnchanged(folder, folder.held!, 'a.txt', sig, path.join(tmp, 'staged'))).toBe('gone');
    await expect(fs.stat(path.join(tmp, 'staged'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
