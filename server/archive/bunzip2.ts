// Streaming bzip2 decoder. The block decoder is unbzip2-stream's pure-JS one (about 40 M downloads a month,
// the decoder behind decompress-tarbz2; no native code, so it runs on every desktop OS and in Electron
// without a rebuild). Its own stream wrapper is not used: it collects each block's output in a JS array of
// numbers (8 bytes per output byte, up to ~46 MB of output per 900 kB block) and has no backpressure.
//
// A block decodes synchronously and slowly (measured ~0.8 s for a 900 kB block of random data), so the
// decoder runs in a worker thread: the server's event loop never waits for it. Output flows in 64 KiB
// chunks under a credit window shared through Atomics, so a bzip2 bomb (tens of MB per block, thousands of
// blocks in a few kB) decodes only as fast as the consumer accepts bytes, and stops when it stops.
import { createRequire } from 'node:module';
import path from 'node:path';
import { Duplex } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { unpackedPath } from '../core/unpacked-path.js';

/** Output chunk size and how many chunks the worker may have in flight before it waits for the reader. */
const OUT_CHUNK_BYTES = 65536;
const CREDIT_WINDOW = 8;
// A compressed block never exceeds 100 kB × level plus this slack (upstream's bound); a block is decoded
// only once that much input is buffered, because the bit reader cannot wait for more in mid-block.
const BLOCK_SLACK_BYTES = 25000;
const BLOCK_UNIT_BYTES = 100000;

const CREDIT = 0;
const ABORTED = 1;

const require = createRequire(import.meta.url);
// Found through the package's entry (in app.asar); the worker then loads its two files from app.asar.unpacked.
const UNBZIP2_DIR = path.dirname(require.resolve('unbzip2-stream'));

// Plain CommonJS, evaluated as the worker's source: it must run both from the TypeScript sources under the
// test runner and from the compiled output, where a separate worker file would be at different paths.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const bzip2 = require(workerData.bzip2Path);
const bitIterator = require(workerData.bitIteratorPath);
const shared = new Int32Array(workerData.shared);
const { OUT, SLACK, UNIT } = workerData;
const pending = [];
let received = 0, bits = null, level = 0, crc = null, workspace = null;
let out = Buffer.allocUnsafe(OUT), outPos = 0;

function flush() {
  if (outPos === 0) return;
  while (Atomics.load(shared, ${CREDIT}) <= 0 && Atomics.load(shared, ${ABORTED}) === 0) Atomics.wait(shared, ${CREDIT}, 0);
  if (Atomics.load(shared, ${ABORTED}) !== 0) throw new Error('aborted');
  Atomics.sub(shared, ${CREDIT}, 1);
  const chunk = out.buffer.slice(out.byteOffset, out.byteOffset + outPos);
  parentPort.postMessage({ type: 'out', chunk }, [chunk]);
  out = Buffer.allocUnsafe(OUT);
  outPos = 0;
}
function emit(byte) {
  out[outPos++] = byte;
  if (outPos === OUT) flush();
}
function ready(final) {
  if (!bits) return false;
  const unread = received - bits.bytesRead;
  return final ? unread > 0 : unread + 1 >= SLACK + UNIT * level;
}
function pump(final) {
  while (ready(final)) {
    if (level === 0) {
      level = bzip2.header(bits);
      crc = 0;
      continue;
    }
    const size = UNIT * level;
    if (!workspace || workspace.length !== size) workspace = new Int32Array(size);
    crc = bzip2.decompress(bits, emit, workspace, size, crc);
    if (crc === null) level = 0; // end of one stream; a concatenated one (pbzip2) may follow
    flush();
  }
  if (final && crc !== null) throw new Error('bzip2 stream ended prematurely');
}
parentPort.on('message', (msg) => {
  try {
    if (msg.type === 'data') {
      const chunk = Buffer.from(msg.chunk);
      pending.push(chunk);
      received += chunk.length;
      if (!bits) bits = bitIterator(() => pending.shift());
      pump(false);
      parentPort.postMessage({ type: 'ack' });
    } else {
      pump(true);
      parentPort.postMessage({ type: 'done' });
    }
  } catch (err) {
    parentPort.postMessage({ type: 'error', message: String(err && err.message || err) });
  }
});
`;

type WorkerMessage = { type: 'out'; chunk: ArrayBuffer } | { type: 'ack' } | { type: 'done' } | { type: 'error'; message: string };

/** bzip2 bytes in, decoded bytes out; destroying it stops the worker. */
export class Bunzip2 extends Duplex {
  private readonly shared = new Int32Array(new SharedArrayBuffer(8));
  private readonly worker: Worker;
  private waiting: ((err?: Error | null) => void) | null = null;
  private finished = false;

  constructor() {
    super();
    Atomics.store(this.shared, CREDIT, CREDIT_WINDOW);
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // The source is CommonJS; an inherited --input-type=module would make it an ES module.
      execArgv: process.execArgv.filter((arg) => !arg.startsWith('--input-type')),
      workerData: {
        // Unpacked from app.asar in the installed app, so the worker needs no asar support to load them.
        bzip2Path: unpackedPath(path.join(UNBZIP2_DIR, 'lib', 'bzip2.js')),
        bitIteratorPath: unpackedPath(path.join(UNBZIP2_DIR, 'lib', 'bit_iterator.js')),
        shared: this.shared.buffer,
        OUT: OUT_CHUNK_BYTES,
        SLACK: BLOCK_SLACK_BYTES,
        UNIT: BLOCK_UNIT_BYTES,
      },
    });
    this.worker.on('message', (msg: WorkerMessage) => this.onMessage(msg));
    this.worker.on('error', (err) => this.destroy(err));
    this.worker.on('exit', (code) => {
      if (!this.finished && !this.destroyed) this.destroy(new Error(`bzip2 decoder exited (${code})`));
    });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    // A fresh ArrayBuffer (never the pooled or shared one behind small Buffers), so it can be transferred.
    const copy = new Uint8Array(chunk).buffer;
    this.waiting = callback;
    this.worker.postMessage({ type: 'data', chunk: copy }, [copy]);
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.waiting = callback;
    this.worker.postMessage({ type: 'end' });
  }

  override _read(): void {
    this.grant();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.stopWorker();
    callback(err);
  }

  private onMessage(msg: WorkerMessage): void {
    switch (msg.type) {
      case 'out':
        if (this.push(Buffer.from(msg.chunk))) this.grant();
        return;
      case 'ack':
        return this.release();
      case 'done':
        this.finished = true;
        this.push(null);
        this.stopWorker();
        return this.release();
      case 'error':
        this.destroy(new Error(`bzip2: ${msg.message}`));
    }
  }

  /** Refill the window once the worker has used it up; the worker only ever decrements a positive count. */
  private grant(): void {
    if (Atomics.load(this.shared, CREDIT) <= 0) {
      Atomics.store(this.shared, CREDIT, CREDIT_WINDOW);
      Atomics.notify(this.shared, CREDIT);
    }
  }

  private release(): void {
    const callback = this.waiting;
    this.waiting = null;
    callback?.();
  }

  private stopWorker(): void {
    Atomics.store(this.shared, ABORTED, 1);
    Atomics.notify(this.shared, CREDIT);
    void this.worker.terminate();
  }
}
