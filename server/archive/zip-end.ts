// Where a zip's end-of-central-directory record is, found as Info-ZIP's unzip and Python's zipfile find it,
// and what view of the file makes it well formed for yauzl (zip-open.ts hands yauzl that view).
// Tolerated, because no member's name, size or bytes depend on them:
// - bytes after the record's comment (at most MAX_TRAILING_JUNK_BYTES);
// - a comment declared longer than the bytes that follow it (the comment is cut short; yauzl is shown its
//   real length). Accepted only when the record is consistent with the file (its central directory ends
//   where the record starts, or a Zip64 locator precedes it), so a stray signature in random bytes is not.
// Everything else about the archive is left to yauzl and the extractor to check.

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_LOCATOR_BYTES = 20;
export const EOCD_BYTES = 22;
/** Where the record's comment length sits in it (APPNOTE 4.3.16). */
const COMMENT_LENGTH_OFFSET = 20;
const CD_SIZE_OFFSET = 12;
const CD_OFFSET_OFFSET = 16;
const MAX_COMMENT_BYTES = 0xffff;
/**
 * Trailing bytes tolerated after the end record; more than this and the archive is not recognised. 64 KiB
 * covers every appended line or signature block seen in practice while bounding the backward search.
 */
export const MAX_TRAILING_JUNK_BYTES = 64 * 1024;
/** How much of the file's end is searched for the record: a record, a full comment and the junk allowance. */
export const ZIP_END_SEARCH_BYTES = ZIP64_LOCATOR_BYTES + EOCD_BYTES + MAX_COMMENT_BYTES + MAX_TRAILING_JUNK_BYTES;

export interface ZipEnd {
  /** Where the archive ends: after the record's comment (bytes past it are ignored). */
  end: number;
  /** Bytes to show in place of the file's own (the corrected comment length), when it needs correcting. */
  patch?: { position: number; bytes: Buffer };
}

/**
 * Locate the end record in `tail`, the file's last bytes, which start at file offset `tailStart`. null when
 * nothing here needs correcting or nothing fits: yauzl then reads the file as it is, or says why not.
 */
export function locateZipEnd(tail: Buffer, tailStart: number): ZipEnd | null {
  // The last record whose comment fits: a well-formed archive, or one with bytes after it.
  for (let i = tail.length - EOCD_BYTES; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== EOCD_SIGNATURE) continue;
    const recordEnd = i + EOCD_BYTES + tail.readUInt16LE(i + COMMENT_LENGTH_OFFSET);
    if (recordEnd <= tail.length) return { end: tailStart + recordEnd };
  }
  // None fits: the last record, its comment cut short by the end of the file, if it is the archive's own.
  for (let i = tail.length - EOCD_BYTES; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== EOCD_SIGNATURE) continue;
    if (!consistent(tail, i, tailStart)) return null;
    const bytes = Buffer.alloc(2);
    bytes.writeUInt16LE(tail.length - i - EOCD_BYTES);
    return { end: tailStart + tail.length, patch: { position: tailStart + i + COMMENT_LENGTH_OFFSET, bytes } };
  }
  return null;
}

/** The record at `i` belongs to this file: its central directory ends where it starts, or Zip64 takes over. */
function consistent(tail: Buffer, i: number, tailStart: number): boolean {
  if (i >= ZIP64_LOCATOR_BYTES && tail.readUInt32LE(i - ZIP64_LOCATOR_BYTES) === ZIP64_LOCATOR_SIGNATURE) return true;
  return tail.readUInt32LE(i + CD_OFFSET_OFFSET) + tail.readUInt32LE(i + CD_SIZE_OFFSET) === tailStart + i;
}
