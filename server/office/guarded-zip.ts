// A zip reader that refuses archive bombs before anything parses the archive's contents. Every limit is
// checked twice: against the sizes the archive declares (cheap, before inflating) and against the bytes
// actually inflated (headers can lie), and a member is only ever held in memory within those limits. A
// caller may name the members it needs: the others (images, media, embedded objects) are listed and counted
// but never inflated, so they cannot exhaust anything, and they do not count against the byte limits.
import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import type { Entry, ZipFile } from 'yauzl';
import { nextZipEntry } from '../archive/zip-entries.js';
import { openZipBuffer } from '../archive/zip-open.js';
import { OfficeError, printable } from './office-error.js';

export interface ZipLimits {
  /** Members in the central directory, directories included. */
  maxMembers: number;
  /** Inflated bytes over all members. */
  maxTotalBytes: number;
  /** Inflated bytes of one member. */
  maxMemberBytes: number;
  /** Inflated bytes per compressed byte, per member. */
  maxRatio: number;
}

/** The inflated members of a guarded zip, keyed by lower-cased name: OPC part names are case-insensitive. */
export type ZipMembers = ReadonlyMap<string, Buffer>;

/** Which members to inflate, by their lower-cased name; the default is all of them. */
export type WantMember = (lowerName: string) => boolean;
const EVERY_MEMBER: WantMember = () => true;

// The signature an encrypted (or pre-2007) Office file starts with: an OLE compound file, not a zip.
const OLE_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** Read the wanted members of the zip in `buffer` into memory, enforcing `limits`; throws OfficeError on violation. */
export async function readGuardedZip(buffer: Buffer, limits: ZipLimits, want: WantMember = EVERY_MEMBER): Promise<ZipMembers> {
  if (buffer.subarray(0, OLE_MAGIC.length).equals(OLE_MAGIC)) {
    throw new OfficeError('Encrypted or legacy Office file (OLE compound document, not a zip)', { reason: 'encrypted' });
  }
  let zip: ZipFile;
  try {
    // As lenient as unzip about the end record (a trailing newline, a comment cut short): zip-open.ts.
    zip = await openZipBuffer(buffer, {
      lazyEntries: true,
      decodeStrings: true,
      validateEntrySizes: true,
      strictFileNames: true,
    });
  } catch (err) {
    throw new OfficeError(`Not a readable zip: ${messageOf(err)}`, { cause: err, reason: 'not-zip' });
  }
  // yauzl emits 'error' on the zip object; an unheard one would crash the process. nextEntry() reports it.
  zip.on('error', () => {});
  try {
    // The central directory's own count is checked before a single entry is read.
    if (zip.entryCount > limits.maxMembers) {
      throw new OfficeError(`Zip has too many members (${zip.entryCount} > ${limits.maxMembers})`, { reason: 'too-many-parts' });
    }
    return await readAllMembers(zip, limits, want);
  } finally {
    zip.close();
  }
}

async function readAllMembers(zip: ZipFile, limits: ZipLimits, want: WantMember): Promise<ZipMembers> {
  const members = new Map<string, Buffer>();
  const names = new Set<string>();
  let seen = 0;
  let declaredTotal = 0;
  let actualTotal = 0;
  for (let entry = await nextEntry(zip); entry; entry = await nextEntry(zip)) {
    seen += 1;
    if (seen > limits.maxMembers) throw new OfficeError(`Zip has too many members (> ${limits.maxMembers})`, { reason: 'too-many-parts' });
    const key = entry.fileName.toLowerCase();
    // Two members with one name would let different readers see different documents.
    if (names.has(key)) throw new OfficeError(`Zip has a duplicate member: ${printable(entry.fileName)}`, { reason: 'malformed' });
    names.add(key);
    if (entry.isEncrypted()) throw new OfficeError(`Zip member is encrypted: ${printable(entry.fileName)}`, { reason: 'encrypted' });
    if (!want(key)) continue;
    // Directory entries are inflated and counted too: another zip reader might not agree that they are
    // directories, and then their data must have passed the same limits.
    checkDeclared(entry, limits);
    declaredTotal += entry.uncompressedSize;
    if (declaredTotal > limits.maxTotalBytes) {
      throw new OfficeError(`Zip is too large when inflated (> ${limits.maxTotalBytes} bytes)`, { reason: 'too-large' });
    }
    const data = await inflateMember(zip, entry, limits, limits.maxTotalBytes - actualTotal);
    actualTotal += data.length;
    members.set(key, data);
  }
  return members;
}

function checkDeclared(entry: Entry, limits: ZipLimits): void {
  if (entry.uncompressedSize > limits.maxMemberBytes) {
    throw new OfficeError(`Zip member too large: ${printable(entry.fileName)} (> ${limits.maxMemberBytes} bytes)`, { reason: 'too-large' });
  }
  // An empty compressed stream may only inflate to nothing.
  if (entry.uncompressedSize > entry.compressedSize * limits.maxRatio) {
    throw new OfficeError(`Zip member compression ratio above ${limits.maxRatio}: ${printable(entry.fileName)}`, { reason: 'bomb' });
  }
}

/** Inflate one member, counting real bytes and stopping at the first byte past any limit. */
async function inflateMember(zip: ZipFile, entry: Entry, limits: ZipLimits, totalLeft: number): Promise<Buffer> {
  let stream: Readable;
  try {
    stream = await zip.openReadStreamPromise(entry);
  } catch (err) {
    throw new OfficeError(`Zip member unreadable: ${printable(entry.fileName)}: ${messageOf(err)}`, { cause: err, reason: 'not-zip' });
  }
  const ratioLimit = entry.compressedSize * limits.maxRatio;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (err: OfficeError) => {
      stream.destroy();
      reject(err);
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxMemberBytes) {
        stop(new OfficeError(`Zip member too large: ${printable(entry.fileName)} (> ${limits.maxMemberBytes} bytes)`, { reason: 'too-large' }));
      } else if (size > ratioLimit) {
        stop(new OfficeError(`Zip member compression ratio above ${limits.maxRatio}: ${printable(entry.fileName)}`, { reason: 'bomb' }));
      } else if (size > totalLeft) {
        stop(new OfficeError(`Zip is too large when inflated (> ${limits.maxTotalBytes} bytes)`, { reason: 'too-large' }));
      } else {
        chunks.push(chunk);
      }
    });
    stream.on('error', (err) => reject(new OfficeError(`Zip member unreadable: ${printable(entry.fileName)}: ${messageOf(err)}`, { cause: err, reason: 'not-zip' })));
    stream.on('end', () => {
      const data = Buffer.concat(chunks, size);
      // yauzl checks sizes, not checksums: a member whose bytes were changed would otherwise convert silently.
      if (crc32(data) >>> 0 !== entry.crc32 >>> 0) {
        reject(new OfficeError(`Zip member failed its CRC-32 check: ${printable(entry.fileName)}`, { reason: 'malformed' }));
      } else {
        resolve(data);
      }
    });
  });
}

function nextEntry(zip: ZipFile): Promise<Entry | null> {
  return nextZipEntry(zip).catch((err: unknown) => {
    throw new OfficeError(`Not a readable zip: ${messageOf(err)}`, { cause: err, reason: 'not-zip' });
  });
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
