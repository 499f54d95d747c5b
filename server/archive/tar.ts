// Tar engine: node-tar's Parser in strict mode only reads headers and hands over member streams; this
// module decides what is written (regular files only, through MemberWriter) and never lets tar touch the
// disk, so tar's own link, permission and path handling cannot come into play.
import { once } from 'node:events';
import { Parser, type ReadEntry } from 'tar';
import { MAX_ARCHIVE_MEMBERS, tooLarge, tooManyMembers } from './limits.js';
import { memberSegments } from './names.js';
import { openTarStream, type TarKind } from './decompress.js';
import { checkXzOptions, xzDecodeFailure } from './xz-options.js';
import { fileModeFor, type MemberWriter, type SkipReason } from './safe-write.js';

// 'OldFile' is a pre-POSIX regular file and 'ContiguousFile' a regular file with a placement hint.
export const REGULAR_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);
export const DIRECTORY_TYPES = new Set(['Directory', 'GNUDumpDir']);
// Everything else that is not a regular file is skipped and reported with its reason. Sparse members (GNU's
// old 'S' type, and PAX sparse files, whose data is a map plus fragments) are refused by name rather than
// written with the wrong bytes or at GNU's placeholder path.
export const SKIPPED_TYPES: ReadonlyMap<string, SkipReason> = new Map([
  ['SymbolicLink', 'symlink'],
  ['Link', 'hardlink'],
  ['CharacterDevice', 'device'],
  ['BlockDevice', 'device'],
  ['FIFO', 'fifo'],
  ['SparseFile', 'sparse'],
]);
// A PAX header that makes the next member a GNU sparse file (formats 0.0, 0.1 and 1.0 all use these keys).
const PAX_SPARSE = /(?:^|\n)\d+ GNU\.sparse\./;
const PAX_SPARSE_NAME = /(?:^|\n)\d+ GNU\.sparse\.name=([^\n]*)\n/;

/**
 * Decompressed bytes that are not written as files: headers and padding (at most 1 KiB per member), data of
 * skipped members (links, devices, directories that claim a size) and anything after the end-of-archive
 * blocks. The byte cap counts what lands on disk; this bounds the rest, which node-tar buffers with quadratic
 * cost and which a few hundred compressed bytes can inflate to gigabytes.
 */
export const MAX_UNWRITTEN_TAR_BYTES = MAX_ARCHIVE_MEMBERS * 1024 + 4 * 1024 * 1024;

export async function extractTar(archivePath: string, kind: TarKind, writer: MemberWriter, signal?: AbortSignal): Promise<void> {
  if (kind === 'tar.xz') await checkXzOptions(archivePath);
  const input = openTarStream(archivePath, kind);
  const parser = new Parser({ strict: true });
  const stop = new AbortController();
  let failure: { error: unknown } | undefined;
  let members = 0;
  let writes: Promise<void> = Promise.resolve();
  let current: ReadEntry | undefined;

  const fail = (error: unknown): void => {
    if (failure) return;
    failure = { error: kind === 'tar.xz' ? xzDecodeFailure(error) : error };
    stop.abort();
    input.destroy();
    // The parser gets no more input, so a member still being written would wait forever for its data.
    current?.destroy();
  };
  const countMember = (): boolean => {
    members += 1;
    if (members <= MAX_ARCHIVE_MEMBERS) return true;
    fail(tooManyMembers());
    return false;
  };
  const queue = (work: () => Promise<void>): void => {
    writes = writes
      .then(async () => {
        if (!failure) await work();
      })
      .catch(fail);
  };
  const skipMember = (entry: ReadEntry, name: string, reason: SkipReason): void => {
    entry.resume();
    // In member order with the writes, so the list reads like the archive.
    queue(async () => void writer.skip(name, reason));
  };
  const onAbort = () => fail(signal?.reason ?? new Error('Extraction aborted'));
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();

  // After the end-of-archive blocks nothing more is read: trailing bytes are never decompressed or parsed.
  let sawEof = false;
  parser.on('eof', () => {
    sawEof = true;
  });
  parser.on('error', (err: NodeJS.ErrnoException) => {
    // An archive of nothing but its end blocks (`tar -cf x.tar -T /dev/null`) is empty, not unrecognised.
    if (sawEof && members === 0 && err.code === 'TAR_BAD_ARCHIVE') return;
    fail(err);
  });
  // Unknown member types are ignored by the parser but still count toward the member limit.
  parser.on('ignoredEntry', (entry: ReadEntry) => {
    if (!countMember()) return;
    queue(async () => void writer.skip(entry.path, SKIPPED_TYPES.get(entry.type) ?? 'unsupported-type'));
  });
  let sparseNext: { name: string | undefined } | undefined;
  parser.on('meta', (meta: string) => {
    if (PAX_SPARSE.test(meta)) sparseNext = { name: PAX_SPARSE_NAME.exec(meta)?.[1] };
  });
  parser.on('entry', (entry: ReadEntry) => {
    const sparse = sparseNext;
    sparseNext = undefined;
    if (failure || !countMember()) return void entry.resume();
    let segments: string[];
    try {
      segments = memberSegments('tar', entry.path);
    } catch (err) {
      fail(err);
      return void entry.resume();
    }
    if (sparse) return skipMember(entry, sparse.name ?? segments.join('/'), 'sparse');
    if (DIRECTORY_TYPES.has(entry.type)) {
      writer.noteDirectory(segments);
      return void entry.resume();
    }
    const mode = fileModeFor(entry.mode);
    if (entry.type === 'Link') {
      let target: string[] | null = null;
      try {
        target = memberSegments('tar', entry.linkpath ?? '');
      } catch {
        // A link out of the tree is not followed; it is reported as a skipped hard link.
      }
      entry.resume();
      return void queue(async () => {
        await writer.writeCopy(segments, target, mode, segments.join('/'));
      });
    }
    if (!REGULAR_TYPES.has(entry.type)) return skipMember(entry, segments.join('/'), SKIPPED_TYPES.get(entry.type) ?? 'unsupported-type');
    // One member at a time: the parser emits the next entry only after this one's data is read, but the
    // file's close may still be pending, and the next member may need the directory this one created.
    writes = writes
      .then(async () => {
        if (failure) return void entry.resume();
        current = entry;
        const written = await writer.write(segments, () => entry, mode);
        current = undefined;
        if (!written) entry.resume();
      })
      .catch((err: unknown) => {
        fail(err);
        entry.resume();
      });
  });

  let decompressed = 0;
  try {
    for await (const chunk of input) {
      if (failure || sawEof) break;
      decompressed += (chunk as Buffer).length;
      if (decompressed - writer.bytesWritten > MAX_UNWRITTEN_TAR_BYTES) {
        fail(tooLarge(writer.maxBytes));
        break;
      }
      if (!parser.write(chunk as Buffer)) await once(parser, 'drain', { signal: stop.signal });
    }
    if (!failure) await endParser(parser, stop.signal);
  } catch (err) {
    fail(err);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await writes;
    input.destroy();
  }
  if (failure) throw failure.error;
  writer.finish();
}

/**
 * End `parser` and wait for its last entry, or reject with `stop`'s reason when a failure aborts it. Not
 * events.once: that rejects on any 'error', also on the one an empty archive ends with (which the caller forgives).
 */
export function endParser(parser: Parser, stop: AbortSignal): Promise<void> {
  const ended = new Promise<void>((resolve, reject) => {
    parser.once('end', () => resolve());
    stop.addEventListener('abort', () => reject(stop.reason as Error), { once: true });
  });
  parser.end();
  return ended;
}
