// Writes archive members to disk, and is the only code that does. Every file is created exclusively without
// following a symlink, every parent is a directory this writer made itself (an archive's own symlink or
// directory members are never written, so nothing else can sit in the tree), every directory is reached
// through its parent's open descriptor (../anchored.ts: a directory swapped for a symlink is refused, not
// followed), and every byte is counted against the cap before it is written: the real bytes, not what a header
// claims.
import { constants as fsc } from 'node:fs';
import type fsp from 'node:fs/promises';
import { sameFile, type AnchoredDir, type Identity } from '../store/anchored.js';
import { log } from '../core/log.js';
import type { SkipReason, SkippedMember } from '../core/wire.js';
import { EXTRACT_CHUNK_BYTES, tooLarge } from './limits.js';
import { fileChunks } from './file-chunks.js';
import { MemberNameFitter } from './fit-names.js';

// The anchored create adds O_CREAT|O_EXCL|O_NOFOLLOW: exclusive, and never through a symlink at the name.
const WRITE_FLAGS = fsc.O_WRONLY;
// Of an archive's permission bits only the owner's execute bit survives (scripts and binaries stay runnable,
// as with bsdtar and unzip); set-uid/set-gid/sticky and group/other write never do. open(2) applies the
// process umask to these, as it does for every file the app creates.
export const FILE_MODE = 0o644;
export const EXECUTABLE_FILE_MODE = 0o755;
const OWNER_EXECUTE = 0o100;
/**
 * Files of in-memory members (writeBuffer) being written and closed at once. Each file costs a few thread-pool
 * round trips (open, stat, write, close); one at a time the extraction mostly waited for them (node --cpu-prof
 * of a 1830-file zip: 86 % idle). Bounded, as the buffers (at most SMALL_MEMBER_BYTES each) stay in memory.
 */
export const MAX_WRITES_IN_FLIGHT = 8;

/** The mode a member is created with, from the permission bits its archive declares (undefined: none). */
export function fileModeFor(archiveMode: number | undefined): number {
  return archiveMode !== undefined && (archiveMode & OWNER_EXECUTE) !== 0 ? EXECUTABLE_FILE_MODE : FILE_MODE;
}

// Why a member was not written, as the upload responses carry it (only regular files are, spec-notes 4.4).
export type { SkipReason, SkippedMember } from '../core/wire.js';

export interface WriterOptions {
  maxBytes: number;
  signal?: AbortSignal;
}

/** Where members go, how much has been written, and which files exist (relative to base, '/'-separated). */
export class MemberWriter {
  readonly files: string[] = [];
  readonly skipped: SkippedMember[] = [];
  /** Members written so far (segments '/'-joined), so a tar hard link to one can be written as a copy. */
  private readonly writtenKeys = new Set<string>();
  /** Directory members, reported as `directory-only` when no file lands in them. */
  private readonly dirMembers = new Map<string, string>();
  private written = 0;
  /** Directories this writer created (relative keys, '/'-joined), and the identities of those plus dest. */
  private readonly made = new Set<string>();
  private readonly dirIds: Identity[] = [];
  /** The last member's parent, held open: archives list a directory's members together. */
  private cached: { key: string; dir: AnchoredDir } | null = null;
  private readonly buffer = Buffer.allocUnsafe(EXTRACT_CHUNK_BYTES);
  /** writeBuffer's writes and closes still under way, and the first of them that failed. */
  private readonly inFlight = new Set<Promise<void>>();
  private inFlightFailure: { error: unknown } | undefined;
  /** Over-long names shortened (fit-names.ts); every member's segments pass through it before anything else. */
  private readonly names: MemberNameFitter;

  /**
   * `dest` is the extraction directory (held open by the caller, not closed here); `prefix` is its path
   * relative to the base the listed files are relative to ('/'-separated).
   */
  constructor(
    private readonly dest: AnchoredDir,
    private readonly prefix: string,
    private readonly opts: WriterOptions,
  ) {
    this.dirIds.push(dest.id);
    this.names = new MemberNameFitter(dest.path);
  }

