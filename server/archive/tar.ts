// Tar engine: node-tar's Parser in strict mode only reads headers and hands over member streams; this
// module decides what is written (regular files only, through MemberWriter) and never lets tar touch the
// disk, so tar's own link, permission and path handling cannot come into play.
import { once } from 'node:events';
import { Parser, type ReadEntry } from 'tar';
import { MAX_ARCHIVE_MEMBERS, tooLarge, tooManyMembers } from './limits.js';
import { memberSegments } from './names.js';
import { openTarStream, type TarKind } from './decompress.js';
import type { MemberWriter } from './safe-write.js';

// 'OldFile' is a pre-POSIX regular file and 'ContiguousFile' a regular file with a placement hint.
const REGULAR_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);

/**
 * Decompressed bytes that are not written as files: headers and padding (at most 1 KiB per member), data of
 * skipped members (links, devices, directories that claim a size) and anything after the end-of-archive
 * blocks. The byte cap counts what lands on disk; this bounds the rest, which node-tar buffers with quadratic
 * cost and which a few hundred compressed bytes can inflate to gigabytes.
 */
export const MAX_UNWRITTEN_TAR_BYTES = MAX_ARCHIVE_MEMBERS * 1024 + 4 * 1024 * 1024;

export async function extractTar(archivePath: string, kind: TarKind, writer: MemberWriter, signal?: AbortSignal): Promise<void> {
  const input = openTarStream(archivePath, kind);
  const parser = new Parser({ strict: true });
  const stop = new AbortController();
  let failure: { error: unknown } | undefined;
  let members = 0;
  let writes: Promise<void> = Promise.resolve();
  let current: ReadEntry | undefined;

  const fail = (error: unknown): void => {
    if (failure) return;
    failure = { error };
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
  const onAbort = () => fail(signal?.reason ?? new Error('Extraction aborted'));
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();

  parser.on('error', fail);
  // Unknown member types are ignored by the parser but still count toward the member limit.
  parser.on('ignoredEntry', countMember);
  parser.on('entry', (entry: ReadEntry) => {
    if (failure || !countMember()) return void entry.resume();
    let segments: string[];
    try {
      segments = memberSegments('tar', entry.path);
    } catch (err) {
      fail(err);
      return void entry.resume();
    }
    if (!REGULAR_TYPES.has(entry.type)) return void entry.resume();
    // One member at a time: the parser emits the next entry only after this one's data is read, but the
    // file's close may still be pending, and the next member may need the directory this one created.
    writes = writes
      .then(async () => {
        if (failure) return void entry.resume();
        current = entry;
        const written = await writer.write(segments, () => entry);
        current = undefined;
        if (!written) entry.resume();
      })
      .catch((err: unknown) => {
        fail(err);
        entry.resume();
      });
  });

  // After the end-of-archive blocks nothing more is read: trailing bytes are never decompressed or parsed.
  let sawEof = false;
  parser.on('eof', () => {
    sawEof = true;
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
    if (!failure) {
      const ended = once(parser, 'end', { signal: stop.signal });
      parser.end();
      await ended;
    }
  } catch (err) {
    fail(err);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await writes;
    input.destroy();
  }
  if (failure) throw failure.error;
}
