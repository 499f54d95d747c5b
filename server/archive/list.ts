// Listing an archive without extracting it (issue 25: "an archive is readable whether or not it was extracted"):
// every member's path as the extraction would write it (names.ts, zip-names.ts), its size, why the extraction
// would skip it, and the bytes of the few small members the caller asks for, read in memory. Nothing reaches
// the disk. Bombs are bounded the way the extraction bounds them: the entry count (MAX_ARCHIVE_MEMBERS), a kept
// member never inflates past its declared size (which the caller has already capped), and a compressed tar is
// decompressed only up to MAX_LISTED_TAR_BYTES.
import { once } from 'node:events';
import type fsp from 'node:fs/promises';
import { Parser, type ReadEntry } from 'tar';
import type { ArchiveKind } from './index.js';
import { decompressedTar } from './decompress.js';
import { EXTRACT_CHUNK_BYTES, MAX_ARCHIVE_MEMBERS, quotedName } from './limits.js';
import { memberSegments } from './names.js';
import { DIRECTORY_TYPES, endParser, REGULAR_TYPES, SKIPPED_TYPES } from './tar.js';
import { firstUnsupported, unsupportedXzOption } from './xz-options.js';
import { EntryReader, memberKind, OPEN_OPTIONS } from './zip.js';
import { isEncrypted, isReadableMethod, methodName } from './zip-methods.js';
import { decodeZipName } from './zip-names.js';
import { openZipHandle } from './zip-open.js';
import { isSmall, readSmallMember, WindowReader } from './zip-small.js';

/**
 * Decompressed tar bytes a listing reads at most. A tar's member list is spread through its data, so listing a
 * compressed tar means decompressing it; past this the list stops and says so. 256 MiB is a large source
 * tree, and about a second of gunzip on one core (a turn must not wait on a bomb's gigabytes).
 */
export const MAX_LISTED_TAR_BYTES = 256 * 1024 * 1024;
/** The skip reason of a member whose path leads out of the archive: the extraction refuses the whole archive for it. */
export const OUTSIDE_REASON = 'its path leads outside the archive, so extracting it is refused';
/** Bytes of an xz stream's header and first block header (xz-options.ts reads as many). */
const XZ_HEAD_BYTES = 64;

export interface ListedMember {
  /** As the extraction would write it ('/'-separated portable segments), or as the archive spells it when skipped for its path. */
  path: string;
  /** Uncompressed size, as the archive declares it. */
  size: number;
  /** Why the extraction would not write it (a safe-write.ts SkipReason, or a sentence). */
  skipped?: string;
  /** Its bytes, when the caller's `keep` asked for them and they read whole and intact. */
  data?: Buffer;
}

export interface ArchiveListing {
  /** Regular files and skipped members, in archive order (directories are not members here). */
  members: ListedMember[];
  /** False when the listing stopped early (MAX_LISTED_TAR_BYTES). */
  complete: boolean;
}

export type ListFailure = 'encrypted' | 'damaged' | 'too-many';

/** An archive that cannot be listed, with why. */
export class ArchiveListError extends Error {
  constructor(
    readonly why: ListFailure,
    message: string,
  ) {
    super(message);
    this.name = 'ArchiveListError';
  }
}

/** Asked of each regular member before its bytes are read: whether to keep them (it may count what it held). */
export type KeepMember = (member: { path: string; size: number }) => boolean;

/** The members of the `kind` archive held open by `handle`. Throws ArchiveListError; the handle stays open. */
export async function listArchive(handle: fsp.FileHandle, size: number, kind: ArchiveKind, keep: KeepMember): Promise<ArchiveListing> {
  try {
    return kind === 'zip' ? await listZip(handle, size, keep) : await listTar(handle, kind, keep);
  } catch (err) {
    if (err instanceof ArchiveListError) throw err;
    throw new ArchiveListError('damaged', err instanceof Error ? err.message : String(err));
  }
}

function tooMany(): ArchiveListError {
  return new ArchiveListError('too-many', `more than ${MAX_ARCHIVE_MEMBERS} entries`);
}

/** The path the extraction writes, or the name as spelled with the reason it is refused. */
function shownPath(family: 'zip' | 'tar', name: string): { path: string; skipped?: string } {
  try {
    return { path: memberSegments(family, name).join('/') };
  } catch {
    return { path: quotedName(name), skipped: OUTSIDE_REASON };
  }
}

