// A file's own bytes (GET /api/workspace/raw, GET /api/attachment/raw): images for <img>, anything binary for
// "Download". Text is never served raw: it leaves only decoded and redacted, through the preview. What is
// served cannot act as a page: its own policy (`sandbox; default-src 'none'`) is added to the global one, so
// an SVG opened directly runs no script, and only images are ever `inline`; everything else is an attachment.
import { pipeline } from 'node:stream/promises';
import { HttpError, isClientDisconnect } from '../core/errors.js';
import { markClosing } from '../http/connection.js';
import { securityHeaders } from '../http/headers.js';
import { bodyUnread, type RequestContext } from '../http/respond.js';
import { log } from '../core/log.js';
import { readStart, type OpenedFile } from '../store/anchored-browse.js';
import { SNIFF_BYTES } from '../content/index.js';
import { classify } from './preview.js';

/** The policy raw bytes carry beside the global one. */
export const RAW_FILE_CSP = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'";
export const TEXT_NOT_RAW = 'A text file is shown as text, not served raw';
/** The query flag that asks for `Content-Disposition: attachment` even for an image. */
export const DOWNLOAD_PARAM = 'download';

export const CSP_HEADER = 'Content-Security-Policy';

/**
 * Write the head: the security headers every response carries, with RAW_FILE_CSP sent as a second policy beside
 * the global one (a browser enforces both, so it only tightens), and respond.ts's connection rule.
 */
function writeHead(ctx: RequestContext, status: number, headers: Record<string, string>): void {
  if (bodyUnread(ctx)) ctx.close = true;
  const security = securityHeaders();
  const all: Record<string, string> = { ...headers, ...security, [CSP_HEADER]: `${security[CSP_HEADER]}, ${RAW_FILE_CSP}` };
  if (ctx.close) all.Connection = 'close';
  if (ctx.cookies.length > 0) ctx.res.setHeader('Set-Cookie', ctx.cookies.splice(0));
  ctx.res.writeHead(status, all);
  if (ctx.close || !ctx.res.shouldKeepAlive) markClosing(ctx.req.socket);
}

/** RFC 6266: an ASCII fallback and the UTF-8 name. */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** A validator that changes when the file does: same inode, size and modification time, same bytes. */
export function etagOf(file: Pick<OpenedFile, 'ino' | 'size' | 'mtimeMs'>): string {
  return `"${file.ino.toString(36)}-${file.size.toString(36)}-${Math.trunc(file.mtimeMs).toString(36)}"`;
}

export async function sendRawFile(ctx: RequestContext, file: OpenedFile, download: boolean): Promise<void> {
  const { kind, mime } = classify(file.name, await readStart(file, SNIFF_BYTES));
  if (kind === 'text') throw new HttpError(415, TEXT_NOT_RAW);
  const etag = etagOf(file);
  const headers: Record<string, string> = {
    'Content-Type': mime,
    // Kept by the browser but asked about each time: a thumbnail redrawn costs a 304, a changed file is fetched.
    'Cache-Control': 'private, no-cache',
    ETag: etag,
    'Content-Disposition': contentDisposition(kind === 'image' && !download ? 'inline' : 'attachment', file.name),
  };
  if (ctx.req.headers['if-none-match'] === etag) {
    writeHead(ctx, 304, headers);
    ctx.res.end();
    return;
  }
  headers['Content-Length'] = String(file.size);
  writeHead(ctx, 200, headers);
  if (ctx.req.method === 'HEAD' || file.size === 0) {
    ctx.res.end();
    return;
  }
  // Exactly the size announced: a file that grows meanwhile is cut there, one that shrinks ends the response early.
  const stream = file.handle.createReadStream({ start: 0, end: file.size - 1, autoClose: false });
  // Not ended by the pipeline: only a body of the announced length may end normally (see below).
  const sent = await pipeline(stream, ctx.res, { end: false }).then(
    () => true,
    (err: unknown) => {
      if (isClientDisconnect(err) || ctx.signal.aborted) log.debug('client left during a raw file', err);
      else log.warn('raw file read failed', err);
      return false;
    },
  );
  // A body shorter than its Content-Length must not be followed by another response on this connection: the
  // client would read that response as the rest of this body. So it is never ended, the connection is.
  if (sent && stream.bytesRead === file.size) ctx.res.end();
  else ctx.res.destroy();
}
