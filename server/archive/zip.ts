// Zip engine: yauzl reads the central directory (the authoritative member list; local headers can lie and
// can overlap), validates entry sizes against the stream, and inflates asynchronously through zlib. yauzl does
// not check CRC-32s, so every member's bytes are checked here while they are written.
import { crc32 } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { MAX_ARCHIVE_MEMBERS, tooManyMembers } from './limits.js';
import { memberSegments } from './names.js';
import { nextZipEntry } from './zip-entries.js';
import type { MemberWriter } from './safe-write.js';

// Unix mode bits live in the high 16 bits of the external attributes (zip "version made by" = Unix).
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const DOS_DIRECTORY = 0x10;

const OPEN_OPTIONS: yauzl.Options = {
  lazyEntries: true,
  autoClose: false,
  // Names are decoded here, not by yauzl, so a `../x` or `C:\x` member becomes the specification's
  // `Zip-slip blocked: <name>` (a 400) instead of yauzl's generic error (a 500).
  decodeStrings: false,
  validateEntrySizes: true,
};

export async function extractZip(archivePath: string, writer: MemberWriter, signal?: AbortSignal): Promise<void> {
  const zip = await yauzl.openPromise(archivePath, OPEN_OPTIONS);
  const reader = new EntryReader(zip);
  try {
    // The end-of-central-directory count is checked before a single byte is written.
    if (zip.entryCount > MAX_ARCHIVE_MEMBERS) throw tooManyMembers();
    for (let entry = await reader.next(); entry; entry = await reader.next()) {
      signal?.throwIfAborted();
      const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
      // Every name is checked, also of members that would be skipped: a hostile archive is refused whole.
      const segments = memberSegments('zip', name);
      if (!isRegularFile(entry, name)) continue;
      // validateEntrySizes makes the declared size exact, so an entry that cannot fit fails before its
      // first byte; the writer still counts the real bytes.
      writer.ensureRoom(entry.uncompressedSize);
      const current = entry;
      await writer.write(segments, async () => crcChecked(await zip.openReadStreamPromise(current), current.crc32, segments.join('/')));
    }
  } finally {
    zip.close();
  }
}

/** Bytes that do not match their member's CRC-32: a corrupt archive (a 500), not a client mistake. */
export class ZipChecksumError extends Error {
  constructor(memberPath: string) {
    super(`Zip member failed its CRC-32 check: ${memberPath}`);
    this.name = 'ZipChecksumError';
  }
}

/**
 * The member's data, passed through unchanged while its CRC-32 is computed (zlib.crc32: Node ≥ 20.15, and
 * package.json asks for ≥ 20.19). After the last byte a mismatch throws, so the writer removes the file and the
 * extraction fails; the bytes already written never outlive the check.
 */
async function* crcChecked(source: AsyncIterable<Uint8Array>, expected: number, memberPath: string): AsyncGenerator<Uint8Array> {
  let crc = 0;
  for await (const chunk of source) {
    crc = crc32(chunk, crc);
    yield chunk;
  }
  if (crc >>> 0 !== expected >>> 0) throw new ZipChecksumError(memberPath);
}

/** Directories, symlinks, devices and fifos are never written; only the bits the archive declares count. */
function isRegularFile(entry: Entry, name: string): boolean {
  if (name.endsWith('/') || name.endsWith('\\')) return false;
  const type = (entry.externalFileAttributes >>> 16) & S_IFMT;
  if (type !== 0 && type !== S_IFREG) return false;
  return (entry.externalFileAttributes & DOS_DIRECTORY) === 0;
}

/** yauzl's lazy entry events as a pull API; an error emitted between pulls is kept for the next one. */
class EntryReader {
  private failure: Error | undefined;

  constructor(private readonly zip: ZipFile) {
    zip.on('error', (err: Error) => {
      this.failure ??= err;
    });
  }

  next(): Promise<Entry | null> {
    if (this.failure) return Promise.reject(this.failure);
    return nextZipEntry(this.zip);
  }
}
