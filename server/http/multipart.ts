// Multipart parsing for the four upload handlers (spec-notes 4.1), streaming every file part to a staging file:
// server memory stays flat whatever the upload's size. The parse either yields fully written staged files or
// fails with nothing left behind — staged files are removed on every failure path, a gone client included.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import busboy from 'busboy';
import { ClientGoneError, DISK_FULL_UPLOAD, HttpError, isDiskFull } from '../core/errors.js';
import { bodyStreaming } from '../core/heap-growth.js';
import { log } from '../core/log.js';
import { framingRefusal } from './framing.js';
import { ensureDir } from '../store/files.js';
import { openBody, type RequestContext } from './respond.js';
import { writeStaged } from './staged-file.js';

export const MAX_FIELDS = 100;
export const MAX_FIELD_BYTES = 1024 * 1024;
export const MAX_FILES = 1000;
export const MAX_PARTS = MAX_FIELDS + MAX_FILES;
export const MAX_HEADER_PAIRS = 100;
/** An upload that sends nothing for this long is abandoned (408) so a stalled client cannot pin a file open. */
export const STALL_TIMEOUT_MS = 60_000;
/**
 * An upload's total deadline grows with what it has sent: UPLOAD_GRACE_MS, plus one second for every
 * UPLOAD_MIN_BYTES_PER_SECOND bytes received. One fixed deadline would cut a large file on a slow link (a 4 GiB
 * upload at 20 MB/s takes minutes) or, set long enough for that, let a trickle (a byte every few seconds, each
 * within STALL_TIMEOUT_MS) hold a connection and a staging file for hours; one proportional to the declared
 * size would let a client declare the cap and trickle. So the pace is measured on the bytes received: whatever
 * its size, an upload is cut (408 `Upload timed out: too slow`) once, after the grace, it has averaged less than
 * 64 KiB/s (0.5 Mbit/s) since its first byte was awaited. The server is reached over loopback, or a LAN the
 * operator chose, where uploads run at tens of MB/s or more; the grace covers a slow start (a busy disk, a
 * browser reading the file, 100-continue) and small forms whatever their pace.
 */
export const UPLOAD_GRACE_MS = 60_000;
export const UPLOAD_MIN_BYTES_PER_SECOND = 64 * 1024;
/**
 * Buffering inside the parser (busboy's input and each file part's stream): larger than Node's 16 KiB default, so a
 * GiB upload moves in fewer, bigger steps. What then waits for the disk is staged-file.ts's to bound (one write of
 * STAGE_WRITE_BYTES in flight, as much gathered). Neither is allocated up front.
 */
export const STREAM_BUFFER_BYTES = 1024 * 1024;
const MIB = 1024 * 1024;

export interface StagedFile {
  field: string;
  /** The name as the client sent it (UTF-8); sanitize before use. */
  filename: string;
  stagedPath: string;
  size: number;
  mimeType: string;
  /** The part's first `headBytes` bytes (parseMultipart's option; all of them when it is shorter), copied as they
   *  were staged: a format told by its magic bytes without opening the staged file again. Empty without the option. */
  head: Buffer;
  /** The mode the staged file was created with (parseMultipart's `fileMode`). */
  mode: number;
}

export interface Multipart {
  fields: Map<string, string>;
  /** Every file part in arrival order (a replaced one included: cleanup needs them all). */
  files: StagedFile[];
  /** spec-notes 4.1: one file part per field name, a later part replacing an earlier one; fields in first-seen order. */
  fileParts(): StagedFile[];
  /** The last file part of this field name (a later part replaces an earlier one). */
  file(field: string): StagedFile | undefined;
  /**
   * The file part of `field` with its name (spec-notes 4.3 step 2): 400 `No file field in request` when there is none,
   * `No filename in upload` when the part came with an empty `filename=""`.
   */
  requireFile(field: string): StagedFile;
  /** Remove every staged file that was not moved into place. Safe to call twice. */
  cleanup(): Promise<void>;
}