async function listZip(handle: fsp.FileHandle, size: number, keep: KeepMember): Promise<ArchiveListing> {
  const zip = await openZipHandle(handle, size, OPEN_OPTIONS);
  try {
    // The end record's count, before a single entry is read.
    if (zip.entryCount > MAX_ARCHIVE_MEMBERS) throw tooMany();
    const reader = new EntryReader(zip);
    const window = new WindowReader(handle, (zip as unknown as { fileSize: number }).fileSize);
    const members: ListedMember[] = [];
    for (let entry = await reader.next(); entry; entry = await reader.next()) {
      const name = decodeZipName(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields);
      const kind = memberKind(entry, name);
      if (kind === 'directory') continue;
      if (isEncrypted(entry)) throw new ArchiveListError('encrypted', `encrypted member: ${quotedName(name)}`);
      const shown = shownPath('zip', name);
      const member: ListedMember = { ...shown, size: entry.uncompressedSize };
      if (!member.skipped && kind !== 'file') member.skipped = kind;
      if (!member.skipped && !isReadableMethod(entry.compressionMethod)) member.skipped = `compressed with ${methodName(entry.compressionMethod)}, which Satchel cannot read`;
      members.push(member);
      if (member.skipped || !keep(member) || !isSmall(entry)) continue;
      // Inflated to its declared size at most (readSmallMember): a member that would inflate further is damaged
      // and stays listed without its text.
      member.data = await readSmallMember(window, entry, () => new Error('CRC-32 mismatch')).catch(() => undefined);
    }
    return { members, complete: true };
  } finally {
    zip.close();
  }
}

async function listTar(handle: fsp.FileHandle, kind: Exclude<ArchiveKind, 'zip'>, keep: KeepMember): Promise<ArchiveListing> {
  if (kind === 'tar.xz') {
    const head = Buffer.alloc(XZ_HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, XZ_HEAD_BYTES, 0);
    const option = firstUnsupported(head.subarray(0, bytesRead));
    if (option) throw new ArchiveListError('damaged', unsupportedXzOption(option).message);
  }
  const source = handle.createReadStream({ start: 0, autoClose: false, highWaterMark: EXTRACT_CHUNK_BYTES });
  const input = decompressedTar(source, kind);
  const parser = new Parser({ strict: true });
  const stop = new AbortController();
  const members: ListedMember[] = [];
  /** Regular files listed so far, by path: what a hard link may name. */
  const regularFiles = new Map<string, ListedMember>();
  let count = 0;
  let failure: { error: unknown } | undefined;
  let sawEof = false;
  const fail = (error: unknown): void => {
    failure ??= { error };
    stop.abort();
  };
  parser.on('eof', () => {
    sawEof = true;
  });
  parser.on('error', (err: NodeJS.ErrnoException) => {
    // An archive of nothing but its end blocks is empty, not damaged (as tar.ts).
    if (sawEof && count === 0 && err.code === 'TAR_BAD_ARCHIVE') return;
    fail(err);
  });
  const counted = (): boolean => {
    count += 1;
    if (count <= MAX_ARCHIVE_MEMBERS) return true;
    fail(tooMany());
    return false;
  };
  parser.on('ignoredEntry', (entry: ReadEntry) => {
    if (counted()) members.push({ ...shownPath('tar', entry.path), size: entry.size ?? 0, skipped: SKIPPED_TYPES.get(entry.type) ?? 'unsupported-type' });
  });
  parser.on('entry', (entry: ReadEntry) => {
    if (failure || !counted() || DIRECTORY_TYPES.has(entry.type)) return void entry.resume();
    const member: ListedMember = { ...shownPath('tar', entry.path), size: entry.size ?? 0 };
    // A hard link to a file listed before is written as a copy of it by the extraction (tar.ts); any other is skipped.
    const target = entry.type === 'Link' ? regularFiles.get(shownPath('tar', entry.linkpath ?? '').path) : undefined;
    if (target) member.size = target.size;
    else if (!member.skipped && !REGULAR_TYPES.has(entry.type)) member.skipped = SKIPPED_TYPES.get(entry.type) ?? 'unsupported-type';
    if (!member.skipped) regularFiles.set(member.path, member);
    members.push(member);
    // A link's copy is listed, not inlined: its text is its target's.
    if (target || member.skipped || !keep(member)) return void entry.resume();
    // The header's size bounds what is held: bytes past it are not kept (the parser never gives more anyway).
    const chunks: Buffer[] = [];
    let got = 0;
    entry.on('data', (chunk: Buffer) => {
      got += chunk.length;
      if (got <= member.size) chunks.push(chunk);
    });
    entry.on('end', () => {
      if (got === member.size) member.data = Buffer.concat(chunks);
    });
  });

  let complete = true;
  let decompressed = 0;
  try {
    for await (const chunk of input) {
      if (failure || sawEof) break;
      decompressed += (chunk as Buffer).length;
      if (decompressed > MAX_LISTED_TAR_BYTES) {
        complete = false;
        break;
      }
      if (!parser.write(chunk as Buffer)) await once(parser, 'drain', { signal: stop.signal });
    }
    if (!failure && complete) await endParser(parser, stop.signal);
  } catch (err) {
    fail(err);
  } finally {
    input.destroy();
    source.destroy();
  }
  if (failure) throw failure.error;
  return { members, complete };
}
