// Writing an export's .zip to the response as it is made (yazl, the writing half of the yauzl the import reads
// with): nothing of the archive is held in memory beyond one member's pending bytes. A stored file is opened
// only when its turn comes (addReadStreamLazy), walked through descriptors (never a path a swap could redirect),
// so an export of thousands of files, or of every conversation, holds one file open at a time.
import { O_RDONLY } from 'node:constants';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { isClientDisconnect } from '../core/errors.js';
import { log } from '../core/log.js';
import { startStream, type RequestContext } from '../http/respond.js';
import { AnchoredDir } from '../store/anchored.js';
import { locateInside } from '../store/anchored-walk.js';
import { contentDisposition } from '../workspace/raw.js';

/** Stored already compressed: deflating them again costs time and saves nothing. */
const STORED_AS_IS = /\.(?:zip|gz|tgz|bz2|tbz2|xz|txz|7z|rar|png|jpe?g|gif|webp|avif|heic|mp3|mp4|m4a|ogg|opus|webm|mov|pdf|docx|xlsx|pptx)$/i;
/** Members get this time rather than "now", so two exports of the same conversation differ only in exported_at. */
const MEMBER_MTIME = new Date('2000-01-01T00:00:00Z');

/**
 * Bytes of a member made in memory gathered before they are handed on (a row's JSON is a few hundred bytes: one
 * Buffer per row would cost more in objects than the rows); also the high-water mark of such a member's stream, so
 * a paused client holds at most about this much of it before its reading stops.
 */
export const MEMBER_CHUNK_BYTES = 64 * 1024;

export interface ZipWriter {
  /** A member made in memory when its turn comes (one conversation's JSON or Markdown at a time). */
  addText(name: string, make: () => string): void;
  /**
   * A member whose text `make` yields in parts when its turn comes, each asked for only as the client reads (a
   * paused download stops the generator). Resolves once every part has been handed on, or rejects when the export
   * ends before that (the client left, a member failed): the caller may wait for it before adding more.
   */
  addParts(name: string, make: () => AsyncIterable<string | Buffer> | Iterable<string | Buffer>): Promise<void>;
  /** A stored file, `rel` (`/`-separated) below the folder `folder`, opened when its turn comes. */
  addFile(name: string, folder: string, rel: string): void;
}

/**
 * `parts` as Buffers of about MEMBER_CHUNK_BYTES (the last one shorter): each string is encoded straight into the
 * chunk being filled (no list of strings and no joined copy of them on V8's heap), and a Buffer part is handed on
 * as it is.
 */
async function* inChunks(parts: AsyncIterable<string | Buffer> | Iterable<string | Buffer>): AsyncGenerator<Buffer> {
  let chunk = Buffer.allocUnsafe(MEMBER_CHUNK_BYTES);
  let used = 0;
  for await (const part of parts) {
    if (typeof part !== 'string') {
      if (used > 0) {
        yield chunk.subarray(0, used);
        chunk = Buffer.allocUnsafe(MEMBER_CHUNK_BYTES);
        used = 0;
      }
      yield part;
      continue;
    }
    const bytes = Buffer.byteLength(part, 'utf8');
    if (bytes > chunk.length - used && used > 0) {
      yield chunk.subarray(0, used);
      chunk = Buffer.allocUnsafe(MEMBER_CHUNK_BYTES);
      used = 0;
    }
    if (bytes > chunk.length) {
      // One part longer than a chunk (a long row): its own Buffer.
      yield Buffer.from(part, 'utf8');
      continue;
    }
    used += chunk.write(part, used, 'utf8');
    if (used === chunk.length) {
      yield chunk;
      chunk = Buffer.allocUnsafe(MEMBER_CHUNK_BYTES);
      used = 0;
    }
  }
  if (used > 0) yield chunk.subarray(0, used);
}

/** `rel` below `folder`, walked through descriptors (a symlink swapped in leads nowhere outside). */
async function openBelow(folder: string, rel: string): Promise<Readable> {
  const dir = await AnchoredDir.open(folder);
  try {
    const found = await locateInside(dir, rel.split('/'));
    try {
      if (!found.stat.isFile()) throw new Error(`not a file: ${rel}`);
      const handle = await found.parent.openFile(found.name, O_RDONLY);
      return handle.createReadStream();
    } finally {
      await found.parent.close();
    }
  } finally {
    await dir.close();
  }
}

