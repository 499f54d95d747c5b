// A zip reader that refuses archive bombs before anything parses the archive's contents. Every limit is
// checked twice: against the sizes the archive declares (cheap, before inflating) and against the bytes
// actually inflated (headers can lie), and a member is only ever held in memory within those limits.
import yauzl from 'yauzl';
import type { Readable } from 'node:stream';
import type { Entry, ZipFile } from 'yauzl';
import { nextZipEntry } from '../archive/zip-entries.js';
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

/** The members of a guarded zip, keyed by lower-cased name: OPC part names are case-insensitive. */
export type ZipMembers = ReadonlyMap<string, Buffer>;

// The signature an encrypted (or pre-2007) Office file starts with: an OLE compound file, not a zip.
const OLE_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** Read every member of the zip in `buffer` into memory, enforcing `limits`; throws OfficeError on violation. */
export async function readGuardedZip(buffer: Buffer, limits: ZipLimits): Promise<ZipMembers> {
  if (buffer.subarray(0, OLE_MAGIC.length).equals(OLE_MAGIC)) {
    throw new OfficeError('Encrypted or legacy Office file (OLE compound document, not a zip)');
  }
  let zip: ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(buffer, {
      lazyEntries: true,
      decodeStrings: true,
      validateEntrySizes: true,
      strictFileNames: true,
    });
  } catch (err) {
    throw new OfficeError(`Not a readable zip: ${messageOf(err)}`, { cause: err });
  }
  // yauzl emits 'error' on the zip object; an unheard one would crash the process. nextEntry() reports it.
  zip.on('error', () => {});
  try {
    // The central directory's own count is checked before a single entry is read.
    if (zip.entryCount > limits.maxMembers) {
      throw new OfficeError(`Zip has too many members (${zip.entryCount} > ${limits.maxMembers})`);
    }
    return await readAllMembers(zip, limits);
  } finally {
    zip.close();
  }
}

async function readAllMembers(zip: ZipFile, limits: ZipLimits): Promise<ZipMembers> {
  const members = new Map<string, Buffer>();
  let seen = 0;
  let declaredTotal = 0;
  let actualTotal = 0;
  for (let entry = await nextEntry(zip); entry; entry = await nextEntry(zip)) {
    seen += 1;
    if (seen > limits.maxMembers) throw new OfficeError(`Zip has too many members (> ${limits.maxMembers})`);
    const key = entry.fileName.toLowerCase();
    // Two members with one name would let different readers see different documents.
    if (members.has(key)) throw new OfficeError(`Zip has a duplicate member: ${printable(entry.fileName)}`);
    // Directory entries are inflated and counted too: another zip reader might not agree that they are
    // directories, and then their data must have passed the same limits.
    checkDeclared(entry, limits);
    declaredTotal += entry.uncompressedSize;
    if (declaredTotal > limits.maxTotalBytes) {
      throw new OfficeError(`Zip is too large when inflated (> ${limits.maxTotalBytes} bytes)`);
    }
    const data = await inflateMember(zip, entry, limits, limits.maxTotalBytes - actualTotal);
    actualTotal += data.length;
    members.set(key, data);
  }
  return members;
}

function checkDeclared(entry: Entry, limits: ZipLimits): void {
  if (entry.isEncrypted()) throw new OfficeError(`Zip member is encrypted: ${printable(entry.fileName)}`);
  if (entry.uncompressedSize > limits.maxMemberBytes) {
    throw new OfficeError(`Zip member too large: ${printable(entry.fileName)} (> ${limits.maxMemberBytes} bytes)`);
  }
  // An empty compressed stream may only inflate to nothing.
  if (entry.uncompressedSize > entry.compressedSize * limits.maxRatio) {
    throw new OfficeError(`Zip member compression ratio above ${limits.maxRatio}: ${printable(entry.fileName)}`);
  }
}

/** Inflate one member, counting real bytes and stopping at the first byte past any limit. */
async function inflateMember(zip: ZipFile, entry: Entry, limits: ZipLimits, totalLeft: number): Promise<Buffer> {
  let stream: Readable;
  try {
    stream = await zip.openReadStreamPromise(entry);
  } catch (err) {
    throw new OfficeError(`Zip member unreadable: ${printable(entry.fileName)}: ${messageOf(err)}`, { cause: err });
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
        stop(new OfficeError(`Zip member too large: ${printable(entry.fileName)} (> ${limits.maxMemberBytes} bytes)`));
      } else if (size > ratioLimit) {
        stop(new OfficeError(`Zip member compression ratio above ${limits.maxRatio}: ${printable(entry.fileName)}`));
      } else if (size > totalLeft) {
        stop(new OfficeError(`Zip is too large when inflated (> ${limits.maxTotalBytes} bytes)`));
      } else {
        chunks.push(chunk);
      }
    });
    stream.on('error', (err) => reject(new OfficeError(`Zip member unreadable: ${printable(entry.fileName)}: ${messageOf(err)}`, { cause: err })));
    stream.on('end', () => resolve(Buffer.concat(chunks, size)));
  });
}

function nextEntry(zip: ZipFile): Promise<Entry | null> {
  return nextZipEntry(zip).catch((err: unknown) => {
    throw new OfficeError(`Not a readable zip: ${messageOf(err)}`, { cause: err });
  });
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
