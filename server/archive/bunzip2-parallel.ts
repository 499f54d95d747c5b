// A .bz2 file in decoded bytes, its streams decoded side by side when it has several. pbzip2 (and `cat` of
// bzip2 files) writes independent streams of at most 900 kB each; bzip2 decodes slowly in JavaScript (about
// 1–2 MB/s), so each core decoding its own stream is most of the speed-up there is. The output is the
// streams' bytes in file order, as the sequential decoder (bunzip2.ts) gives them.
//
// Boundaries come from a byte scan (bzip2-starts.ts) and are trusted only once decoding confirms them: the
// stream before a split must end exactly there. When a segment fails (a false boundary, corrupt data, trailing
// garbage) everything from that segment's start is decoded sequentially instead, after skipping the bytes
// already passed on, so the result and the errors are the sequential decoder's. A single-stream file (plain
// `bzip2`) goes to the sequential decoder directly.
//
// Memory: each worker may have at most WORKER_WINDOW_CHUNKS decoded chunks waiting for the reader (it blocks
// until they are read, through a credit counter shared with Atomics, as bunzip2.ts does), and at most
// STREAMS_AHEAD_PER_WORKER × workers segments are handed out beyond the one being read. Byte caps are
// enforced downstream as the bytes come out, in order, as for every decoder.
import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Readable, pipeline } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { unpackedPath } from '../core/unpacked-path.js';
import { Bunzip2 } from './bunzip2.js';
import { StreamStarts } from './bzip2-starts.js';
import {
  ABORTED,
  CREDIT,
  SEGMENT_WORKER_SOURCE,
  type FromSegmentWorker,
  type SegmentWorkerData,
  type ToSegmentWorker,
} from './bunzip2-segment-worker.js';
import { fileChunks } from './file-chunks.js';

/** Decoder threads for one file at most, whatever the core count (each holds ~4 MB of block workspace). */
export const MAX_BZIP2_WORKERS = 4;
/** A second stream must start within this many bytes for the file to be decoded stream-parallel (pbzip2's
 *  largest default stream, 900 kB of incompressible input, is about 905 kB). */
export const PARALLEL_PROBE_BYTES = 4 * 1024 * 1024;
/** Decoded chunks a worker may have waiting for the reader: 2 MiB, two pbzip2 streams' worth. */
export const WORKER_WINDOW_CHUNKS = 32;
/** Segments handed out beyond the one being read, per worker. */
export const STREAMS_AHEAD_PER_WORKER = 2;
const OUT_CHUNK_BYTES = 65536;
const IN_CHUNK_BYTES = 262144;
const BLOCK_UNIT_BYTES = 100000;

const require = createRequire(import.meta.url);
const UNBZIP2_DIR = path.dirname(require.resolve('unbzip2-stream'));

export function bzip2Workers(): number {
  return Math.max(1, Math.min(os.availableParallelism(), MAX_BZIP2_WORKERS));
}

interface Segment {
  start: number;
  end: number;
  worker: SegmentWorker;
  chunks: Buffer[];
  /** Bytes of this segment already pushed to the reader. */
  passed: number;
  state: 'running' | 'ended' | 'failed';
}

class SegmentWorker {
  readonly shared = new Int32Array(new SharedArrayBuffer(8));
  readonly thread: Worker;
  idle = true;

  constructor(fd: number, onMessage: (msg: FromSegmentWorker, from: SegmentWorker) => void, onError: (err: Error) => void) {
    Atomics.store(this.shared, CREDIT, WORKER_WINDOW_CHUNKS);
    const workerData: SegmentWorkerData = {
      // Unpacked from app.asar in the installed app, so the worker needs no asar support to load them.
      bzip2Path: unpackedPath(path.join(UNBZIP2_DIR, 'lib', 'bzip2.js')),
      bitIteratorPath: unpackedPath(path.join(UNBZIP2_DIR, 'lib', 'bit_iterator.js')),
      shared: this.shared.buffer as SharedArrayBuffer,
      fd,
      outBytes: OUT_CHUNK_BYTES,
      inBytes: IN_CHUNK_BYTES,
      blockUnitBytes: BLOCK_UNIT_BYTES,
    };
    this.thread = new Worker(SEGMENT_WORKER_SOURCE, {
      eval: true,
      // The source is CommonJS; an inherited --input-type=module would make it an ES module.
      execArgv: process.execArgv.filter((arg) => !arg.startsWith('--input-type')),
      workerData,
    });
    this.thread.on('message', (msg: FromSegmentWorker) => onMessage(msg, this));
    this.thread.on('error', onError);
  }

