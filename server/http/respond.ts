// Response helpers of spec-notes 4.0. Every response leaves through here (clienterror.ts builds its refusals for
// bytes Node's parser refused with the same `jsonResponse`), so the security headers, queued cookies and the
// connection-close rule cannot be forgotten by a handler.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { markClosing } from './connection.js';
import { isClientDisconnect, type RefusalDetails } from '../core/errors.js';
import type { Framing } from './framing.js';
import { securityHeaders } from './headers.js';
import { log } from '../core/log.js';
import { publicChatRefusal, publicError, type PublicJson } from '../projections/index.js';
import type { SerializedJson } from '../projections/session-list.js';
import type { SerializedJsonBytes } from '../projections/session-body.js';

export const GZIP_THRESHOLD_BYTES = 1024;
export const GZIP_LEVEL = 4;

const gzip = promisify(zlib.gzip);

/**
 * A JSON body up to this size is gzipped on the event loop (zlib.gzipSync, about 0.1 ms for 16 KiB): the thread
 * pool's gzip costs the same CPU plus a trip there and back, and under load each trip is a wait for the core (a
 * search answer of 20 results, issue 37 finding 7). A larger one (a long conversation) goes to the thread pool.
 */
export const GZIP_SYNC_MAX_BYTES = 16 * 1024;

/** One request in flight: what the handlers read and what the response helpers need to finish it. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  framing: Framing;
  /** Set-Cookie values queued by handlers, flushed on the next JSON or text response. */
  cookies: string[];
  /** The client sent `Expect: 100-continue`: `openBody` answers it once a reader actually wants the body. */
  expectsContinue: boolean;
  /** A JSON body that sends nothing for this long is abandoned with 408. */
  bodyIdleTimeoutMs: number;
  /** A JSON body not complete this long after its first read is abandoned with 408, however it trickles. */
  bodyDeadlineMs: number;
  /** An upload that sends nothing for this long is abandoned with 408. */
  uploadStallTimeoutMs: number;
  /** An upload slower on average than this, once its grace is over, is abandoned with 408 (multipart.ts). */
  uploadPace: { graceMs: number; minBytesPerSecond: number };
  /** A handler asked for `Connection: close` (rule 1). */
  close: boolean;
  /**
   * Fires when the client leaves before its response is complete, or the server stops. Long work (extraction,
   * transcription, placement) stops on it; the reason is a ClientGoneError or the server's stop.
   */
  signal: AbortSignal;
}

export interface ResponseOptions {
  headers?: Record<string, string>;
}

export interface JsonOptions extends ResponseOptions {
  /** Hot paths use the compact form (separators `,` and `:`). */
  compact?: boolean;
}

/** A reader is about to consume the body: answer `Expect: 100-continue` now (and only now, once). */
export function openBody(ctx: RequestContext): IncomingMessage {
  if (ctx.expectsContinue) {
    ctx.expectsContinue = false;
    if (!ctx.res.headersSent && !ctx.res.destroyed) ctx.res.writeContinue();
  }
  return ctx.req;
}

/** The lifecycle's own knowledge, no flag to remember: a declared body that no reader took to its end. */
export function bodyUnread(ctx: RequestContext): boolean {
  return ctx.framing.bodyDeclared && !ctx.req.readableEnded;
}

/**
 * Rules 1-3: a response sent before a declared body was read closes the connection, exactly once, and a
 * failure to set the flag never turns the response into a 500.
 */
function applyConnectionRule(ctx: RequestContext, headers: Record<string, string>): void {
  try {
    if (bodyUnread(ctx)) ctx.close = true;
    if (!ctx.close) return;
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'connection') delete headers[name];
    headers.Connection = 'close';
  } catch (err) {
    log.debug('could not mark the connection for close', err);
  }
}

/**
 * The security headers added to a response's own headers, in place: the same names, order and values as
 * `{ ...headers, ...securityHeaders() }`, without the copy. That spread of five long-named properties cost more
 * CPU than everything else Satchel adds to a small GET (about 30 µs a response on the bench machine, Object.assign 1 µs).
 */
export function withSecurityHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.assign(headers, securityHeaders());
}

function finish(ctx: RequestContext, status: number, headers: Record<string, string>, body: Buffer): void {
  const { res } = ctx;
  if (res.headersSent || res.destroyed) return;
  if (ctx.cookies.length > 0) res.setHeader('Set-Cookie', ctx.cookies.splice(0));
  applyConnectionRule(ctx, headers);
  headers['Content-Length'] = String(body.length);
  try {
    res.writeHead(status, withSecurityHeaders(headers));
    // Node also closes on its own for HTTP/1.0 and `Connection: close` requests (shouldKeepAlive false).
    if (ctx.close || !res.shouldKeepAlive) markClosing(ctx.req.socket);
    res.end(ctx.req.method === 'HEAD' ? undefined : body);
  } catch (err) {
    if (isClientDisconnect(err)) log.debug('client went away while writing', err);
    else throw err;
  }
}

