// The worker of bunzip2-parallel.ts: decodes whole bzip2 streams lying between two byte offsets of an open
// file, with unbzip2-stream's block decoder (as bunzip2.ts). Plain CommonJS evaluated as the worker's source,
// so it runs from the TypeScript sources under the test runner and from the compiled output alike.
//
// A segment is accepted only when its streams end exactly at its end offset: a stream that needs bytes past
// the end throws from the input function (the bit reader asks for them before a block emits anything), and
// bytes left over after an end-of-stream marker must begin another stream. Either way the segment fails and
// the reader decodes from its start sequentially.

export const CREDIT = 0;
export const ABORTED = 1;

export interface SegmentWorkerData {
  bzip2Path: string;
  bitIteratorPath: string;
  /** Int32Array [credit, aborted] over a SharedArrayBuffer. */
  shared: SharedArrayBuffer;
  fd: number;
  outBytes: number;
  inBytes: number;
  blockUnitBytes: number;
}

export type ToSegmentWorker = { type: 'segment'; index: number; start: number; end: number };
export type FromSegmentWorker =
  | { type: 'out'; index: number; chunk: ArrayBuffer }
  | { type: 'end'; index: number }
  | { type: 'failed'; index: number; message: string };

export const SEGMENT_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const bzip2 = require(workerData.bzip2Path);
const bitIterator = require(workerData.bitIteratorPath);
const shared = new Int32Array(workerData.shared);
const { fd, outBytes, inBytes, blockUnitBytes } = workerData;
let workspace = null, out = Buffer.allocUnsafe(outBytes), outPos = 0, index = -1;

function aborted() {
  return Atomics.load(shared, ${ABORTED}) !== 0;
}
function flush() {
  if (outPos === 0) return;
  while (Atomics.load(shared, ${CREDIT}) <= 0 && !aborted()) Atomics.wait(shared, ${CREDIT}, Atomics.load(shared, ${CREDIT}));
  if (aborted()) throw new Error('aborted');
  Atomics.sub(shared, ${CREDIT}, 1);
  const chunk = out.buffer.slice(out.byteOffset, out.byteOffset + outPos);
  parentPort.postMessage({ type: 'out', index, chunk }, [chunk]);
  out = Buffer.allocUnsafe(outBytes);
  outPos = 0;
}
function emit(byte) {
  out[outPos++] = byte;
  if (outPos === outBytes) flush();
}
function decode(start, end) {
  let position = start;
  const bits = bitIterator(() => {
    if (position >= end) throw new Error('bzip2 stream runs past its segment');
    const length = Math.min(inBytes, end - position);
    const buffer = Buffer.allocUnsafe(length);
    const read = fs.readSync(fd, buffer, 0, length, position);
    if (read === 0) throw new Error('unexpected end of file');
    position += read;
    return buffer.subarray(0, read);
  });
  do {
    const size = blockUnitBytes * bzip2.header(bits);
    if (!workspace || workspace.length !== size) workspace = new Int32Array(size);
    let crc = 0;
    while ((crc = bzip2.decompress(bits, emit, workspace, size, crc)) !== null);
  } while (start + bits.bytesRead < end);
  flush();
}
parentPort.on('message', (msg) => {
  index = msg.index;
  try {
    decode(msg.start, msg.end);
    parentPort.postMessage({ type: 'end', index });
  } catch (err) {
    outPos = 0;
    if (!aborted()) parentPort.postMessage({ type: 'failed', index, message: String((err && err.message) || err) });
  }
});
`;
