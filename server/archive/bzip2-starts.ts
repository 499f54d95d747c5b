// Where the streams of a multi-stream bzip2 file (pbzip2, or `cat a.bz2 b.bz2`) may begin. Every stream is
// padded to a whole byte, so the next one starts byte-aligned with `BZh` + level digit + the first block's
// magic 0x314159265359. The same ten bytes can also occur inside compressed data (by chance or by design),
// so an offset found here is only a candidate: the decoder accepts a split once the stream before it has
// decoded to its end-of-stream marker exactly there (bunzip2-parallel.ts).
import type fsp from 'node:fs/promises';

/** The file is scanned in reads of this size. */
export const SCAN_CHUNK_BYTES = 1024 * 1024;
const BLOCK_MAGIC = Buffer.from('314159265359', 'hex');
/** `BZh` and the level digit before the block magic. */
const HEADER_BYTES = 4;
const CANDIDATE_BYTES = HEADER_BYTES + BLOCK_MAGIC.length;
const B = 0x42;
const Z = 0x5a;
const H = 0x68;
const DIGIT_1 = 0x31;
const DIGIT_9 = 0x39;

/** Candidate stream starts of a file in increasing order, read lazily with one scan buffer of memory. */
export class StreamStarts {
  private buffer = Buffer.alloc(0);
  /** File offset of buffer[0]. */
  private bufferStart = 0;
  /** The last candidate returned (-1: none yet). */
  private last = -1;

  constructor(
    private readonly handle: fsp.FileHandle,
    private fileEnd: number,
  ) {}

  /** The file's size (less if it shrank while being scanned). */
  get size(): number {
    return this.fileEnd;
  }

  /**
   * The next candidate after the previous one; `size` when there is none. With `scanLimit`, null when the
   * scan passes that offset without finding one (the scan can go on with a later call).
   */
  async next(scanLimit = Number.POSITIVE_INFINITY): Promise<number | null> {
    for (;;) {
      const hit = this.search();
      if (hit !== null) {
        this.last = hit;
        return hit;
      }
      const scanned = this.bufferStart + this.buffer.length;
      if (scanned >= this.size) return this.size;
      if (scanned >= scanLimit) return null;
      await this.readMore();
    }
  }

  private search(): number | null {
    let from = Math.max(0, this.last + 1 - this.bufferStart) + HEADER_BYTES;
    for (;;) {
      const at = this.buffer.indexOf(BLOCK_MAGIC, from);
      if (at === -1) return null;
      const start = at - HEADER_BYTES;
      const b = this.buffer;
      if (b[start] === B && b[start + 1] === Z && b[start + 2] === H && b[start + 3]! >= DIGIT_1 && b[start + 3]! <= DIGIT_9) {
        return this.bufferStart + start;
      }
      from = at + 1;
    }
  }

  /** Reads the next chunk, keeping the tail that could hold the start of a candidate cut by the read. */
  private async readMore(): Promise<void> {
    const keep = Math.min(this.buffer.length, CANDIDATE_BYTES - 1);
    const position = this.bufferStart + this.buffer.length;
    const length = Math.min(SCAN_CHUNK_BYTES, this.size - position);
    const next = Buffer.allocUnsafe(keep + length);
    this.buffer.copy(next, 0, this.buffer.length - keep);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await this.handle.read(next, keep + filled, length - filled, position + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    this.buffer = next.subarray(0, keep + filled);
    this.bufferStart = position - keep;
    // A file that shrank under us: stop at what is there.
    if (filled < length) this.fileEnd = position + filled;
  }
}
