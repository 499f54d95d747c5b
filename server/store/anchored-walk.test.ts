// walkFiles: the one listing of an extracted archive (the agent, the chip and MCP all use it).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnchoredDir } from './anchored.js';
import { MAX_WALK_DEPTH, walkFiles } from './anchored-walk.js';

let tmp: string;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-walk-')));
});
afterEach(() => fs.rm(tmp, { recursive: true, force: true }));

async function listed(dir: string, max = 100, above: string[] = []) {
  const anchored = await AnchoredDir.open(dir);
  try {
    return await walkFiles(anchored, max, above);
  } finally {
    await anchored.close();
  }
}

describe('walkFiles', () => {
  it('lists files depth first in code point order, with their sizes, and no hidden name or symlink', async () => {
    await fs.mkdir(path.join(tmp, 'B', '.hidden'), { recursive: true });
    await fs.mkdir(path.join(tmp, 'a'));
    await fs.writeFile(path.join(tmp, 'a', 'x.txt'), 'xx');
    await fs.writeFile(path.join(tmp, 'B', 'y.txt'), 'y');
    await fs.writeFile(path.join(tmp, 'B', '.hidden', 'h.txt'), 'h');
    await fs.writeFile(path.join(tmp, '.env'), 'K=1');
    await fs.writeFile(path.join(tmp, 'c.txt'), '');
    await fs.symlink('/etc/hostname', path.join(tmp, 'link.txt'));
    await fs.symlink(path.join(tmp, 'a'), path.join(tmp, 'dirlink'));
    expect(await listed(tmp)).toEqual({
      files: [
        { path: 'B/y.txt', size: 1 },
        { path: 'a/x.txt', size: 2 },
        { path: 'c.txt', size: 0 },
      ],
      total: 3,
      complete: true,
    });
  });

  it('names the first `listed` files and counts the rest', async () => {
    for (let i = 0; i < 5; i++) await fs.writeFile(path.join(tmp, `f${i}`), '');
    const out = await listed(tmp, 2);
    expect(out.files.map((f) => f.path)).toEqual(['f0', 'f1']);
    expect(out).toMatchObject({ total: 5, complete: true });
  });

  it('knows a credential store across the folder boundary (`above`)', async () => {
    await fs.writeFile(path.join(tmp, 'hosts.yml'), 'oauth_token: x');
    expect((await listed(tmp, 100, ['.config', 'gh'])).files).toEqual([]);
    expect((await listed(tmp, 100, ['.config', 'other'])).files.map((f) => f.path)).toEqual(['hosts.yml']);
  });

  it(`goes ${MAX_WALK_DEPTH} folders deep and says it stopped there`, async () => {
    const deepest = path.join(tmp, ...Array.from({ length: MAX_WALK_DEPTH + 1 }, (_, i) => `d${i}`));
    await fs.mkdir(deepest, { recursive: true });
    await fs.writeFile(path.join(path.dirname(deepest), 'kept.txt'), 'k');
    await fs.writeFile(path.join(deepest, 'lost.txt'), 'l');
    const out = await listed(tmp);
    expect(out.files.map((f) => f.path.split('/').at(-1))).toEqual(['kept.txt']);
    expect(out.files[0]!.path.split('/')).toHaveLength(MAX_WALK_DEPTH + 1);
    expect(out).toMatchObject({ total: 1, complete: false });
  });
});
