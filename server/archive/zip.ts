// Zip engine: yauzl reads the central directory (the authoritative member list; local headers can lie and
// can overlap), validates entry sizes against the stream, and inflates asynchronously through zlib. yauzl does
// not check CRC-32s, so every member's bytes are checked here while they are written. Small members skip
// yauzl's per-member streams (zip-small.ts: same checks, one read-ahead window, synchronous inflate).
import fsp from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { MAX_ARCHIVE_MEMBERS, tooManyMembers } from './limits.js';
import { memberSegments } from './names.js';
import { nextZipEntry } from './zip-entries.js';
import { checkReadable } from './zip-methods.js';
import { decodeZipName } from './zip-names.js';
import { openZip } from './zip-open.js';
import { isSmall, readSmallMember, WindowReader } from './zip-small.js';
import { fileModeFor, type MemberWriter, type SkipReason } from './safe-write.js';

// Unix mode bits live in the high 16 bits of the external attributes (zip "version made by" = Unix).
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const S_IFIFO = 0o010000;
const S_IFCHR = 0o020000;
const S_IFBLK = 0o060000;
const PERMISSION_BITS = 0o7777;
const DOS_DIRECTORY = 0x10;
/** "Version made by" host systems whose external attributes carry a Unix mode (APPNOTE 4.4.2: Unix, OS X). */
const UNIX_HOSTS = new Set([3, 19]);

export const OPEN_OPTIONS: yauzl.Options = {
  lazyEntries: true,
  autoClose: false,
  // Names are decoded here, not by yauzl, so a `../x` or `C:\x` member becomes the specification's
  // `Zip-slip blocked: <name>` (a 400) instead of yauzl's generic error (a 500).
  decodeStrings: false,
  validateEntrySizes: true,
};

export async function extractZip(archivePath: string, writer: MemberWriter, signal?: AbortSignal): Promise<void> {
  const zip = await openZip(archivePath, OPEN_OPTIONS);
  const reader = new EntryReader(zip);
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(archivePath, 'r');
    // yauzl's end of the archive (before any bytes trailing its end record).
    const window = new WindowReader(handle, (zip as unknown as { fileSize: number }).fileSize);
    // The end-of-central-directory count is checked before a single byte is written.
    if (zip.entryCount > MAX_ARCHIVE_MEMBERS) throw tooManyMembers();
    for (let entry = await reader.next(); entry; entry = await reader.next()) {
      signal?.throwIfAborted();
      const name = decodeZipName(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields);
      // Every name is checked, also of members that would be skipped: a hostile archive is refused whole.
      const segments = memberSegments('zip', name);
      const kind = memberKind(entry, name);
      if (kind === 'directory') {
        writer.noteDirectory(segments);
        continue;
      }
      if (kind !== 'file') {
        writer.skip(segments.join('/'), kind);
        continue;
      }
      checkReadable(entry, name);
      // validateEntrySizes makes the declared size exact, so an entry that cannot fit fails before its
      // first byte; the writer still counts the real bytes.
      writer.ensureRoom(entry.uncompressedSize);
      const current = entry;
      const mode = fileModeFor(unixMode(entry));
      if (isSmall(current)) {
        // Read and checked (CRC-32 included) in one step; its file is written while the next members are read.
        await writer.writeBuffer(segments, () => readSmallMember(window, current, () => new ZipChecksumError(segments.join('/'))), mode);
      } else {
        const open = async () => crcChecked(await zip.openReadStreamPromise(current), current.crc32, segments.join('/'));
        await writer.write(segments, open, mode);
      }
    }
    await writer.settle();
    writer.finish();
  } finally {
    zip.close();
    await handle?.close();
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

/** The member's Unix permission bits, when its archive was made on a Unix host and records them. */
function unixMode(entry: Entry): number | undefined {
  if (!UNIX_HOSTS.has(entry.versionMadeBy >>> 8)) return undefined;
  const mode = entry.externalFileAttributes >>> 16;
  return mode === 0 ? undefined : mode & PERMISSION_BITS;
}

/** Directories, symlinks, devices and fifos are never written; only the bits the archive declares count. */
export function memberKind(entry: Entry, name: string): 'file' | 'directory' | SkipReason {
  if (name.endsWith('/') || name.endsWith('\\')) return 'directory';
  const type = (entry.externalFileAttributes >>> 16) & S_IFMT;
  switch (type) {
    case 0:
    case S_IFREG:
      return (entry.externalFileAttributes & DOS_DIRECTORY) === 0 ? 'file' : 'directory';
    case S_IFDIR:
      return 'directory';
    case S_IFLNK:
      return 'symlink';
    case S_IFIFO:
      return 'fifo';
    case S_IFCHR:
    case S_IFBLK:
      return 'device';
    default:
      return 'unsupported-type';
  }
}

/** yauzl's lazy entry events as a pull API; an error emitted between pulls is kept for the next one. */
export class EntryReader {
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