  decode(index: number, start: number, end: number): void {
    this.idle = false;
    const msg: ToSegmentWorker = { type: 'segment', index, start, end };
    this.thread.postMessage(msg);
  }

  /** One chunk was read: the worker may decode one more. */
  credit(): void {
    Atomics.add(this.shared, CREDIT, 1);
    Atomics.notify(this.shared, CREDIT);
  }

  /** Stops the thread; resolves once it can no longer touch the file descriptor. */
  async stop(): Promise<void> {
    Atomics.store(this.shared, ABORTED, 1);
    Atomics.notify(this.shared, CREDIT);
    await this.thread.terminate();
  }
}

/** Candidate stream starts in increasing order, then the file size (StreamStarts; tests add false ones). */
export interface StartScanner {
  readonly size: number;
  next(scanLimit?: number): Promise<number | null>;
}
export type ScannerFactory = (handle: fsp.FileHandle, size: number) => StartScanner;
const scanFile: ScannerFactory = (handle, size) => new StreamStarts(handle, size);

/** The decoded bytes of the bzip2 file at `archivePath`. Destroying the stream stops its decoders. */
export function openBzip2File(archivePath: string, workers = bzip2Workers(), scanner = scanFile): Readable {
  return new ParallelBunzip2(archivePath, workers, scanner);
}

class ParallelBunzip2 extends Readable {
  private handle: fsp.FileHandle | undefined;
  private starts: StartScanner | undefined;
  private workers: SegmentWorker[] = [];
  private readonly segments = new Map<number, Segment>();
  /** The segment being read, the next to hand out, and its start offset. */
  private reading = 0;
  private assigned = 0;
  private nextStart = 0;
  /** The second stream's start, found by the probe: the first segment's end. */
  private firstEnd: number | undefined;
  private total: number | undefined;
  private dispatching = false;
  private wanted = false;
  private sequential: Readable | undefined;
  private stopping: Promise<void> = Promise.resolve();

  constructor(
    private readonly archivePath: string,
    private readonly workerCount: number,
    private readonly scanner: ScannerFactory,
  ) {
    super({ highWaterMark: OUT_CHUNK_BYTES });
  }

  override _construct(callback: (err?: Error | null) => void): void {
    this.open().then(
      () => callback(),
      (err: Error) => callback(err),
    );
  }

  private async open(): Promise<void> {
    this.handle = await fsp.open(this.archivePath, 'r');
    const { size } = await this.handle.stat();
    this.starts = this.scanner(this.handle, size);
    const first = await this.starts.next(PARALLEL_PROBE_BYTES);
    const second = first === 0 ? await this.starts.next(PARALLEL_PROBE_BYTES) : null;
    if (second === null || second >= this.starts.size || this.workerCount < 2) {
      this.decodeSequentially(0, 0);
      return;
    }
    this.firstEnd = second;
    const fd = this.handle.fd;
    for (let i = 0; i < this.workerCount; i++) {
      this.workers.push(new SegmentWorker(fd, (msg, from) => this.onMessage(msg, from), (err) => this.destroy(err)));
    }
    void this.dispatch();
  }

  override _read(): void {
    if (this.sequential) {
      this.sequential.resume();
      return;
    }
    this.wanted = true;
    this.pump();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.sequential?.destroy();
    const stopped = Promise.all([this.stopping, this.stopWorkers()]);
    // The workers read through the descriptor: it is closed only once none of them can run.
    void stopped.then(() => this.handle?.close()).then(
      () => callback(err),
      () => callback(err),
    );
  }

