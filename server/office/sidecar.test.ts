// The one reader and writer of Office sidecars: through the held folder, never through a symlink, never half.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AnchoredDir } from '../store/anchored.js';
import { buildDocx, wPara } from './testing/fixtures.js';
import { sidecarFor } from './testing/sidecar.js';
import { readSidecar, writeSidecar } from './sidecar.js';

let tmp: string;
let dir: AnchoredDir;
beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-sidecar-')));
  dir = await AnchoredDir.open(tmp);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await dir.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('writing', () => {
  it("an upload's sidecar is never seen half-written at its name", async () => {
    const file = path.join(tmp, 'a.docx');
    await fs.writeFile(file, await buildDocx(wPara('whole words')));
    const probe = await fs.open(file, 'r');
    const proto = Object.getPrototypeOf(probe) as { writeFile: (...args: unknown[]) => Promise<void> };
    await probe.close();
    const seen: string[] = [];
    const real = proto.writeFile;
    vi.spyOn(proto, 'writeFile').mockImplementation(async function (this: fs.FileHandle, ...args: unknown[]) {
      // While the bytes go in, the sidecar's name must not lead to them: a reader there would get part of them.
      seen.push(await fs.readFile(`${file}.md`, 'utf8').catch((err: NodeJS.ErrnoException) => err.code!));
      return real.apply(this, args);
    });
    const sidecar = await sidecarFor(file, 'docx');
    expect(seen).toEqual(['ENOENT']);
    expect(await fs.readFile(sidecar.path, 'utf8')).toBe('whole words\n');
    expect((await fs.readdir(tmp)).sort()).toEqual(['a.docx', 'a.docx.md']);
  });

  it('replaces a symlink at the name when asked to, never writing through it, and leaves no temporary file', async () => {
    await fs.writeFile(path.join(tmp, 'outside.md'), 'OUTSIDE');
    await fs.symlink(path.join(tmp, 'outside.md'), path.join(tmp, 'a.docx.md'));
    await expect(writeSidecar(dir, 'a.docx', Buffer.from('new'), { replace: false })).rejects.toMatchObject({ code: 'EEXIST' });
    expect((await fs.lstat(path.join(tmp, 'a.docx.md'))).isSymbolicLink()).toBe(true);
    await writeSidecar(dir, 'a.docx', Buffer.from('new'), { replace: true });
    expect((await fs.lstat(path.join(tmp, 'a.docx.md'))).isFile()).toBe(true);
    expect(await fs.readFile(path.join(tmp, 'a.docx.md'), 'utf8')).toBe('new');
    expect(await fs.readFile(path.join(tmp, 'outside.md'), 'utf8')).toBe('OUTSIDE');
    expect((await fs.readdir(tmp)).sort()).toEqual(['a.docx.md', 'outside.md']);
  });
});

describe('reading', () => {
  it('reads at most maxBytes and tells the whole size', async () => {
    await fs.writeFile(path.join(tmp, 'a.docx.md'), 'abcdef');
    const read = await readSidecar(dir, 'a.docx', 4);
    expect(read && { text: read.bytes.toString(), size: read.size }).toEqual({ text: 'abcd', size: 6 });
  });

  it('finds none behind a symlink, a folder, or a FIFO (without waiting for a writer)', async () => {
    await fs.writeFile(path.join(tmp, 'outside.md'), 'OUTSIDE');
    await fs.symlink(path.join(tmp, 'outside.md'), path.join(tmp, 'l.docx.md'));
    await fs.mkdir(path.join(tmp, 'd.docx.md'));
    execFileSync('mkfifo', [path.join(tmp, 'f.docx.md')]);
    for (const name of ['l.docx', 'd.docx', 'f.docx', 'missing.docx']) expect(await readSidecar(dir, name, 100)).toBeUndefined();
  });
});