/** Serialize like the original: 2-space pretty by default, compact on hot paths, non-ASCII left unescaped. */
export function jsonBody(value: unknown, compact = false): Buffer {
  return Buffer.from(compact ? JSON.stringify(value) : JSON.stringify(value, null, 2), 'utf8');
}

/**
 * The headers and body of a JSON answer (shared with the refusal writer). Nothing is redacted here: the value is
 * a projection (server/projections/), whose free text the redactor has already made `RedactedText` and whose
 * ids and paths must go out as they are. A plain `string` anywhere in it does not compile (`PublicJson`).
 */
export function jsonResponse<const T>(value: T & PublicJson<T>, opts: JsonOptions = {}): { headers: Record<string, string>; body: Buffer } {
  return {
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', Vary: 'Accept-Encoding', ...opts.headers },
    body: jsonBody(value, opts.compact),
  };
}

/** The refusal `{ "error": message }`, its text redacted (error texts quote input). */
export function errorResponse(message: string, opts: JsonOptions = {}): { headers: Record<string, string>; body: Buffer } {
  return jsonResponse(publicError(message), opts);
}

/** A JSON response; gzip when asked for and worth it. */
export async function sendJson<const T>(ctx: RequestContext, status: number, value: T & PublicJson<T>, opts: JsonOptions = {}): Promise<void> {
  const { headers, body } = jsonResponse(value, opts);
  await sendJsonBytes(ctx, status, headers, body);
}

/**
 * A JSON body serialized from projections once and sent as it is many times (GET /api/sessions while the list
 * does not change): its bytes, and its gzip made on first need. Gzip of 10,000 summaries (2.5 MB) took about
 * 20 ms a call.
 */
export class PreparedJson {
  readonly bytes: Buffer;
  private gzipped: Promise<Buffer> | undefined;

  constructor(json: SerializedJson | SerializedJsonBytes) {
    this.bytes = typeof json === 'string' ? Buffer.from(json, 'utf8') : json;
  }

  gzip(): Promise<Buffer> {
    this.gzipped ??= gzip(this.bytes, { level: GZIP_LEVEL });
    return this.gzipped;
  }
}

/** A prepared JSON response; its gzip when asked for and worth it, as sendJson's. */
export async function sendPreparedJson(ctx: RequestContext, status: number, prepared: PreparedJson): Promise<void> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', Vary: 'Accept-Encoding' };
  await sendJsonBytes(ctx, status, headers, prepared.bytes, () => prepared.gzip());
}

/** Sent at once when not compressed: a small answer waits for no promise of its own (no extra microtask hop). */
function sendJsonBytes(
  ctx: RequestContext,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
  gzipped?: () => Promise<Buffer>,
): Promise<void> | void {
  // A prepared body (sendPreparedJson) brings its gzip, made once and kept; any other is made here.
  const own = gzipped === undefined;
  gzipped ??= () => gzip(body, { level: GZIP_LEVEL });
  if (body.length > GZIP_THRESHOLD_BYTES && /gzip/i.test(ctx.req.headers['accept-encoding'] ?? '')) {
    if (own && body.length <= GZIP_SYNC_MAX_BYTES) {
      headers['Content-Encoding'] = 'gzip';
      finish(ctx, status, headers, zlib.gzipSync(body, { level: GZIP_LEVEL }));
      return;
    }
    return gzipped().then((zipped) => {
      headers['Content-Encoding'] = 'gzip';
      finish(ctx, status, headers, zipped);
    });
  }
  finish(ctx, status, headers, body);
}

/** A text or HTML response: never compressed. */
export function sendText(
  ctx: RequestContext,
  status: number,
  body: string | Buffer,
  opts: ResponseOptions & { contentType?: string } = {},
): void {
  const headers: Record<string, string> = {
    'Content-Type': opts.contentType ?? 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
    ...opts.headers,
  };
  finish(ctx, status, headers, typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
}

/** The error helper: `{ "error": message }`, default status 400. */
export function sendError(ctx: RequestContext, status: number, message: string, details?: RefusalDetails): Promise<void> {
  return sendJson(ctx, status, details ? publicChatRefusal(message, details) : publicError(message));
}

/** Start a streaming response (SSE) with the security headers; the caller writes the body. */
export function startStream(ctx: RequestContext, status: number, headers: Record<string, string>): void {
  applyConnectionRule(ctx, headers);
  if (ctx.cookies.length > 0) ctx.res.setHeader('Set-Cookie', ctx.cookies.splice(0));
  ctx.res.writeHead(status, withSecurityHeaders(headers));
  if (ctx.close || !ctx.res.shouldKeepAlive) markClosing(ctx.req.socket);
}
