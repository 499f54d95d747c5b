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

export interface ZipWriter {
  /** A member made in memory when its turn comes (one conversation's JSON or Markdown at a time). */
  addText(name: string, make: () => string): void;
  /** A stored file, `rel` (`/`-separated) below the folder `folder`, opened when its turn comes. */
  addFile(name: string, folder: string, rel: string): void;
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
 * Answer with a .zip named `filename`, whose members `fill` adds (it may await between them: members are written
 * while later ones are still being listed). A failure before the first byte is an ordinary error answer; one
 * after it (a file removed meanwhile) can only end the response early, which the browser shows as a failed download.
 */
export async function sendZip(ctx: RequestContext, filename: string, fill: (zip: ZipWriter) => Promise<void>): Promise<void> {
  const zip = new yazl.ZipFile();
  const options = (name: string) => ({ mtime: MEMBER_MTIME, compress: !STORED_AS_IS.test(name) });
  const writer: ZipWriter = {
    addText(name, make) {
      zip.addReadStreamLazy(name, options(name), (cb) => {
        try {
          cb(null, Readable.from([Buffer.from(make(), 'utf8')]));
        } catch (err) {
          cb(err as Error, undefined as unknown as Readable);
        }
      });
    },
    addFile(name, folder, rel) {
      zip.addReadStreamLazy(name, options(name), (cb) => {
        openBelow(folder, rel).then(
          (stream) => cb(null, stream),
          (err: unknown) => cb(err as Error, undefined as unknown as Readable),
        );
      });
    },
  };
  let failure: unknown;
  zip.on('error', (err: unknown) => {
    failure ??= err;
    (zip.outputStream as unknown as Readable).destroy(err as Error);
  });
  await fill(writer);
  startStream(ctx, 200, { 'Content-Type': 'application/zip', 'Content-Disposition': contentDisposition('attachment', filename), 'Cache-Control': 'no-store' });
  zip.end();
  await pipeline(zip.outputStream, ctx.res).catch((err: unknown) => {
    if (isClientDisconnect(err) || ctx.signal.aborted) log.debug('client left during an export', err);
    else log.warn('an export ended early', failure ?? err);
    ctx.res.destroy();
  });
}
