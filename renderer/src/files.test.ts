import { describe, expect, it } from 'vitest';
import { dirOf, joinPath, MAX_PICKED_FILES, TooManyFiles, walkEntries, type EntryLike } from './files.js';

function fileEntry(name: string, content = name): EntryLike {
  return { isFile: true, isDirectory: false, name, file: (ok) => ok(new File([content], name)) };
}

/** A directory whose reader hands out entries in batches, like Chromium's (100 at a time). */
function dirEntry(name: string, children: EntryLike[], batch = 2): EntryLike {
  return {
    isFile: false,
    isDirectory: true,
    name,
    createReader() {
      let i = 0;
      return {
        readEntries(ok) {
          const out = children.slice(i, i + batch);
          i += batch;
          setTimeout(() => ok(out), 0);
        },
      };
    },
  };
}

describe('walkEntries', () => {
  it('walks nested folders through every readEntries batch', async () => {
    const tree = dirEntry('proj', [fileEntry('a.txt'), fileEntry('b.txt'), dirEntry('src', [fileEntry('c.ts'), dirEntry('empty', [])]), fileEntry('d.md')]);
    const out = await walkEntries([tree, fileEntry('loose.bin')]);
    expect(out.map((p) => p.relativePath)).toEqual(['proj/a.txt', 'proj/b.txt', 'proj/src/c.ts', 'proj/d.md', 'loose.bin']);
    expect(await out[2]?.file.text()).toBe('c.ts');
  });

  it('refuses a drop with too many files', async () => {
    const many = Array.from({ length: MAX_PICKED_FILES + 1 }, (_, i) => fileEntry(`f${i}`));
    await expect(walkEntries([dirEntry('big', many, 1000)])).rejects.toBeInstanceOf(TooManyFiles);
  });

  it('propagates a read error', async () => {
    const bad: EntryLike = { isFile: true, isDirectory: false, name: 'x', file: (_ok, fail) => fail(new Error('gone')) };
    await expect(walkEntries([bad])).rejects.toThrow('gone');
  });
});

describe('paths', () => {
  it('splits and joins workspace-relative paths', () => {
    expect(dirOf('a/b/c.txt')).toBe('a/b');
    expect(dirOf('c.txt')).toBe('');
    expect(joinPath('', 'x')).toBe('x');
    expect(joinPath('a/', '/b')).toBe('a/b');
    expect(joinPath('a', '')).toBe('a');
  });
});
