// Streaming bzip2 decoder. The block decoder is unbzip2-stream's pure-JS one (about 40 M downloads a month,
// the decoder behind decompress-tarbz2; no native code, so it runs on every desktop OS and in Electron
// without a rebuild). Its own stream wrapper is not used: it collects each block's output in a JS array
// of numbers (8 bytes per output byte, up to ~46 MB of output per 900 kB block) and is a pre-streams3
// `through` stream. This wrapper writes each block straight into 64 KiB Buffers, is a real Transform
// (backpressure), and yields to the event loop between blocks.
import { createRequire } from 'node:module';
import { Transform, type TransformCallback } from 'node:stream';

type BitReader = ((n: number | null) => number) & { bytesRead: number };
interface Bzip2Lib {
  header(bits: BitReader): number;
  decompress(bits: BitReader, out: (byte: number) => void, buf: Int32Array, size: number, crc: number | null): number | null;
}

const require = createRequire(import.meta.url);
const bzip2 = require('unbzip2-stream/lib/bzip2.js') as Bzip2Lib;
const bitIterator = require('unbzip2-stream/lib/bit_iterator.js') as (next: () => Buffer | undefined) => BitReader;

const OUT_CHUNK_BYTES = 65536;
// A compressed block never exceeds 100 kB × level plus this slack (upstream's bound); decoding starts only
// once that much input is buffered, because the bit reader cannot wait for more in the middle of a block.
const BLOCK_SLACK_BYTES = 25000;
const BLOCK_UNIT_BYTES = 100000;

export class Bunzip2 extends Transform {
  private readonly pending: Buffer[] = [];
  private received = 0;
  private bits: BitReader | null = null;
  private level = 0;
  private crc: number | null = null;
  private out = Buffer.allocUnsafe(OUT_CHUNK_BYTES);
  private outPos = 0;
  private workspace: Int32Array | null = null;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.pending.push(chunk);
    this.received += chunk.length;
    this.bits ??= bitIterator(() => this.pending.shift());
    this.pump(false, callback);
  }

  override _flush(callback: TransformCallback): void {
    this.pump(true, callback);
  }

  private pump(final: boolean, callback: TransformCallback): void {
    const step = (): void => {
      try {
        if (!this.ready(final)) {
          if (final && this.crc !== null) throw new Error('bzip2 stream ended prematurely');
          callback();
          return;
        }
        this.decodeOne();
      } catch (err) {
        callback(err as Error);
        return;
      }
      setImmediate(step);
    };
    step();
  }

  private ready(final: boolean): boolean {
    if (!this.bits) return false;
    const unread = this.received - this.bits.bytesRead;
    if (final) return unread > 0;
    return unread + 1 >= BLOCK_SLACK_BYTES + BLOCK_UNIT_BYTES * this.level;
  }

  /** One stream header or one block: the unit of synchronous work between event-loop turns. */
  private decodeOne(): void {
    const bits = this.bits!;
    if (this.level === 0) {
      this.level = bzip2.header(bits);
      this.crc = 0;
      return;
    }
    const size = BLOCK_UNIT_BYTES * this.level;
    if (!this.workspace || this.workspace.length !== size) this.workspace = new Int32Array(size);
    this.crc = bzip2.decompress(bits, (byte) => this.emitByte(byte), this.workspace, size, this.crc);
    if (this.crc === null) this.level = 0; // end of one stream; a concatenated one (pbzip2) may follow
    this.flushOut();
  }

  private emitByte(byte: number): void {
    this.out[this.outPos++] = byte;
    if (this.outPos === OUT_CHUNK_BYTES) this.flushOut();
  }

  private flushOut(): void {
    if (this.outPos === 0) return;
    this.push(this.out.subarray(0, this.outPos));
    this.out = Buffer.allocUnsafe(OUT_CHUNK_BYTES);
    this.outPos = 0;
  }
}
