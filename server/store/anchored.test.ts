// The descriptor-anchored primitives, in both modes: 'proc' (Linux, /proc/self/fd) and 'verify' (the
// after-the-fact checks other platforms get, forced here). A swap is simulated deterministically: the
// directory is moved away and a symlink to outside takes its name between two steps.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnchoredDir, anchorMode, EscapeError, forceAnchorMode, type AnchorMode } from './anchored.js';
import { locateInside, openInside } from './anchored-walk.js';

let tmp: string;
let root: string;
let outside: string;

beforeEach(async () => {
  tmp = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'satchel-anchored-')));
  root = path.join(tmp, 'root');
  outside = path.join(tmp, 'outside');
  await fsp.mkdir(path.join(root, 'sub'), { recursive: true });
  await fsp.mkdir(outside);
  await fsp.writeFile(path.join(outside, 'secret.txt'), 'outside bytes');
});
afterEach(async () => {
  forceAnchorMode(undefined);
  await fsp.rm(tmp, { recursive: true, force: true });
});

/** Move `dir` away (to `<dir>.moved`) and put a symlink to outside at its name. */
async function swapForLink(dir: string): Promise<string> {
  const moved = dir + '.moved';
  await fsp.rename(dir, moved);
  await fsp.symlink(outside, dir);
  return moved;
}

const outsideNames = () => fsp.readdir(outside).then((n) => n.sort());

it('uses /proc/self/fd on Linux', async () => {
  if (process.platform !== 'linux') return;
  expect(await anchorMode()).toBe('proc');
});

