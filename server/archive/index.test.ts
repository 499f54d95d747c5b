import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Minipass } from 'minipass';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnchoredDir } from '../store/anchored.js';
import { ValueError } from '../core/errors.js';
import {
  EXTRACT_CHUNK_BYTES,
  MAX_ARCHIVE_MEMBERS,
  allocateExtractionDir,
  archiveKind,
  archiveStem,
  maxExtractedBytes,
} from './index.js';
import { memberSegments } from './names.js';
import { MemberWriter } from './safe-write.js';
import { makeSandbox, type Sandbox } from './testing/fixtures.js';

describe('constants', () => {
  it('match section 8', () => {
    expect(MAX_ARCHIVE_MEMBERS).toBe(10000);
    expect(EXTRACT_CHUNK_BYTES).toBe(65536);
  });
});

describe('archiveKind', () => {
  it.each([
    ['a.zip', 'zip'],
    ['A.ZIP', 'zip'],
    ['a.tar', 'tar'],
    ['a.tar.gz', 'tar.gz'],
    ['a.TGZ', 'tar.gz'],
    ['a.tar.bz2', 'tar.bz2'],
    ['a.tbz2', 'tar.bz2'],
    ['a.Tar.Xz', 'tar.xz'],
    ['a.txz', 'tar.xz'],
  ])('%s → %s', (name, kind) => {
    expect(archiveKind(name)).toBe(kind);
  });
  it.each(['a.gz', 'a.rar', 'a.7z', 'a.tar.zst', 'a.tbz', 'zip', 'a.zip.txt', ''])('%s is unsupported', (name) => {
    expect(archiveKind(name)).toBeNull();
  });
});

describe('archiveStem', () => {
  it.each([
    ['pack.tar.gz', 'pack.tar'],
    ['pack.tgz', 'pack'],
    ['pack.zip', 'pack'],
    ['my.files.tar.xz', 'my.files.tar'],
    ['.zip', '.zip'],
    ['noext', 'noext'],
  ])('%s → %s', (name, stem) => {
    expect(archiveStem(name)).toBe(stem);
  });
});

describe('maxExtractedBytes', () => {
  const cap = 100 * 1024 * 1024;
  it('defaults to ten times the upload cap', () => {
    expect(maxExtractedBytes(cap, {})).toBe(10 * cap);
  });
  it.each([
    ['5', 5 * 1024 * 1024],
    [' 2.5 ', 2.5 * 1024 * 1024],
    ['.5', 512 * 1024],
    ['3.', 3 * 1024 * 1024],
  ])('SATCHEL_WEBUI_MAX_EXTRACTED_MB=%j', (raw, expected) => {
    expect(maxExtractedBytes(cap, { SATCHEL_WEBUI_MAX_EXTRACTED_MB: raw })).toBe(expected);
  });
  it.each(['0', '-5', 'abc', '', '  ', '1e3', '0x10', 'Infinity', 'NaN', '5MB'])('ignores %j', (raw) => {
    expect(maxExtractedBytes(cap, { SATCHEL_WEBUI_MAX_EXTRACTED_MB: raw })).toBe(10 * cap);
  });
  it('reads process.env on each call', () => {
    const saved = process.env.SATCHEL_WEBUI_MAX_EXTRACTED_MB;
    try {
      process.env.SATCHEL_WEBUI_MAX_EXTRACTED_MB = '1';
      expect(maxExtractedBytes(cap)).toBe(1024 * 1024);
      process.env.SATCHEL_WEBUI_MAX_EXTRACTED_MB = '2';
      expect(maxExtractedBytes(cap)).toBe(2 * 1024 * 1024);
    } finally {
      if (saved === undefined) delete process.env.SATCHEL_WEBUI_MAX_EXTRACTED_MB;
      else process.env.SATCHEL_WEBUI_MAX_EXTRACTED_MB = saved;
    }
  });
});

describe('memberSegments', () => {
  it.each([
    ['a/b.txt', ['a', 'b.txt']],
    ['./a//b/./c', ['a', 'b', 'c']],
    ['a/../b', ['b']],
    ['a\\b', ['a', 'b']],
    ['dir/', ['dir']],
    ['./', []],
    ['..foo', ['..foo']],
    ['x/ab:c', ['x', 'ab:c']],
  ])('%j → %j', (name, segments) => {
    expect(memberSegments('zip', name, 'linux')).toEqual(segments);
  });
  it.each(['../x', '/x', 'C:x', 'c:\\x', '..\\x', 'a/../../x', '..', 'a\0b', '\\\\server\\share\\x'])('blocks %j', (name) => {
    expect(() => memberSegments('tar', name, 'linux')).toThrow(ValueError);
    expect(() => memberSegments('tar', name, 'linux')).toThrow(/^Tar-slip blocked: /);
  });
  it('blocks NTFS alternate data streams on Windows only', () => {
    expect(() => memberSegments('zip', 'x/ab:c', 'win32')).toThrow('Zip-slip blocked: x/ab:c');
  });
});

