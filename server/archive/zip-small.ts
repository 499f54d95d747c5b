// Small zip members in one step: their local header and data come out of a read-ahead window over the archive
// and are inflated synchronously. Through yauzl every member costs two header reads, a read stream and an
// asynchronous inflate stream, each a round trip through the thread pool; for an archive of a thousand
// source files that waiting, not decoding, was most of the time (node --cpu-prof: ~75 % idle). Members are
// laid out in central-directory order, so one window read serves many of them. Large members keep the
// streaming path, so memory and the time the event loop is held stay bounded by the constants below.
import type fsp from 'node:fs/promises';
import { crc32, inflateRawSync } from 'node:zlib';
import type { Entry } from 'yauzl';

/** A member whose compressed and uncompressed sizes are both at most this is read and inflated in one step
 *  (a 1 MiB inflate holds the event loop for about a millisecond). */
export const SMALL_MEMBER_BYTES = 1024 * 1024;
/** Bytes read ahead at a time. */
export const WINDOW_BYTES = 1024 * 1024;

const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const LOCAL_HEADER_BYTES = 30;
const STORED = 0;

export function isSmall(entry: Entry): boolean {
  return entry.compressedSize <= SMALL_MEMBER_BYTES && entry.uncompressedSize <= SMALL_MEMBER_BYTES;
}

/** Positioned reads of the archive through a window; never past `end` (the archive's logical end). */
export class WindowReader {
  private start = 0;
  private window = Buffer.alloc(0);

  constructor(
    private readonly handle: fsp.FileHandle,
    private readonly end: number,
  ) {}

  async bytes(position: number, length: number): Promise<Buffer> {
    if (position < 0 || position + length > this.end) throw new Error('Zip member data overflows the archive');
    if (position < this.start || position + length > this.start + this.window.length) {
      const size = Math.min(Math.max(length, WINDOW_BYTES), this.end - position);
      const buffer = Buffer.allocUnsafe(size);
      let filled = 0;
      while (filled < size) {
        const { bytesRead } = await this.handle.read(buffer, filled, size - filled, position + filled);
        if (bytesRead === 0) throw new Error('Unexpected end of zip file');
        filled += bytesRead;
      }
      this.start = position;
      this.window = buffer;
    }
    return this.window.subarray(position - this.start, position - this.start + length);
  }
}

/** The member's bytes, checked as yauzl checks them (local header, bounds, exact size) plus its CRC-32. */
export async function readSmallMember(reader: WindowReader, entry: Entry, onBadCrc: () => Error): Promise<Buffer> {
  const header = await reader.bytes(entry.relativeOffsetOfLocalHeader, LOCAL_HEADER_BYTES);
  if (header.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE) throw new Error('Invalid local file header signature');
  const dataStart = entry.relativeOffsetOfLocalHeader + LOCAL_HEADER_BYTES + header.readUInt16LE(26) + header.readUInt16LE(28);
  const data = await reader.bytes(dataStart, entry.compressedSize);
  let out: Buffer;
  if (entry.compressionMethod === STORED) {
    if (entry.compressedSize !== entry.uncompressedSize) throw new Error('Stored zip member with mismatched sizes');
    out = Buffer.from(data);
  } else {
    // Never more than the declared size: a member that inflates further is corrupt (or a bomb) and throws.
    out = inflateRawSync(data, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
  }
  if (out.length !== entry.uncompressedSize) throw new Error('Zip member size does not match its header');
  if (crc32(out) >>> 0 !== entry.crc32 >>> 0) throw onBadCrc();
  return out;
}