/**
 * Answer with a .zip named `filename`, whose members `fill` adds while the archive is already being sent: the
 * response starts at once, and `fill` may await between members (`addParts`' promise), so what it reads is read
 * only as the client takes the bytes. `signal` aborts when the export ends early (the client left, a member
 * failed): `fill` stops there. A failure before the answer started (`fill`'s synchronous checks are the caller's,
 * before sendZip) is an ordinary error answer; one after it can only end the response early, which the browser
 * shows as a failed download.
 */
export async function sendZip(ctx: RequestContext, filename: string, fill: (zip: ZipWriter, signal: AbortSignal) => Promise<void>): Promise<void> {
  const zip = new yazl.ZipFile();
  const output = zip.outputStream as unknown as Readable;
  const ended = new AbortController();
  const options = (name: string) => ({ mtime: MEMBER_MTIME, compress: !STORED_AS_IS.test(name) });
  let failure: unknown;
  const fail = (err: unknown): void => {
    failure ??= err;
    ended.abort(err);
    output.destroy(err as Error);
  };
  // yazl does not listen to a lazy member's stream: an error there (a file unreadable halfway) would be an
  // unhandled 'error' event, which ends the process. Every member's stream reports to the archive instead.
  const member = (stream: Readable): Readable => {
    stream.on('error', fail);
    // The export ended (client gone): a stream waiting on a paused pipe is let go, its generator closed.
    const stop = () => stream.destroy();
    ended.signal.addEventListener('abort', stop, { once: true });
    stream.once('close', () => ended.signal.removeEventListener('abort', stop));
    return stream;
  };
  const writer: ZipWriter = {
    addText(name, make) {
      let maker: (() => string) | undefined = make;
      zip.addReadStreamLazy(name, options(name), (cb) => {
        try {
          const text = maker!();
          maker = undefined;
          cb(null, member(Readable.from([Buffer.from(text, 'utf8')])));
        } catch (err) {
          cb(err as Error, undefined as unknown as Readable);
        }
      });
    },
    addParts(name, make) {
      const written = new Promise<void>((resolve, reject) => {
        const gone = () => reject(ended.signal.reason ?? new Error('the export ended'));
        if (ended.signal.aborted) return gone();
        ended.signal.addEventListener('abort', gone, { once: true });
        // yazl keeps every member's entry (and so this function) until the archive's end: what `make` holds (a
        // conversation's rows) is let go once its stream exists, and the stream once it is written.
        let maker: (() => AsyncIterable<string | Buffer> | Iterable<string | Buffer>) | undefined = make;
        zip.addReadStreamLazy(name, options(name), (cb) => {
          let stream: Readable;
          try {
            const parts = maker!();
            maker = undefined;
            stream = member(Readable.from(inChunks(parts), { objectMode: false, highWaterMark: MEMBER_CHUNK_BYTES }));
          } catch (err) {
            return cb(err as Error, undefined as unknown as Readable);
          }
          stream.once('end', () => {
            ended.signal.removeEventListener('abort', gone);
            resolve();
          });
          cb(null, stream);
        });
      });
      // A caller that does not wait for this member is told of the export's end by the next one it does wait for.
      written.catch(() => {});
      return written;
    },
    addFile(name, folder, rel) {
      zip.addReadStreamLazy(name, options(name), (cb) => {
        openBelow(folder, rel).then(
          (stream) => cb(null, member(stream)),
          (err: unknown) => cb(err as Error, undefined as unknown as Readable),
        );
      });
    },
  };
  zip.on('error', fail);
  startStream(ctx, 200, { 'Content-Type': 'application/zip', 'Content-Disposition': contentDisposition('attachment', filename), 'Cache-Control': 'no-store' });
  const filled = fill(writer, ended.signal).then(
    () => zip.end(),
    (err: unknown) => {
      // Already ended (the client left): that is the reason, not this.
      if (!ended.signal.aborted) fail(err);
    },
  );
  await pipeline(output, ctx.res).catch((err: unknown) => {
    if (!ended.signal.aborted) ended.abort(err);
    if (isClientDisconnect(err) || ctx.signal.aborted) log.debug('client left during an export', err);
    else log.warn('an export ended early', failure ?? err);
    ctx.res.destroy();
  });
  await filled;
}