export function fileTooLargeText(capBytes: number): string {
  return `File too large (max ${Math.floor(capBytes / MIB)}MB)`;
}

const BOUNDARY = /(?:^|;)\s*boundary=("?)([^;\s]+)\1/i;
const FORM_DATA = 'multipart/form-data';
/** What busboy reports for a part without its own Content-Type: an ordinary text field. */
const TEXT_FIELD_TYPE = 'text/plain';

export function boundaryOf(contentType: string | undefined): string | undefined {
  const match = BOUNDARY.exec(contentType ?? '');
  const token = match?.[2]?.replace(/^"|"$/g, '');
  return token ? token : undefined;
}

/** The framing checks of spec-notes 4.1, in their order, before a byte of the body is read. */
export function checkUploadFraming(ctx: RequestContext, capBytes: number): number {
  const { framing } = ctx;
  const refusal = framingRefusal(framing);
  if (refusal) throw new HttpError(...refusal);
  const length = framing.contentLength ?? 0;
  if (!Number.isSafeInteger(length) && length !== Number.POSITIVE_INFINITY) throw new HttpError(400, 'Invalid Content-Length');
  if (length > capBytes) throw new HttpError(413, fileTooLargeText(capBytes));
  const contentType = ctx.req.headers['content-type'];
  if (!boundaryOf(contentType)) throw new HttpError(400, 'No boundary in Content-Type');
  if (length < 0) throw new HttpError(400, 'Invalid Content-Length (negative)');
  // A boundary on another media type (`text/plain; boundary=x`, `multipart/mixed`) is not a form: the
  // parser would refuse it with a throw, so it is refused here, as the client's mistake it is.
  if (mediaType(contentType) !== FORM_DATA) throw new HttpError(400, 'Invalid multipart form data');
  return length;
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Staged files are private to the server: only the owner reads them, in a staging folder only the owner enters. */
export const STAGED_FILE_MODE = 0o600;

export interface MultipartOptions {
  stagingDir: string;
  capBytes: number;
  /** Keep each file part's first this many bytes in StagedFile.head (0: none). */
  headBytes?: number;
  /** The mode staged files are created with (the umask applies): STAGED_FILE_MODE unless the caller places the
   *  file where it is given another mode anyway (an attachment's STORED_FILE_MODE, set once here, not by a chmod). */
  fileMode?: number;
}

// Staged names: unique within this process (a counter) and across processes sharing a staging folder (a random
// prefix drawn once); created exclusively all the same. Twelve random bytes per file cost a trip to the CSPRNG each.
const STAGED_PREFIX = randomBytes(8).toString('hex');
let stagedCount = 0;

/**
 * The open staged files use (through createWriteStream's `fs` option): the staging folder exists (app.ts makes it
 * at start), so it is not made again on every upload (a mkdir answering EEXIST, an Error built and thrown away);
 * only an open that finds it missing (removed behind the server's back) makes it and tries once more.
 */
function openStaged(stagingDir: string) {
  return (file: string, flags: string | number, mode: number, cb: (err: NodeJS.ErrnoException | null, fd?: number) => void): void => {
    fs.open(file, flags, mode, (err, fd) => {
      if (err?.code !== 'ENOENT') return cb(err, fd);
      ensureDir(stagingDir, 0o700).then(() => fs.open(file, flags, mode, cb), cb);
    });
  };
}

/** A staged file is a regular file we made: unlinked in one call (rm would stat it first); gone already is fine. */
async function removeQuietly(file: string): Promise<void> {
  await fs.promises.unlink(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') log.warn('could not remove a staged file', err);
  });
}

const EMPTY = Buffer.alloc(0);

/**
 * The first `bytes` bytes `stream` yields (all, when it ends sooner), copied, handed to `done` as they grow; the
 * listener leaves once it has them, so the rest of a large file passes with no extra call per chunk. Whatever else
 * reads the stream (the pipe to the staged file) sees every chunk too.
 */
function keepHead(stream: NodeJS.ReadableStream, bytes: number, done: (head: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let got = 0;
  const onData = (chunk: Buffer): void => {
    chunks.push(chunk.subarray(0, bytes - got));
    got += Math.min(chunk.length, bytes - got);
    done(Buffer.concat(chunks, got));
    if (got >= bytes) stream.removeListener('data', onData);
  };
  stream.on('data', onData);
}

/**
 * Parse the request body (already framing-checked) into fields and staged files under `stagingDir`.
 * Rejects with HttpError for the client's mistakes, ClientGoneError when the client left, or the I/O error.
 */
export async function parseMultipart(ctx: RequestContext, opts: MultipartOptions): Promise<Multipart> {
  const { req } = ctx;
  const length = checkUploadFraming(ctx, opts.capBytes);
  const fields = new Map<string, string>();
  const files: StagedFile[] = [];
  const staged = new Set<string>();
  // busboy hands a part with `filename=""` to us as a text field; its own Content-Type tells it apart.
  const nameless = new Set<string>();
  const result: Multipart = {
    fields,
    files,
    file: (field) => files.filter((f) => f.field === field).at(-1),
    fileParts: () => [...new Map(files.map((f) => [f.field, f] as const)).values()],
    requireFile: (field) => {
      const file = result.file(field);
      if (file?.filename) return file;
      if (file || nameless.has(field)) throw new HttpError(400, 'No filename in upload');
      throw new HttpError(400, 'No file field in request');
    },
    cleanup: async () => {
      const paths = [...staged];
      staged.clear();
      await Promise.all(paths.map(removeQuietly));
    },
  };
  if (length === 0) return result;
  const headBytes = opts.headBytes ?? 0;
  const fileMode = opts.fileMode ?? STAGED_FILE_MODE;
  const stagedOpen = openStaged(opts.stagingDir);

  return new Promise<Multipart>((resolve, reject) => {
    const writes: Promise<void>[] = [];
    const open = new Set<NodeJS.ReadableStream & { destroy(err?: Error): void }>();
    let failure: Error | undefined;
    let received = 0;
    let stall: NodeJS.Timeout | undefined;
    let pace: NodeJS.Timeout | undefined;
    const startedAt = Date.now();

    let bb: busboy.Busboy;
    try {
      bb = createParser();
    } catch {
      // busboy throws on a Content-Type it cannot use (a malformed parameter list): the client's mistake.
      return reject(new HttpError(400, 'Invalid multipart form data'));
    }
    // V8's full collections, started by the body's chunks, kept off while it streams (core/heap-growth.ts); given
    // back when the parse settles, whatever ended it.
    const streamed = bodyStreaming();
    function createParser(): busboy.Busboy {
      return busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        // Busboy would strip directories (and backslashes) itself; the specification's sanitizing takes the last
        // `/` component only, so we keep the raw name and sanitize it in one place.
        preservePath: true,
        highWaterMark: STREAM_BUFFER_BYTES,
        fileHwm: STREAM_BUFFER_BYTES,
        limits: {
          fields: MAX_FIELDS,
          fieldSize: MAX_FIELD_BYTES,
          files: MAX_FILES,
          parts: MAX_PARTS,
          headerPairs: MAX_HEADER_PAIRS,
          fileSize: opts.capBytes,
        },
      });
    }

    const settle = async (): Promise<void> => {
      clearTimeout(stall);
      clearTimeout(pace);
      streamed();
      // Wait for every file stream to close before deleting: a stream still open could keep writing.
      await Promise.allSettled(writes);
      if (failure) {
        await result.cleanup();
        reject(failure);
      } else {
        resolve(result);
      }
    };

    const fail = (err: Error): void => {
      if (failure) return;
      failure = err;
      req.unpipe(bb);
      req.pause();
      bb.removeAllListeners('file');
      bb.removeAllListeners('field');
      bb.on('error', () => {});
      bb.destroy();
      // A destroyed parser does not end the file stream it was feeding: destroy each so its write settles.
      for (const stream of open) stream.destroy(new Error('upload aborted'));
      void settle();
    };

    const armStall = (): void => {
      if (stall) {
        stall.refresh();
        return;
      }
      stall = setTimeout(() => fail(new HttpError(408, 'Upload timed out: no data received')), ctx.uploadStallTimeoutMs);
      stall.unref();
    };

    // One timer for the pace, not one per chunk: when it fires it compares the time taken with what the bytes
    // received so far have earned, and sleeps until then when the upload is still ahead.
    const checkPace = (): void => {
      const { graceMs, minBytesPerSecond } = ctx.uploadPace;
      const earned = startedAt + graceMs + (received / minBytesPerSecond) * 1000;
      const now = Date.now();
      if (now >= earned) return fail(new HttpError(408, 'Upload timed out: too slow'));
      pace = setTimeout(checkPace, earned - now);
      pace.unref();
    };

    bb.on('file', (name, stream, info) => {
      if (!name) {
        stream.resume();
        return;
      }
      const stagedPath = path.join(opts.stagingDir, `${STAGED_PREFIX}-${(stagedCount++).toString(36)}.part`);
      staged.add(stagedPath);
      const entry: StagedFile = { field: name, filename: info.filename ?? '', stagedPath, size: 0, mimeType: info.mimeType, head: EMPTY, mode: fileMode };
      files.push(entry);
      stream.on('limit', () => fail(new HttpError(400, `Upload too large (max ${opts.capBytes} bytes)`)));
      if (headBytes > 0) keepHead(stream, headBytes, (head) => (entry.head = head));
      open.add(stream);
      stream.once('close', () => open.delete(stream));
      // Settles only once the staged file is closed (or was never opened): nothing more will touch the path.
      writes.push(
        writeStaged(stream, stagedPath, fileMode, stagedOpen).then(
          (bytes) => {
            entry.size = bytes;
          },
          (err: NodeJS.ErrnoException) => {
            if (isDiskFull(err)) fail(new HttpError(507, DISK_FULL_UPLOAD));
            else fail(err);
          },
        ),
      );
    });
    bb.on('field', (name, value, info) => {
      if (!name) return;
      // A file part whose name is empty (a browser's or curl's `filename=""`): not a form field. Its bytes
      // are bounded by the field-size limit and dropped; the handler answers `No filename in upload`.
      if (info.mimeType.toLowerCase() !== TEXT_FIELD_TYPE) {
        nameless.add(name);
        return;
      }
      if (info.valueTruncated) return fail(new HttpError(400, `Form field too large: ${name.slice(0, 100)}`));
      fields.set(name, value);
    });
    bb.on('partsLimit', () => fail(new HttpError(400, `Too many parts in upload (max ${MAX_PARTS})`)));
    bb.on('filesLimit', () => fail(new HttpError(400, `Too many files in upload (max ${MAX_FILES})`)));
    bb.on('fieldsLimit', () => fail(new HttpError(400, `Too many form fields (max ${MAX_FIELDS})`)));
    bb.on('error', (err: Error) => fail(new HttpError(400, `Malformed multipart body: ${err.message}`)));
    bb.on('close', () => {
      if (!failure) void settle();
    });

    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      armStall();
      if (received > opts.capBytes) fail(new HttpError(400, `Upload too large (max ${opts.capBytes} bytes)`));
    });
    // Every byte is in: what is left (the parser's last part, the staged files' last writes) is ours, not its pace.
    req.on('end', () => clearTimeout(pace));
    req.on('error', () => fail(new ClientGoneError()));
    req.on('close', () => {
      if (!req.complete) fail(new ClientGoneError());
    });
    armStall();
    checkPace();
    // The client may have left while we were awaiting anything above: its 'close' has then already fired.
    if (req.destroyed && !req.complete) return fail(new ClientGoneError());
    openBody(ctx).pipe(bb);
  });
}
