// What a zip member needs that this engine cannot give: encryption (ZipCrypto or WinZip AES) and compression
// methods other than stored and deflate. Both are a client's archive, not a server fault: a 400 that names
// the member and the cause.
import { ValueError } from '../core/errors.js';
import { quotedName } from './limits.js';

const STORED = 0;
const DEFLATE = 8;
/** WinZip AES: the real method is inside the 0x9901 extra field; the member is encrypted either way. */
const AES_MARKER = 99;
const ENCRYPTED_FLAG = 0x1;

// APPNOTE 4.4.5 names, so the message says which tool's option made the archive unreadable here.
const METHOD_NAMES: ReadonlyMap<number, string> = new Map([
  [1, 'Shrink'],
  [2, 'Reduce'],
  [3, 'Reduce'],
  [4, 'Reduce'],
  [5, 'Reduce'],
  [6, 'Implode'],
  [9, 'Deflate64'],
  [10, 'PKWARE DCL Implode'],
  [12, 'BZIP2'],
  [14, 'LZMA'],
  [16, 'IBM z/OS CMPSC'],
  [18, 'IBM TERSE'],
  [19, 'IBM LZ77'],
  [20, 'Zstandard'],
  [93, 'Zstandard'],
  [94, 'MP3'],
  [95, 'XZ'],
  [96, 'JPEG'],
  [97, 'WavPack'],
  [98, 'PPMd'],
]);

export function methodName(method: number): string {
  return METHOD_NAMES.get(method) ?? `method ${method}`;
}

type MemberHeader = { generalPurposeBitFlag: number; compressionMethod: number };

/** ZipCrypto (`zip -P`) or WinZip AES: the member's bytes need a password. */
export function isEncrypted(entry: MemberHeader): boolean {
  return (entry.generalPurposeBitFlag & ENCRYPTED_FLAG) !== 0 || entry.compressionMethod === AES_MARKER;
}

/** Stored or deflated: a method this engine inflates. */
export function isReadableMethod(method: number): boolean {
  return method === STORED || method === DEFLATE;
}

/** Throws the 400 for a member this engine cannot read; `name` as the archive spells it. */
export function checkReadable(entry: MemberHeader, name: string): void {
  if (isEncrypted(entry)) {
    throw new ValueError(`Encrypted archive members are not supported: ${quotedName(name)}`, true);
  }
  if (!isReadableMethod(entry.compressionMethod)) {
    throw new ValueError(`Unsupported compression method (${methodName(entry.compressionMethod)}) in ${quotedName(name)}`, true);
  }
}
