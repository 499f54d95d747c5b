// A single gzip-compressed file attached to a chat (`server.log.gz`) is decompressed and stored as what it holds
// (issue 25): the agent reads text, not deflate bytes. Streamed from the staged upload to a private file beside
// it, never whole in memory, and under the archive module's extracted-bytes cap (a gzip bomb stops there).
// No separate ratio limit: deflate cannot expand more than about 1032:1, so the cap is what bounds the output
// (a 10 MiB gzip of zeros holds about 10 GiB, refused once the cap is passed).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { DISK_FULL_UPLOAD, HttpError, isDiskFull, ValueError } from '../core/errors.js';
import { EXTRACT_CHUNK_BYTES, tooLarge } from '../archive/limits.js';

/** The 400 for bytes that are not a whole gzip stream (damaged, cut short, or not gzip at all). */
export const GZIP_UNREADABLE = 'This .gz file could not be decompressed: it is damaged or cut short.';

// The private mode of every staged file (the staging directory is the server's own, 0700).
const STAGED_MODE = 0o600;

export interface Gunzipped {
  /** The decompressed file, in `stagingDir`; the caller removes it (placed or not). */
  file: string;
  size: number;
}

class ByteCap extends Transform {
  bytes = 0;
  constructor(private readonly maxBytes: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    // Checked before the chunk goes on: no byte past the cap reaches the disk.
    if (this.bytes > this.maxBytes) return done(tooLarge(this.maxBytes));
    done(null, chunk);
  }
}

/** zlib's failures are the input's fault; anything else (the disk) is the server's and propagates as it is. */
function isZlibError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && code.startsWith('Z_');
}

/**
 * Decompress `gzPath` into a new file in `stagingDir`. ValueError (400) when the output would pass `maxBytes`
 * or the input is not a readable gzip stream; nothing is left behind on any failure.
 */
export async function gunzipToStaging(gzPath: string, stagingDir: string, maxBytes: number): Promise<Gunzipped> {
  const file = path.join(stagingDir, `gunzip-${randomUUID()}`);
  const cap = new ByteCap(maxBytes);
  try {
    await pipeline(
      fs.createReadStream(gzPath, { highWaterMark: EXTRACT_CHUNK_BYTES }),
      // Concatenated members (`cat a.gz b.gz`) decode as one file, as gunzip does.
      zlib.createGunzip({ chunkSize: EXTRACT_CHUNK_BYTES }),
      cap,
      fs.createWriteStream(file, { flags: 'wx', mode: STAGED_MODE }),
    );
    return { file, size: cap.bytes };
  } catch (err) {
    await fsp.rm(file, { force: true });
    if (isZlibError(err)) throw new ValueError(GZIP_UNREADABLE, true);
    // The decompressed file may not fit where the compressed one did: the upload's own 507, as placing it would say.
    if (isDiskFull(err)) throw new HttpError(507, DISK_FULL_UPLOAD);
    throw err;
  }
}
