// Writes archive members to disk, and is the only code that does. Every file is created exclusively without
// following a symlink, every parent is a directory this writer made itself (an archive's own symlink or
// directory members are never written, so nothing else can sit in the tree), and every byte is counted
// against the cap before it is written: the real bytes, not what a header claims.
import { constants as fsc } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { log } from '../log.js';
import { EXTRACT_CHUNK_BYTES, tooLarge } from './limits.js';

// O_NOFOLLOW does not exist on Windows; there O_EXCL alone refuses an existing name, symlink or not.
const CREATE_FLAGS = fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | (fsc.O_NOFOLLOW ?? 0);
// Archive permission bits are not applied: a stranger's archive does not get to mark files executable.
const FILE_MODE = 0o644;

export interface WriterOptions {
  maxBytes: number;
  signal?: AbortSignal;
}

/** Where members go, how much has been written, and which files exist (relative to base, '/'-separated). */
export class MemberWriter {
  readonly files: string[] = [];
  private written = 0;
  /** Absolute paths of directories this writer created (plus destDir), and their identities. */
  private readonly dirs = new Set<string>();
  private readonly dirIds = new Set<string>();
  private readonly buffer = Buffer.allocUnsafe(EXTRACT_CHUNK_BYTES);

  constructor(
    private readonly destDir: string,
    private readonly base: string,
    private readonly opts: WriterOptions,
  ) {}

  get maxBytes(): number {
    return this.opts.maxBytes;
  }

  get bytesWritten(): number {
    return this.written;
  }

  /** Fail before opening a member whose trusted size would already exceed the cap. */
  ensureRoom(declaredBytes: number): void {
    if (this.written + declaredBytes > this.opts.maxBytes) throw tooLarge(this.opts.maxBytes);
  }

  /**
   * Create `<destDir>/<segments>` exclusively and copy `open()`'s data into it. Returns false, without
   * calling `open`, when the name collides with an earlier member (duplicate names, a file where a
   * directory is needed, or a case-insensitive clash): the first member wins, nothing is overwritten.
   */
  async write(segments: readonly string[], open: () => AsyncIterable<Uint8Array> | Promise<AsyncIterable<Uint8Array>>): Promise<boolean> {
    if (segments.length === 0) return false;
    if (this.dirs.size === 0) await this.remember(this.destDir);
    const parent = await this.parents(segments);
    if (parent === null) return this.skip(segments, 'a parent is not a directory of this extraction');
    const target = path.join(parent, segments[segments.length - 1]!);
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(target, CREATE_FLAGS, FILE_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return this.skip(segments, 'duplicate name');
      throw err;
    }
    let complete = false;
    try {
      await this.copy(await open(), handle);
      complete = true;
    } finally {
      await handle.close();
      if (!complete) await fsp.rm(target, { force: true });
    }
    this.files.push(path.relative(this.base, target).split(path.sep).join('/'));
    return true;
  }

  // Coalesces the decoder's small chunks into full EXTRACT_CHUNK_BYTES writes: fewer syscalls, and each
  // write is awaited, which is the backpressure on the decoder.
  private async copy(source: AsyncIterable<Uint8Array>, handle: fsp.FileHandle): Promise<void> {
    let filled = 0;
    for await (const chunk of source) {
      let offset = 0;
      while (offset < chunk.length) {
        const take = Math.min(chunk.length - offset, EXTRACT_CHUNK_BYTES - filled);
        this.count(take);
        this.buffer.set(chunk.subarray(offset, offset + take), filled);
        filled += take;
        offset += take;
        if (filled === EXTRACT_CHUNK_BYTES) {
          await writeFully(handle, this.buffer, filled);
          filled = 0;
        }
      }
    }
    if (filled > 0) await writeFully(handle, this.buffer, filled);
  }

  private count(bytes: number): void {
    this.opts.signal?.throwIfAborted();
    if (this.written + bytes > this.opts.maxBytes) throw tooLarge(this.opts.maxBytes);
    this.written += bytes;
  }

  /** The member's parent directory, created segment by segment; null when something else is in the way. */
  private async parents(segments: readonly string[]): Promise<string | null> {
    let dir = this.destDir;
    for (const segment of segments.slice(0, -1)) {
      dir = path.join(dir, segment);
      if (this.dirs.has(dir)) continue;
      try {
        await fsp.mkdir(dir);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EEXIST' && code !== 'ENOTDIR') throw err;
        // On a case-insensitive disk `A/` and `a/` are one directory: accept it only if it is one we made.
        if (code === 'EEXIST' && (await this.isOurs(dir))) {
          this.dirs.add(dir);
          continue;
        }
        return null;
      }
      await this.remember(dir);
    }
    return dir;
  }

  private async remember(dir: string): Promise<void> {
    const st = await fsp.lstat(dir);
    this.dirs.add(dir);
    this.dirIds.add(`${st.dev}:${st.ino}`);
  }

  private async isOurs(dir: string): Promise<boolean> {
    const st = await fsp.lstat(dir);
    return st.isDirectory() && this.dirIds.has(`${st.dev}:${st.ino}`);
  }

  private skip(segments: readonly string[], why: string): false {
    log.debug(`archive member skipped (${why}): ${segments.join('/')}`);
    return false;
  }
}

async function writeFully(handle: fsp.FileHandle, data: Buffer, length: number): Promise<void> {
  let done = 0;
  while (done < length) {
    const { bytesWritten } = await handle.write(data, done, length - done);
    done += bytesWritten;
  }
}