  /** The member's segments as they are written (over-long names shortened); null, recorded as skipped, if no shortening fits. */
  private fitted(segments: readonly string[], shownName = segments.join('/')): string[] | null {
    const fitted = this.names.fit(segments);
    if (fitted === null) this.skip(shownName, 'name-too-long');
    return fitted;
  }

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
  async write(
    memberSegments: readonly string[],
    open: () => AsyncIterable<Uint8Array> | Promise<AsyncIterable<Uint8Array>>,
    mode = FILE_MODE,
  ): Promise<boolean> {
    if (memberSegments.length === 0) return false;
    const segments = this.fitted(memberSegments);
    if (segments === null) return false;
    const created = await this.create(segments, mode);
    if (!created) return false;
    const { parent, name, handle } = created;
    let complete = false;
    try {
      await this.copy(await open(), handle);
      complete = true;
    } finally {
      await handle.close();
      if (!complete) await parent.unlink(name).catch(() => {});
    }
    this.files.push([this.prefix, ...segments].filter(Boolean).join('/'));
    this.writtenKeys.add(segments.join('/'));
    return true;
  }

  /**
   * write() for a small member whose bytes `load` reads into memory and checks: created and loaded in member
   * order like write() (so duplicates, conflicts, checks and the cap come out the same; `load` is not called
   * for a member that is not written), then written and closed while the next members are handled, up to
   * MAX_WRITES_IN_FLIGHT files at once. A failed write surfaces from a later call or from settle(); the
   * extraction then fails and its folder is removed whole, partial file included.
   */
  async writeBuffer(memberSegments: readonly string[], load: () => Promise<Buffer>, mode = FILE_MODE): Promise<boolean> {
    this.throwInFlightFailure();
    if (memberSegments.length === 0) return false;
    const segments = this.fitted(memberSegments);
    if (segments === null) return false;
    while (this.inFlight.size >= MAX_WRITES_IN_FLIGHT) await Promise.race(this.inFlight);
    this.throwInFlightFailure();
    const created = await this.create(segments, mode);
    if (!created) return false;
    const { parent, name, handle } = created;
    let data: Buffer;
    try {
      data = await load();
      this.count(data.length);
    } catch (err) {
      await handle.close();
      await parent.unlink(name).catch(() => {});
      throw err;
    }
    const key = segments.join('/');
    const task = (async () => {
      try {
        if (data.length > 0) await writeFully(handle, data, data.length);
        this.writtenKeys.add(key);
      } finally {
        await handle.close();
      }
    })()
      .catch((error: unknown) => {
        this.inFlightFailure ??= { error };
      })
      .finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
    this.files.push([this.prefix, ...segments].filter(Boolean).join('/'));
    return true;
  }

  /** Create a member's file exclusively; false (recorded as skipped) when its name collides, as write() says. */
  private async create(segments: readonly string[], mode: number): Promise<{ parent: AnchoredDir; name: string; handle: fsp.FileHandle } | false> {
    const parent = await this.parent(segments.slice(0, -1));
    if (parent === null) return this.skip(segments.join('/'), 'path-conflict');
    const name = segments[segments.length - 1]!;
    try {
      return { parent, name, handle: await parent.createFile(name, WRITE_FLAGS, mode) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return this.skip(segments.join('/'), 'duplicate');
      throw err;
    }
  }

  /** Wait for writeBuffer's files to be written and closed; throws the first failure among them. */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
    this.throwInFlightFailure();
  }

  private throwInFlightFailure(): void {
    if (this.inFlightFailure) throw this.inFlightFailure.error;
  }

  /**
   * A hard link member whose target is a file this extraction already wrote: written as a copy of it (the
   * copy counts against the cap like any member). Otherwise, or when the target is not in the tree, skipped.
   */
  async writeCopy(segments: readonly string[], memberTarget: readonly string[] | null, mode: number, shownName: string): Promise<boolean> {
    // The target by the name it was written under (shortened like any member's).
    const target = memberTarget === null || memberTarget.length === 0 ? null : this.names.fit(memberTarget);
    if (target === null || !this.writtenKeys.has(target.join('/'))) return this.skip(shownName, 'hardlink');
    const dir = await this.parent(target.slice(0, -1));
    if (dir === null) return this.skip(shownName, 'hardlink');
    // Opened without following a symlink, in a directory this writer made: it is the file written earlier.
    const source = await dir.openFile(target[target.length - 1]!, fsc.O_RDONLY);
    try {
            return await this.write(segments, () => fileChunks(source), mode);
    } finally {
      await source.close();
    }
  }

  /** Record a member that is not written. */
  skip(name: string, reason: SkipReason): false {
    log.debug(`archive member skipped (${reason}): ${name}`);
    this.skipped.push({ name, reason });
    return false;
  }