  private stopWorkers(): Promise<void> {
    const workers = this.workers;
    this.workers = [];
    return Promise.all(workers.map((w) => w.stop())).then(() => undefined);
  }

  /** Hand out segments to idle workers, up to the read-ahead limit. */
  private async dispatch(): Promise<void> {
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      const starts = this.starts!;
      while (!this.destroyed && !this.sequential && this.total === undefined) {
        if (this.assigned - this.reading >= STREAMS_AHEAD_PER_WORKER * this.workerCount) break;
        const worker = this.workers.find((w) => w.idle);
        if (!worker) break;
        worker.idle = false;
        const found = this.firstEnd ?? (await starts.next());
        this.firstEnd = undefined;
        if (found === null || this.destroyed || this.sequential) return;
        const end = Math.min(found, starts.size);
        const index = this.assigned++;
        this.segments.set(index, { start: this.nextStart, end, worker, chunks: [], passed: 0, state: 'running' });
        worker.decode(index, this.nextStart, end);
        this.nextStart = end;
        if (end >= starts.size) this.total = this.assigned;
      }
    } catch (err) {
      this.destroy(err as Error);
    } finally {
      this.dispatching = false;
    }
    this.pump();
  }

  private onMessage(msg: FromSegmentWorker, from: SegmentWorker): void {
    const segment = this.segments.get(msg.index);
    if (!segment || this.sequential || this.destroyed) return;
    switch (msg.type) {
      case 'out':
        segment.chunks.push(Buffer.from(msg.chunk));
        if (msg.index === this.reading) this.pump();
        return;
      case 'end':
        segment.state = 'ended';
        from.idle = true;
        void this.dispatch();
        this.pump();
        return;
      case 'failed':
        segment.state = 'failed';
        // Whatever follows a failed segment may start at a false boundary: nothing more is handed out.
        this.total = this.assigned;
        this.pump();
    }
  }

  /** Pass on the segment being read, in order, while the reader wants bytes. */
  private pump(): void {
    while (this.wanted && !this.sequential && !this.destroyed) {
      if (this.total !== undefined && this.reading >= this.total && !this.segments.has(this.reading)) {
        this.wanted = false;
        this.push(null);
        return;
      }
      const segment = this.segments.get(this.reading);
      if (!segment) return;
      const chunk = segment.chunks.shift();
      if (chunk) {
        segment.passed += chunk.length;
        segment.worker.credit();
        this.wanted = this.push(chunk);
      } else if (segment.state === 'ended') {
        this.segments.delete(this.reading);
        this.reading += 1;
        void this.dispatch();
      } else if (segment.state === 'failed') {
        this.fallBack(segment);
      } else {
        return;
      }
    }
  }

  /** From the failed segment on, the sequential decoder; its first bytes were passed on already. */
  private fallBack(segment: Segment): void {
    this.stopping = this.stopWorkers();
    this.segments.clear();
    const start = segment.start;
    const skip = segment.passed;
    // The descriptor is read again only after the workers are gone, so reads never interleave with theirs.
    this.sequential = new Readable({ read() {} }); // a stand-in until the workers are gone: pump() stops
    void this.stopping.then(() => {
      if (!this.destroyed) this.decodeSequentially(start, skip);
    });
  }

  private decodeSequentially(start: number, skip: number): void {
    const decoder = pipeline(Readable.from(fileChunks(this.handle!, start)), new Bunzip2(), noop);
    this.sequential = decoder;
    let toSkip = skip;
    decoder.on('data', (chunk: Buffer) => {
      if (toSkip > 0) {
        const dropped = Math.min(toSkip, chunk.length);
        toSkip -= dropped;
        chunk = chunk.subarray(dropped);
        if (chunk.length === 0) return;
      }
      if (!this.push(chunk)) decoder.pause();
    });
    decoder.on('end', () => {
      if (toSkip > 0) this.destroy(new Error('bzip2: stream ended prematurely'));
      else this.push(null);
    });
    decoder.on('error', (err) => this.destroy(err));
  }
}

// pipeline's callback is required; failures surface through the returned stream, which pipeline destroys.
function noop(): void {}
