// One file part of an upload written to its staging file (issue 37, finding 5). A stream pipeline into an
// fs.WriteStream issued a write for nearly every 64 KiB the socket delivered (ten per MiB, each a trip through
// libuv's thread pool and its futex hand-offs) and built a WriteStream, a pipeline and their promises per part.
// Here the part's chunks are gathered and written together once STAGE_WRITE_BYTES have come (or the part ends):
// one write per MiB, straight to the descriptor; less when many parts stage at once (STAGE_GATHER_BUDGET_BYTES).
//
// The guarantees are the WriteStream's: the file is created exclusively with the caller's mode; what may wait
// for the disk is bounded (at most one write of STAGE_WRITE_BYTES in flight and as much gathered, the source
// paused beyond that, so a slow disk holds the socket back instead of filling memory); a short write is
// continued; the promise settles only once the descriptor is closed (or was never opened), so when it settles
// nothing more will touch the path — a failure included: a source destroyed early, a write refused (a full
// disk), an open that fails.
import fs from 'node:fs';

/** Bytes gathered before they are written in one call: the floor's high-water mark (1 MiB). */
export const STAGE_WRITE_BYTES = 1024 * 1024;
/**
 * What all the parts staging at once may hold gathered between them before each writes (issue 37, finding 5,
 * session 15): a part writes once it has STAGE_GATHER_BUDGET_BYTES / (parts staging now), within STAGE_MIN_WRITE_BYTES
 * … STAGE_WRITE_BYTES. One upload alone still writes once per MiB. 32 at once each gathering a whole MiB held 32 MiB
 * of chunks, long out of the CPU's caches by the time they were written: the kernel's copy into the page cache was
 * 1.7-2.1 ms of a 1 MiB upload's CPU (perf), against 0.2 ms when each part wrote every 128 KiB.
 */
export const STAGE_GATHER_BUDGET_BYTES = 4 * 1024 * 1024;
/** The least a part gathers before a write, however many stage at once: 8 writes per MiB at most. */
export const STAGE_MIN_WRITE_BYTES = 128 * 1024;

/** Parts being staged now (in this process): they share STAGE_GATHER_BUDGET_BYTES. */
let stagingNow = 0;

/** The bytes a part gathers before it writes, with `parts` staging at once. */
export function stageWriteBytes(parts: number): number {
  return Math.min(STAGE_WRITE_BYTES, Math.max(STAGE_MIN_WRITE_BYTES, Math.floor(STAGE_GATHER_BUDGET_BYTES / Math.max(1, parts))));
}

/** fs.open's shape: the caller may make a missing staging folder on ENOENT (multipart.ts openStaged). */
export type OpenFile = (file: string, flags: string, mode: number, cb: (err: NodeJS.ErrnoException | null, fd?: number) => void) => void;

/** What writeStaged needs of the part's stream (busboy's file stream is a Readable). */
export interface PartSource {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  removeListener(event: 'data', listener: (chunk: Buffer) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  destroy(err?: Error): unknown;
}

export class PrematureCloseError extends Error {
  constructor() {
    super('the part ended before its last byte');
  }
}

/** Write `bufs` (`total` bytes) at the descriptor's position, continuing after a short write. */
function writeAll(fd: number, bufs: Buffer[], total: number, done: (err: NodeJS.ErrnoException | null) => void): void {
  fs.writev(fd, bufs, (err, n) => {
    if (err) return done(err);
    if (n >= total) return done(null);
    // A short write: what is left of the buffers, from the first byte not written.
    const rest: Buffer[] = [];
    let skip = n;
    for (const buf of bufs) {
      if (skip >= buf.length) {
        skip -= buf.length;
        continue;
      }
      rest.push(skip > 0 ? buf.subarray(skip) : buf);
      skip = 0;
    }
    writeAll(fd, rest, total - n, done);
  });
}

/**
 * Write everything `source` yields to a new file at `file` (created exclusively with `mode` through `open`);
 * resolves with the bytes written once the file is closed. Rejects, once the descriptor is closed, with the
 * first failure: the open's, a write's (the source is then destroyed), the source's error, or a
 * PrematureCloseError when it closed before its end. The file stays on disk either way: the caller removes it.
 */
export function writeStaged(source: PartSource, file: string, mode: number, open: OpenFile = fs.open): Promise<number> {
  stagingNow++;
  return new Promise<number>((resolve, reject) => {
    let fd: number | undefined;
    let opening = true;
    let writing = false;
    let paused = false;
    let ended = false;
    let closing = false;
    let failure: Error | undefined;
    let gathered: Buffer[] = [];
    let gatheredBytes = 0;
    let written = 0;

    // Nothing in flight any more and nothing more to write: close (when open) and settle.
    const finish = (): void => {
      if (closing) return;
      closing = true;
      const settle = (closeErr?: NodeJS.ErrnoException | null): void => {
        stagingNow--;
        const err = failure ?? closeErr ?? undefined;
        if (err) reject(err);
        else resolve(written);
      };
      if (fd === undefined) settle();
      else fs.close(fd, settle);
    };

    const fail = (err: Error): void => {
      failure ??= err;
      gathered = [];
      gatheredBytes = 0;
      if (!opening && !writing) finish();
    };

    const flush = (): void => {
      if (writing || fd === undefined || failure) return;
      if (gatheredBytes === 0) {
        if (ended) finish();
        return;
      }
      const bufs = gathered;
      const bytes = gatheredBytes;
      gathered = [];
      gatheredBytes = 0;
      writing = true;
      writeAll(fd, bufs, bytes, (err) => {
        writing = false;
        if (err) {
          source.destroy(err);
          return fail(err);
        }
        written += bytes;
        if (failure) return finish();
        if (paused) {
          paused = false;
          source.resume();
        }
        if (ended || gatheredBytes >= stageWriteBytes(stagingNow)) flush();
      });
    };

    const onData = (chunk: Buffer): void => {
      if (failure) return;
      gathered.push(chunk);
      gatheredBytes += chunk.length;
      if (gatheredBytes < stageWriteBytes(stagingNow)) return;
      if (!writing && fd !== undefined) return flush();
      // A write (or the open) is still under way with as much gathered again: hold the source back.
      paused = true;
      source.pause();
    };

    source.on('data', onData);
    source.on('end', () => {
      ended = true;
      flush();
    });
    source.on('error', (err) => fail(err));
    source.on('close', () => {
      if (!ended) fail(new PrematureCloseError());
    });

    open(file, 'wx', mode, (err, opened) => {
      opening = false;
      if (err) {
        source.destroy(err);
        return fail(err);
      }
      fd = opened;
      if (failure) return finish();
      // Paused while opening: it had gathered its share then. The share may have grown since (parts ended), so it
      // is written now whatever it is; left paused, it would never be resumed.
      if (ended || paused || gatheredBytes >= stageWriteBytes(stagingNow)) flush();
    });
  });
}
