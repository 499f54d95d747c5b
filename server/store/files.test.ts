// Placement (files.ts): mkdirInside and placeUnique work through held directories, so a directory swapped for
// a symlink between "checked" and "written" cannot send a file outside. names.ts has its own tests.
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpError, ValueError } from '../core/errors.js';
import { AnchoredDir } from './anchored.js';
import { ensureDir, mkdirInside, placeUnique, removeCreatedDirs } from './files.js';

let tmp: string;
let root: string;
let outside: string;
let staged: string;
const errors = { exists: (n: string) => `exists: ${n}`, rejected: (n: string): [number, string] => [403, `rejected: ${n}`] };

beforeEach(async () => {
  tmp = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'satchel-files-')));
  root = path.join(tmp, 'root');
  outside = path.join(tmp, 'outside');
  await fsp.mkdir(root);
  await fsp.mkdir(outside);
  staged = path.join(tmp, 'staged.bin');
  await fsp.writeFile(staged, 'staged');
});
afterEach(async () => {
  await fsp.rm(tmp, { recursive: true, force: true });
});

describe('mkdirInside', () => {
  it('creates missing directories, reports them, and follows a symlink only while it stays inside', async () => {
    await fsp.mkdir(path.join(root, 'real'));
    await fsp.symlink(path.join(root, 'real'), path.join(root, 'alias'));
    await fsp.symlink(outside, path.join(root, 'out'));
    const created: string[] = [];
    const dir = await mkdirInside(root, path.join(root, 'alias', 'a', 'b'), created);
    expect(dir.path).toBe(path.join(root, 'real', 'a', 'b'));
    await dir.close();
    expect(created).toEqual([path.join(root, 'real', 'a'), path.join(root, 'real', 'a', 'b')]);
    const escaped = await mkdirInside(root, path.join(root, 'out', 'x')).catch((e: unknown) => e);
    expect(escaped).toBeInstanceOf(ValueError);
    expect((escaped as Error).message).toBe('Path escapes its root');
    await expect(mkdirInside(root, path.join(tmp, 'elsewhere'))).rejects.toThrow('Path escapes its root');
    expect(await fsp.readdir(outside)).toEqual([]);

    await removeCreatedDirs(root, created);
    expect(await fsp.readdir(path.join(root, 'real'))).toEqual([]);
  });
});

describe('ensureDir', () => {
  it('makes a missing folder with its parents and its mode, and leaves an existing one as it is', async () => {
    const deep = path.join(tmp, 'a', 'b', 'staging');
    await ensureDir(deep, 0o700);
    expect((await fsp.stat(deep)).mode & 0o777).toBe(0o700);
    await fsp.writeFile(path.join(deep, 'kept'), 'x');
    await ensureDir(deep, 0o700);
    expect(await fsp.readdir(deep)).toEqual(['kept']);
  });
});

describe('placeUnique', () => {
  it('de-duplicates, and places into the directory it holds even after that directory is swapped for a symlink', async () => {
    const dir = await mkdirInside(root, path.join(root, 'sub'));
    try {
      expect(await placeUnique(staged, dir, 'a.txt', errors)).toEqual({ name: 'a.txt', path: path.join(root, 'sub', 'a.txt') });
      // Another process moves the directory away and puts a symlink to outside at its name.
      await fsp.rename(path.join(root, 'sub'), path.join(root, 'moved'));
      await fsp.symlink(outside, path.join(root, 'sub'));
      await fsp.writeFile(path.join(outside, 'b.txt'), 'outside');
      const placed = await placeUnique(staged, dir, 'b.txt', errors);
      expect(placed.name).toBe('b.txt');
      expect((await fsp.readdir(path.join(root, 'moved'))).sort()).toEqual(['a.txt', 'b.txt']);
      expect(await fsp.readFile(path.join(root, 'moved', 'b.txt'), 'utf8')).toBe('staged');
      expect(await fsp.readdir(outside)).toEqual(['b.txt']);
      expect(await fsp.readFile(path.join(outside, 'b.txt'), 'utf8')).toBe('outside');
    } finally {
      await dir.close();
    }
  });

  it('gives concurrent placements of one name distinct names, around a file already there', async () => {
    const dir = await mkdirInside(root, path.join(root, 'many'));
    try {
      await fsp.writeFile(path.join(root, 'many', 'a-1.txt'), 'not ours');
      const stagedCopies = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const copy = path.join(tmp, `staged-${i}`);
          await fsp.writeFile(copy, `upload ${i}`);
          return copy;
        }),
      );
      const placed = await Promise.all(stagedCopies.map((copy) => placeUnique(copy, dir, 'a.txt', errors)));
      const names = placed.map((p) => p.name);
      expect(new Set(names).size).toBe(20);
      expect(names).not.toContain('a-1.txt');
      expect(await fsp.readFile(path.join(root, 'many', 'a-1.txt'), 'utf8')).toBe('not ours');
      for (const [i, p] of placed.entries()) expect(await fsp.readFile(p.path, 'utf8')).toBe(`upload ${i}`);
    } finally {
      await dir.close();
    }
  });

  it('maps an OS refusal to the caller’s status and text', async () => {
    const dir = await mkdirInside(root, path.join(root, 'gone'));
    try {
      await fsp.rmdir(path.join(root, 'gone'));
      const err = await placeUnique(staged, dir, 'x.txt', errors).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HttpError);
      expect(err).toMatchObject({ status: 403, message: 'rejected: x.txt' });
    } finally {
      await dir.close();
    }
  });

  it('createFirst: a taken name (a file, a symlink to outside) moves on to the next without a look first, and nothing is followed', async () => {
    const dir = await mkdirInside(root, path.join(root, 'direct'));
    const looked = vi.spyOn(AnchoredDir.prototype, 'lstat');
    try {
      await fsp.writeFile(path.join(root, 'direct', 'a.txt'), 'not ours');
      await fsp.symlink(path.join(outside, 'a-1.txt'), path.join(root, 'direct', 'a-1.txt'));
      const placed = await placeUnique(staged, dir, 'a.txt', errors, { createFirst: true });
      expect(placed).toEqual({ name: 'a-2.txt', path: path.join(root, 'direct', 'a-2.txt') });
      expect(await fsp.readFile(placed.path, 'utf8')).toBe('staged');
      expect(await fsp.readFile(path.join(root, 'direct', 'a.txt'), 'utf8')).toBe('not ours');
      expect(await fsp.readdir(outside)).toEqual([]);
      // The destination is tried by the exclusive create alone: no lstat of it, on the thread pool, per upload.
      expect(looked).not.toHaveBeenCalled();
    } finally {
      looked.mockRestore();
      await dir.close();
    }
  });
});
