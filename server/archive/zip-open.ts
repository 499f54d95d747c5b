// Opening a zip the way `unzip` does when bytes follow its end-of-central-directory record. yauzl insists
// that the record's comment length reaches exactly to the end of the file, so an archive with a stray
// trailing newline (real PowerPoint decks have one) fails to open. Here the record is found the way unzip
// finds it (the last signature whose comment fits in the file) and the archive is read as if it ended there.
import fsp from 'node:fs/promises';
import { Readable } from 'node:stream';
import yauzl, { type ZipFile } from 'yauzl';
import { fileChunks } from './file-chunks.js';

const EOCD_SIGNATURE = 0x06054b50;
const EOCD_BYTES = 22;
const MAX_COMMENT_BYTES = 0xffff;
/** Trailing bytes tolerated after the end record; more than this and the archive is not recognised. */
export const MAX_TRAILING_JUNK_BYTES = 64 * 1024;

export async function openZip(archivePath: string, options: yauzl.Options): Promise<ZipFile> {
  const handle = await fsp.open(archivePath, 'r');
  let end: number;
  let size: number;
  try {
    size = (await handle.stat()).size;
    end = await zipEnd(handle, size);
  } catch (err) {
    await handle.close();
    throw err;
  }
  if (end === size) {
    await handle.close();
    return yauzl.openPromise(archivePath, options);
  }
  const reader = new FdReader(handle);
  try {
    return await yauzl.fromRandomAccessReaderPromise(reader, end, options);
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** Where the archive ends: just after the end record's comment; the file size when no record fits. */
async function zipEnd(handle: fsp.FileHandle, size: number): Promise<number> {
  const tailBytes = Math.min(size, EOCD_BYTES + MAX_COMMENT_BYTES + MAX_TRAILING_JUNK_BYTES);
  const tail = Buffer.alloc(tailBytes);
  await handle.read(tail, 0, tailBytes, size - tailBytes);
  for (let i = tailBytes - EOCD_BYTES; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== EOCD_SIGNATURE) continue;
    const recordEnd = i + EOCD_BYTES + tail.readUInt16LE(i + 20);
    if (recordEnd <= tailBytes) return size - tailBytes + recordEnd;
  }
  return size;
}

/** yauzl's reader over an open file, for an archive shorter than its file. */
class FdReader extends yauzl.RandomAccessReader {
  constructor(private readonly handle: fsp.FileHandle) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
        return Readable.from(fileChunks(this.handle, start, end), { objectMode: false });
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null) => void): void {
    this.handle.read(buffer, offset, length, position).then(
      ({ bytesRead }) => callback(bytesRead === length ? null : new Error('unexpected end of zip file')),
      (err: Error) => callback(err),
    );
  }

  override close(callback: (err: Error | null) => void): void {
    this.handle.close().then(() => callback(null), callback);
  }
}
