// staged-file.ts: one file part written to its staging file in writes of STAGE_WRITE_BYTES, the bytes exact, the
// source held back while the disk lags, and the promise settled only once the descriptor is closed, whatever failed.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PrematureCloseError, STAGE_GATHER_BUDGET_BYTES, STAGE_MIN_WRITE_BYTES, STAGE_WRITE_BYTES, stageWriteBytes, writeStaged, type OpenFile } from './staged-file.js';

const KIB = 1024;
/** How long the 32 lockstep parts may take to take in every chunk on a loaded machine's disk. */
const DRAIN_DEADLINE_MS = 30_000;
let dir: string;

beforeEach(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'satchel-staged-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fsp.rm(dir, { recursive: true, force: true });
});

/** `bytes` of a pattern no two positions of a 64 KiB window share, in chunks of `chunk` bytes (a socket's). */
function patterned(bytes: number): Buffer {
  const buf = Buffer.alloc(bytes);
  for (let i = 0; i + 4 <= bytes; i += 4) buf.writeUInt32LE((i * 2654435761) >>> 0, i);
  return buf;
}
function chunked(buf: Buffer, chunk = 64 * KIB): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < buf.length; i += chunk) out.push(buf.subarray(i, i + chunk));
  return out;
}

/** The descriptors this process holds open on `file` (Linux: /proc/self/fd). */
function openOn(file: string): number {
  let n = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) === file) n++;
    } catch {
      // Closed while listed.
    }
  }
  return n;
}