describe.each(['proc', 'verify'] as AnchorMode[])('%s mode', (mode) => {
  beforeEach(() => {
    if (mode === 'proc' && process.platform !== 'linux') return;
    forceAnchorMode(mode);
  });

  it('opens a child directory but never a symlink at its name', async () => {
    await fsp.symlink(outside, path.join(root, 'link'));
    const anchor = await AnchoredDir.open(root);
    try {
      const sub = await anchor.openDir('sub');
      expect(sub.path).toBe(path.join(root, 'sub'));
      await sub.close();
      await expect(anchor.openDir('link')).rejects.toMatchObject({ code: expect.stringMatching(/^(ELOOP|ENOTDIR)$/) });
      expect(() => anchor.entry('..')).toThrow(EscapeError);
      expect(() => anchor.entry('a/b')).toThrow(EscapeError);
    } finally {
      await anchor.close();
    }
  });

  it('creates files exclusively and never through a symlink at the name', async () => {
    await fsp.symlink(path.join(outside, 'new.txt'), path.join(root, 'planted.txt'));
    const anchor = await AnchoredDir.open(root);
    try {
      const handle = await anchor.createFile('a.txt', fs.constants.O_WRONLY, 0o644);
      await handle.writeFile('A');
      await handle.close();
      await expect(anchor.createFile('a.txt', fs.constants.O_WRONLY, 0o644)).rejects.toMatchObject({ code: 'EEXIST' });
      await expect(anchor.createFile('planted.txt', fs.constants.O_WRONLY, 0o644)).rejects.toMatchObject({ code: 'EEXIST' });
      expect(await fsp.readFile(path.join(root, 'a.txt'), 'utf8')).toBe('A');
      expect(await outsideNames()).toEqual(['secret.txt']);
    } finally {
      await anchor.close();
    }
  });

  it('a directory swapped for a symlink after it was opened: nothing is created, linked or read outside', async () => {
    const staged = path.join(tmp, 'staged');
    await fsp.writeFile(staged, 'staged bytes');
    const anchor = await AnchoredDir.open(root);
    const sub = await anchor.openDir('sub');
    await anchor.close();
    const moved = await swapForLink(path.join(root, 'sub'));
    await fsp.writeFile(path.join(moved, 'secret.txt'), 'inside bytes');
    try {
      const results = await Promise.allSettled([
        sub.mkdir('made'),
        sub.link(staged, 'linked.txt'),
        sub.createFile('created.txt', fs.constants.O_WRONLY, 0o644).then((h) => h.close()),
        sub.openFile('secret.txt', fs.constants.O_RDONLY).then(async (h) => {
          try {
            return await h.readFile('utf8');
          } finally {
            await h.close();
          }
        }),
      ]);
      // Anchored: everything lands in (and is read from) the moved directory. Verify mode: refused.
      const read = results[3];
      if (mode === 'proc') {
        expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
        expect(read.status === 'fulfilled' && read.value).toBe('inside bytes');
        expect((await fsp.readdir(moved)).sort()).toEqual(['created.txt', 'linked.txt', 'made', 'secret.txt']);
      } else {
        for (const r of results) expect(r.status === 'rejected' && r.reason).toBeTruthy();
        expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof EscapeError).length).toBeGreaterThanOrEqual(3);
      }
      // The one thing verify mode cannot take back is an empty directory made through the swapped path.
      const left = (await outsideNames()).filter((n) => !(mode === 'verify' && n === 'made'));
      expect(left).toEqual(['secret.txt']);
      expect(await fsp.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('outside bytes');
    } finally {
      await sub.close();
    }
  });

  it('removeTree removes a tree without descending through a symlink in it', async () => {
    const tree = path.join(root, 'sub', 'tree');
    await fsp.mkdir(path.join(tree, 'a', 'b'), { recursive: true });
    await fsp.writeFile(path.join(tree, 'a', 'b', 'f.txt'), 'x');
    await fsp.symlink(outside, path.join(tree, 'a', 'out'));
    const anchor = await AnchoredDir.open(path.join(root, 'sub'));
    try {
      await anchor.removeTree('tree');
      await anchor.removeTree('missing');
    } finally {
      await anchor.close();
    }
    expect(fs.existsSync(tree)).toBe(false);
    expect(await outsideNames()).toEqual(['secret.txt']);
  });

  it('openInside follows a symlink that stays inside the root, refuses one that leaves, and can create', async () => {
    await fsp.symlink('sub', path.join(root, 'alias'));
    await fsp.symlink(outside, path.join(root, 'out'));
    await fsp.writeFile(path.join(root, 'file.txt'), 'f');
    const anchor = await AnchoredDir.open(root);
    try {
      const viaAlias = await openInside(anchor, ['alias']);
      expect(viaAlias.path).toBe(path.join(root, 'sub'));
      await viaAlias.close();
      await expect(openInside(anchor, ['out', 'x'], { create: true })).rejects.toBeInstanceOf(EscapeError);
      await expect(openInside(anchor, ['file.txt'])).rejects.toThrow('Not a directory');
      await expect(openInside(anchor, ['nope'])).rejects.toMatchObject({ code: 'ENOENT' });
      const created: string[] = [];
      const deep = await openInside(anchor, ['alias', 'x', 'y'], { create: true, created });
      expect(deep.path).toBe(path.join(root, 'sub', 'x', 'y'));
      expect(created).toEqual([path.join(root, 'sub', 'x'), path.join(root, 'sub', 'x', 'y')]);
      await deep.close();
      expect(await outsideNames()).toEqual(['secret.txt']);
    } finally {
      await anchor.close();
    }
  });

  it('locateInside resolves a final symlink inside, and refuses one to outside', async () => {
    await fsp.writeFile(path.join(root, 'sub', 'real.txt'), 'r');
    await fsp.symlink(path.join(root, 'sub', 'real.txt'), path.join(root, 'alias.txt'));
    await fsp.symlink(path.join(outside, 'secret.txt'), path.join(root, 'leak.txt'));
    const anchor = await AnchoredDir.open(root);
    try {
      const found = await locateInside(anchor, ['alias.txt']);
      expect(found.segments).toEqual(['sub', 'real.txt']);
      expect(found.stat.isFile()).toBe(true);
      await found.parent.close();
      await expect(locateInside(anchor, ['leak.txt'])).rejects.toBeInstanceOf(EscapeError);
    } finally {
      await anchor.close();
    }
  });
});