  /** Note a directory member: directories are made only for the files inside them. */
  noteDirectory(memberSegments: readonly string[]): void {
    if (memberSegments.length === 0) return;
    const segments = this.fitted(memberSegments, `${memberSegments.join('/')}/`);
    if (segments !== null) this.dirMembers.set(segments.join('/'), `${segments.join('/')}/`);
  }

  /** After the last member: directory members that no written file needed are reported as skipped. */
  finish(): void {
    for (const [key, shown] of this.dirMembers) if (!this.made.has(key)) this.skip(shown, 'directory-only');
    this.dirMembers.clear();
  }

  /** Release the directory held between members, once no file is still being written. */
  async close(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
    await this.releaseCached();
  }

  private async releaseCached(): Promise<void> {
    await this.cached?.dir.close();
    this.cached = null;
  }

  // Coalesces the decoder's small chunks into full EXTRACT_CHUNK_BYTES writes: fewer syscalls, and each
  // write is awaited, which is the backpressure on the decoder.
  private async copy(source: AsyncIterable<Uint8Array>, handle: fsp.FileHandle): Promise<void> {
    let filled = 0;
    const chunks = source[Symbol.asyncIterator]();
    try {
      for (;;) {
        this.opts.signal?.throwIfAborted();
        // An engine that gives up (an abort, a corrupt stream) destroys the member stream, perhaps while we
        // were writing: a minipass stream destroyed then never answers the next read, so we must not ask.
        if (abandoned(source)) throw new Error('Archive member stream was destroyed');
        const step = await chunks.next();
        if (step.done) break;
        filled = await this.take(step.value, handle, filled);
      }
    } catch (err) {
      await chunks.return?.().catch(() => {});
      throw err;
    }
    if (filled > 0) await writeFully(handle, this.buffer, filled);
  }

  /** Copy `chunk` into the buffer after `filled` bytes, writing each full buffer; returns the new fill. */
  private async take(chunk: Uint8Array, handle: fsp.FileHandle, filled: number): Promise<number> {
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
    return filled;
  }

  private count(bytes: number): void {
    this.opts.signal?.throwIfAborted();
    if (this.written + bytes > this.opts.maxBytes) throw tooLarge(this.opts.maxBytes);
    this.written += bytes;
  }

  /**
   * The member's parent directory, created segment by segment from the destination, each one opened through
   * the one before; null when something other than a directory this writer made is in the way.
   */
  private async parent(dirs: readonly string[]): Promise<AnchoredDir | null> {
    if (dirs.length === 0) return this.dest;
    const key = dirs.join('/');
    if (this.cached?.key === key) return this.cached.dir;
    await this.releaseCached();
    let dir = this.dest;
    try {
      for (const [i, segment] of dirs.entries()) {
        const rel = dirs.slice(0, i + 1).join('/');
        const fresh = !this.made.has(rel) && (await mkdirFresh(dir, segment));
        // A file, a symlink or nothing where the directory should be: the member does not fit this tree.
        const child = await dir.openDir(segment).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ELOOP' || err.code === 'ENOTDIR' || err.code === 'ENOENT') return null;
          throw err;
        });
        if (dir !== this.dest) await dir.close();
        dir = this.dest;
        if (child === null) return null;
        if (fresh) {
          this.made.add(rel);
          this.dirIds.push(child.id);
        } else if (!this.dirIds.some((id) => sameFile(id, child.id))) {
          await child.close();
          return null;
        }
        dir = child;
      }
      this.cached = { key, dir };
      return dir;
    } catch (err) {
      if (dir !== this.dest) await dir.close();
      throw err;
    }
  }

}

/** Destroyed before its end (minipass and Node streams alike): no more data will ever come. */
function abandoned(source: unknown): boolean {
  const s = source as { destroyed?: boolean; readableEnded?: boolean; emittedEnd?: boolean };
  return s.destroyed === true && s.readableEnded !== true && s.emittedEnd !== true;
}

/** mkdir `name` in `dir`: true when made now, false when something is already there (judged by the caller). */
async function mkdirFresh(dir: AnchoredDir, name: string): Promise<boolean> {
  try {
    await dir.mkdir(name);
    return true;
  } catch (err) {
    // EEXIST: on a case-insensitive disk `A/` and `a/` are one directory, accepted only if it is one we made.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') return false;
    throw err;
  }
}

async function writeFully(handle: fsp.FileHandle, data: Buffer, length: number): Promise<void> {
  let done = 0;
  while (done < length) {
    const { bytesWritten } = await handle.write(data, done, length - done);
    done += bytesWritten;
  }
}