describe('writeStaged', () => {
  it('stores every byte, in one write per STAGE_WRITE_BYTES (not one per socket chunk)', async () => {
    const writev = vi.spyOn(fs, 'writev');
    const write = vi.spyOn(fs, 'write');
    const data = patterned(3 * STAGE_WRITE_BYTES + 123 * KIB);
    const file = path.join(dir, 'a.part');
    const size = await writeStaged(Readable.from(chunked(data)), file, 0o600);
    expect(size).toBe(data.length);
    expect((await fsp.readFile(file)).equals(data)).toBe(true);
    expect((await fsp.stat(file)).mode & 0o777).toBe(0o600);
    // 3 full writes and the rest: 4, where a write per 64 KiB chunk was 52.
    expect(writev.mock.calls.length + write.mock.calls.length).toBe(4);
  });

  it('shares STAGE_GATHER_BUDGET_BYTES between the parts staging at once: 32 parts write every 128 KiB, one alone every MiB, every byte stored', async () => {
    expect(stageWriteBytes(1)).toBe(STAGE_WRITE_BYTES);
    expect(stageWriteBytes(32)).toBe(Math.max(STAGE_MIN_WRITE_BYTES, STAGE_GATHER_BUDGET_BYTES / 32));
    expect(stageWriteBytes(10_000)).toBe(STAGE_MIN_WRITE_BYTES);
    const writev = vi.spyOn(fs, 'writev');
    // The 32 sources are fed in lockstep and none ends before all have had their whole MiB, so all 32 stage for
    // every write but the last of each (a part that ended earlier would grow the others' share: CI, session 15).
    const parts = Array.from({ length: 32 }, (_, i) => patterned(STAGE_WRITE_BYTES + i * KIB));
    const files = parts.map((_, i) => path.join(dir, `p${i}.part`));
    const sources = parts.map(() => new PassThrough());
    const staged = Promise.all(sources.map((src, i) => writeStaged(src, files[i]!, 0o600)));
    const rounds = parts.map((d) => chunked(d));
    for (let r = 0; r < Math.max(...rounds.map((c) => c.length)); r++) {
      for (const [i, chunks] of rounds.entries()) if (chunks[r]) sources[i]!.write(chunks[r]);
      await new Promise((res) => setImmediate(res));
    }
    // Every chunk taken by its part before any source ends: on a slow disk (CI under load) parts wait paused for
    // their writes, and a count taken on the feeding's schedule saw only the first few (CI, session 16).
    await vi.waitFor(() => {
      expect(sources.every((s) => s.readableLength === 0 && s.writableLength === 0)).toBe(true);
    }, { timeout: DRAIN_DEADLINE_MS, interval: 5 });
    const whileAll = writev.mock.calls.map((c) => (c[1] as Buffer[]).reduce((n, b) => n + b.length, 0));
    for (const src of sources) src.end();
    const sizes = await staged;
    expect(sizes).toEqual(parts.map((d) => d.length));
    for (const [i, data] of parts.entries()) expect((await fsp.readFile(files[i]!)).equals(data)).toBe(true);
    // While all 32 stage, each write is at most a share of the budget (and the chunk that reached it); no part
    // gathered its whole MiB before writing.
    expect(whileAll.length).toBeGreaterThan(32);
    expect(Math.max(...whileAll)).toBeLessThanOrEqual(stageWriteBytes(32) + 64 * KIB);
    writev.mockClear();
    // Alone again: one write per MiB.
    const alone = patterned(2 * STAGE_WRITE_BYTES);
    expect(await writeStaged(Readable.from(chunked(alone)), path.join(dir, 'alone.part'), 0o600)).toBe(alone.length);
    expect(writev.mock.calls.length).toBe(2);
  });

  it('a part held back while its file opened goes on when the share has grown meanwhile (other parts ended)', async () => {
    const others = Array.from({ length: 39 }, (_, i) => patterned(64 * KIB + i));
    let othersDone!: () => void;
    const done = new Promise<void>((r) => (othersDone = r));
    // Its open waits until the 39 others have ended: by then it has gathered (and paused at) its share of 40.
    const lateOpen: OpenFile = (file, flags, mode, cb) => void done.then(() => fs.open(file, flags, mode, cb));
    const data = patterned(STAGE_WRITE_BYTES / 2);
    const late = writeStaged(Readable.from(chunked(data)), path.join(dir, 'late.part'), 0o600, lateOpen);
    await Promise.all(others.map((d, i) => writeStaged(Readable.from(chunked(d)), path.join(dir, `o${i}.part`), 0o600)));
    othersDone();
    expect(await late).toBe(data.length);
    expect((await fsp.readFile(path.join(dir, 'late.part'))).equals(data)).toBe(true);
  });

  it('creates an empty file for an empty part', async () => {
    const file = path.join(dir, 'empty.part');
    expect(await writeStaged(Readable.from([]), file, 0o600)).toBe(0);
    expect((await fsp.stat(file)).size).toBe(0);
  });

  it('continues a short write from the first byte not written', async () => {
    const real = fs.writev;
    let shortened = false;
    vi.spyOn(fs, 'writev').mockImplementation(((fd: number, bufs: Buffer[], cb: (err: NodeJS.ErrnoException | null, n: number) => void) => {
      if (shortened) return real(fd, bufs, cb);
      shortened = true;
      // The kernel took 100 KiB and a few bytes of what was asked.
      const total = Buffer.concat(bufs);
      return real(fd, [total.subarray(0, 100 * KIB + 7)], (err, n) => cb(err, n));
    }) as typeof fs.writev);
    const data = patterned(STAGE_WRITE_BYTES + 300 * KIB);
    const file = path.join(dir, 'short.part');
    expect(await writeStaged(Readable.from(chunked(data, 48 * KIB)), file, 0o600)).toBe(data.length);
    expect((await fsp.readFile(file)).equals(data)).toBe(true);
  });

  it('refuses a file already there (exclusive create), leaving it as it was and destroying the source', async () => {
    const file = path.join(dir, 'taken.part');
    await fsp.writeFile(file, 'theirs');
    const source = new PassThrough();
    const failed = writeStaged(source, file, 0o600);
    source.write(Buffer.alloc(10));
    await expect(failed).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await fsp.readFile(file, 'utf8')).toBe('theirs');
    expect(source.destroyed).toBe(true);
  });

  it('settles with the source\'s error only once its descriptor is closed', async () => {
    const source = new PassThrough();
    const file = path.join(dir, 'broken.part');
    const staged = writeStaged(source, file, 0o600);
    source.write(patterned(200 * KIB));
    await new Promise((r) => setTimeout(r, 50));
    expect(openOn(file)).toBe(1);
    source.destroy(new Error('upload aborted'));
    await expect(staged).rejects.toThrow('upload aborted');
    expect(openOn(file)).toBe(0);
  });

  it('treats a source closed before its end as a failure', async () => {
    const source = new PassThrough();
    const file = path.join(dir, 'cut.part');
    const staged = writeStaged(source, file, 0o600);
    source.write(Buffer.alloc(1000));
    source.destroy();
    await expect(staged).rejects.toBeInstanceOf(PrematureCloseError);
    expect(openOn(file)).toBe(0);
  });

  it('holds the source back while the open (or a write) lags, then writes everything', async () => {
    let release: (() => void) | undefined;
    const slowOpen: OpenFile = (file, flags, mode, cb) => {
      release = () => fs.open(file, flags, mode, cb);
    };
    const data = patterned(4 * STAGE_WRITE_BYTES);
    const source = Readable.from(chunked(data));
    let read = 0;
    source.on('data', (c: Buffer) => (read += c.length));
    const file = path.join(dir, 'slow.part');
    const staged = writeStaged(source, file, 0o600, slowOpen);
    await new Promise((r) => setTimeout(r, 100));
    // Nothing written yet, and no more than one write's worth read ahead of the disk.
    expect(source.isPaused()).toBe(true);
    expect(read).toBeLessThanOrEqual(STAGE_WRITE_BYTES);
    release!();
    expect(await staged).toBe(data.length);
    expect((await fsp.readFile(file)).equals(data)).toBe(true);
  });

  it('answers a refused write (a full disk) with its error, after closing, and stops the source', async () => {
    vi.spyOn(fs, 'writev').mockImplementation(((_fd: number, _bufs: Buffer[], cb: (err: NodeJS.ErrnoException | null, n: number) => void) => {
      setImmediate(() => cb(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }), 0));
    }) as typeof fs.writev);
    const source = Readable.from(chunked(patterned(2 * STAGE_WRITE_BYTES)));
    const file = path.join(dir, 'full.part');
    await expect(writeStaged(source, file, 0o600)).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(source.destroyed).toBe(true);
    expect(openOn(file)).toBe(0);
  });
});