describe('allocateExtractionDir', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  it('creates <base>/<stem> first, then <stem>_<3 digits>', async () => {
    const first = await allocateExtractionDir(sb.base, 'pack.tar.gz');
    expect(first).toBe(path.join(sb.base, 'pack.tar'));
    const second = await allocateExtractionDir(sb.base, 'pack.tar.gz');
    expect(path.dirname(second)).toBe(sb.base);
    expect(path.basename(second)).toMatch(/^pack\.tar_\d{3}$/);
    expect(fs.statSync(first).isDirectory() && fs.statSync(second).isDirectory()).toBe(true);
  });

  it('does not reuse an existing file or directory, nor follow a symlink at the name', async () => {
    await fsp.symlink(sb.outside, path.join(sb.base, 'pack'));
    const dir = await allocateExtractionDir(sb.base, 'pack.zip');
    expect(path.basename(dir)).toMatch(/^pack_\d{3}$/);
    expect(await fsp.readdir(sb.outside)).toEqual([]);
  });

  it('never names the base or its parent for a dots stem', async () => {
    const dir = await allocateExtractionDir(sb.base, '...zip');
    expect(path.dirname(dir)).toBe(sb.base);
    expect(path.basename(dir)).toMatch(/^\.\._\d{3}$/);
  });

  it('gives up with the exact text when every name is taken', async () => {
    await fsp.mkdir(path.join(sb.base, 'full'));
    for (let i = 0; i < 1000; i++) await fsp.mkdir(path.join(sb.base, `full_${String(i).padStart(3, '0')}`));
    const err = await allocateExtractionDir(sb.base, 'full.zip').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValueError);
    expect((err as Error).message).toBe('Could not allocate a unique extraction directory');
    expect((await fsp.readdir(sb.base)).length).toBe(1001);
  });
});

describe('MemberWriter', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await makeSandbox();
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  async function* chunks(sizes: number[]): AsyncGenerator<Buffer> {
    for (const [i, size] of sizes.entries()) yield Buffer.alloc(size, i + 1);
  }

  /** A writer into a fresh extraction directory of the sandbox, as extractArchive makes one. */
  async function writerFor(maxBytes: number): Promise<{ dest: string; writer: MemberWriter; done: () => Promise<void> }> {
    const dest = await allocateExtractionDir(sb.base, 'w.zip');
    const anchor = await AnchoredDir.open(dest);
    const writer = new MemberWriter(anchor, 'w', { maxBytes });
    return { dest, writer, done: async () => (await writer.close(), await anchor.close()) };
  }

  it('coalesces small chunks, counts real bytes and lists files relative to base', async () => {
    const { dest, writer, done } = await writerFor(1 << 20);
    expect(await writer.write(['a', 'b.bin'], () => chunks([100, 70_000, 1]))).toBe(true);
    expect(writer.bytesWritten).toBe(70_101);
    const data = fs.readFileSync(path.join(dest, 'a', 'b.bin'));
    expect(data.length).toBe(70_101);
    expect(data[99]).toBe(1);
    expect(data[100]).toBe(2);
    expect(data[70_100]).toBe(3);
    expect(writer.files).toEqual(['w/a/b.bin']);
    await done();
  });

  it('removes a partial file when the cap is hit mid-member', async () => {
    const { dest, writer, done } = await writerFor(100_000);
    await expect(writer.write(['big.bin'], () => chunks([65_536, 65_536]))).rejects.toThrow('Extraction too large (max 100000 bytes). Possible zip bomb.');
    expect(fs.existsSync(path.join(dest, 'big.bin'))).toBe(false);
    expect(writer.files).toEqual([]);
    await done();
  });

  it('never writes through a symlink planted at a parent or at the file name', async () => {
    const { dest, writer, done } = await writerFor(1 << 20);
    await fsp.symlink(sb.outside, path.join(dest, 'planted'));
    await fsp.symlink(path.join(sb.outside, 'target'), path.join(dest, 'file'));
    expect(await writer.write(['planted', 'x'], () => chunks([10]))).toBe(false);
    expect(await writer.write(['file'], () => chunks([10]))).toBe(false);
    expect(await fsp.readdir(sb.outside)).toEqual([]);
    await done();
  });

  it('fails, instead of waiting for ever, when the engine destroys a member stream while a chunk is written', async () => {
    // node-tar hands over minipass streams; one destroyed between two reads never answers the next read
    // (an aborted tar extraction used to hang this way, holding the request and its file handle).
    const { dest, writer, done } = await writerFor(1 << 20);
    const member = new Minipass<Buffer>();
    member.write(Buffer.alloc(EXTRACT_CHUNK_BYTES + 10, 1));
    member.once('data', () => setImmediate(() => member.destroy()));
    const outcome = await Promise.race([
      writer.write(['cut.bin'], () => member).then(
        () => 'resolved',
        (err: Error) => err.message,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5_000)),
    ]);
    expect(outcome).toBe('Archive member stream was destroyed');
    expect(fs.existsSync(path.join(dest, 'cut.bin'))).toBe(false);
    await done();
  });

  it('keeps writing into its own directory after that directory is swapped for a symlink to outside', async () => {
    const { dest, writer, done } = await writerFor(1 << 20);
    expect(await writer.write(['sub', 'one.txt'], () => chunks([3]))).toBe(true);
    // Another process moves the directory away and leaves a symlink to outside in its place.
    const moved = path.join(sb.base, 'moved');
    await fsp.rename(path.join(dest, 'sub'), moved);
    await fsp.symlink(sb.outside, path.join(dest, 'sub'));
    // The next member of `sub/` goes where `sub` really is now, or nowhere; never outside.
    await writer.write(['sub', 'two.txt'], () => chunks([3]));
    expect(await writer.write(['sub', 'deeper', 'three.txt'], () => chunks([3]))).toBe(false);
    await done();
    expect(await fsp.readdir(sb.outside)).toEqual([]);
    expect((await fsp.readdir(moved)).sort()).toEqual(['one.txt', 'two.txt']);
  });
});
