// Opening a zip as leniently as `unzip`, bsdtar and Python's zipfile do about its end-of-central-directory
// record, and no further. yauzl insists that the record's comment length reaches exactly to the end of the
// file, so two harmless defects fail it with "Invalid comment length":
// - bytes after the record (real PowerPoint decks end with a stray newline; a download tool appends a line);
// - a comment declared longer than the bytes that follow (a copy cut short inside the comment).
// Neither touches a member: the comment is never used. So the record is located here (zip-end.ts) and yauzl
// is handed a corrected view of the file: cut after the record, or with the record's comment length set to
// what is really there. Everything that decides what is written (the central directory, names, sizes, CRCs,
// overlaps) is still read and checked by yauzl and the extractor exactly as before.
import fsp from 'node:fs/promises';
import { Readable } from 'node:stream';
import yauzl, { type ZipFile } from 'yauzl';
import { fileChunks } from './file-chunks.js';
import { locateZipEnd, ZIP_END_SEARCH_BYTES, type ZipEnd } from './zip-end.js';

export { MAX_TRAILING_JUNK_BYTES } from './zip-end.js';

/** Open the zip at `archivePath`, tolerating the end-record defects above. */
export async function openZip(archivePath: string, options: yauzl.Options): Promise<ZipFile> {
  const handle = await fsp.open(archivePath, 'r');
  let found: ZipEnd | null;
  let size: number;
  try {
    size = (await handle.stat()).size;
    const tailBytes = Math.min(size, ZIP_END_SEARCH_BYTES);
    const tail = Buffer.alloc(tailBytes);
    await handle.read(tail, 0, tailBytes, size - tailBytes);
    found = locateZipEnd(tail, size - tailBytes);
  } catch (err) {
    await handle.close();
    throw err;
  }
  if (found === null || (found.end === size && found.patch === undefined)) {
    // A well-formed archive, or one no end record fits: yauzl reads it, or says why not.
    await handle.close();
    return yauzl.openPromise(archivePath, options);
  }
  const reader = new ZipView(new FileSource(handle), found);
  try {
    return await yauzl.fromRandomAccessReaderPromise(reader, found.end, options);
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * The zip held open by `handle` (`size` bytes), tolerating the same defects as openZip. The handle stays the
 * caller's: closing the zip does not close it (a listing reads through the descriptor its caller opened inside
 * the attachment folder, never by a path that could have been swapped since).
 */
export async function openZipHandle(handle: fsp.FileHandle, size: number, options: yauzl.Options): Promise<ZipFile> {
  const tailBytes = Math.min(size, ZIP_END_SEARCH_BYTES);
  const tail = Buffer.alloc(tailBytes);
  await handle.read(tail, 0, tailBytes, size - tailBytes);
  // No end record fits: yauzl is given the whole file, and says why it is not a zip.
  const found = locateZipEnd(tail, size - tailBytes) ?? { end: size };
  return yauzl.fromRandomAccessReaderPromise(new ZipView(new FileSource(handle, false), found), found.end, options);
}

/** The zip in `buffer`, tolerating the same defects as openZip. */
export async function openZipBuffer(buffer: Buffer, options: yauzl.Options): Promise<ZipFile> {
  const found = locateZipEnd(buffer.subarray(Math.max(0, buffer.length - ZIP_END_SEARCH_BYTES)), Math.max(0, buffer.length - ZIP_END_SEARCH_BYTES));
  if (found === null) return yauzl.fromBufferPromise(buffer, options);
  // Only cut: a view of the same memory, no copy.
  if (found.patch === undefined) return yauzl.fromBufferPromise(buffer.subarray(0, found.end), options);
  return yauzl.fromRandomAccessReaderPromise(new ZipView(new BufferSource(buffer), found), found.end, options);
}

interface Source {
  /** Fill `target` from `position`; the number of bytes read. */
  readAt(target: Buffer, position: number): Promise<number>;
  close(): Promise<void>;
}

class FileSource implements Source {
  /** `owned`: closing the zip closes the handle. */
  constructor(
    private readonly handle: fsp.FileHandle,
    private readonly owned = true,
  ) {}
  async readAt(target: Buffer, position: number): Promise<number> {
    return (await this.handle.read(target, 0, target.length, position)).bytesRead;
  }
  chunks(start: number, end: number): AsyncIterable<Buffer> {
    return fileChunks(this.handle, start, end);
  }
  close(): Promise<void> {
    return this.owned ? this.handle.close() : Promise.resolve();
  }
}

class BufferSource implements Source {
  constructor(private readonly buffer: Buffer) {}
  async readAt(target: Buffer, position: number): Promise<number> {
    return this.buffer.copy(target, 0, position, Math.min(this.buffer.length, position + target.length));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** yauzl's reader over the archive as zip-end.ts located it: `end` bytes long, its comment length corrected. */
class ZipView extends yauzl.RandomAccessReader {
  constructor(
    private readonly source: FileSource | BufferSource,
    private readonly found: ZipEnd,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const source = this.source;
    const view = this;
    if (source instanceof FileSource) {
      return Readable.from(
        (async function* () {
          let position = start;
          for await (const chunk of source.chunks(start, end)) {
            view.applyPatch(chunk, position);
            position += chunk.length;
            yield chunk;
          }
        })(),
        { objectMode: false },
      );
    }
    const chunk = Buffer.alloc(end - start);
    return Readable.from(
      (async function* () {
        if ((await source.readAt(chunk, start)) !== chunk.length) throw new Error('unexpected end of zip file');
        view.applyPatch(chunk, start);
        yield chunk;
      })(),
      { objectMode: false },
    );
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null) => void): void {
    const target = buffer.subarray(offset, offset + length);
    this.source.readAt(target, position).then(
      (bytesRead) => {
        if (bytesRead !== length) return callback(new Error('unexpected end of zip file'));
        this.applyPatch(target, position);
        callback(null);
      },
      (err: Error) => callback(err),
    );
  }

  override close(callback: (err: Error | null) => void): void {
    this.source.close().then(() => callback(null), callback);
  }

  /** Overlay the corrected bytes on `chunk`, which holds the file from `position`. */
  applyPatch(chunk: Buffer, position: number): void {
    const patch = this.found.patch;
    if (patch === undefined) return;
    for (let i = 0; i < patch.bytes.length; i++) {
      const at = patch.position + i - position;
      if (at >= 0 && at < chunk.length) chunk[at] = patch.bytes[i]!;
    }
  }
}
