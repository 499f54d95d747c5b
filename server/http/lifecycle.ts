// The request lifecycle: the one place that owns a request from its head to its last byte. It parses the
// target, checks the head (header count, Host, framing, Expect), routes, checks access, runs the handler, and
// turns every throw into the specification's `{ "error": … }` answer. Nothing thrown or rejected in here can
// reach the process: a last-resort guard answers 500 for that request alone and the server keeps serving.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hasValidToken, isAllowedHost, isSameOriginWrite } from './access.js';
import type { ServerConfig } from '../core/config.js';
import { owe } from './connection.js';
import { ClientGoneError, HttpError, isClientDisconnect, sanitizeErrorText, ValueError } from '../core/errors.js';
import { analyzeFraming, transferEncodingError } from './framing.js';
import { log } from '../core/log.js';
import { activeProfile } from './profile-cookie.js';
import { STALL_TIMEOUT_MS, UPLOAD_GRACE_MS, UPLOAD_MIN_BYTES_PER_SECOND } from './multipart.js';
import { jsonResponse, sendError, withSecurityHeaders, type RequestContext } from './respond.js';
import { parseTarget, type RequestTarget } from './target.js';

/**
 * Header lines one request may carry. Node drops lines past its own count from `rawHeaders` but still frames
 * on them, so the server lifts Node's count (the 16 KiB header-size cap still bounds it) and refuses here.
 */
export const MAX_HEADER_LINES = 1000;
/** A JSON body that sends nothing for this long is abandoned (408). */
export const BODY_IDLE_TIMEOUT_MS = 30_000;
/**
 * A JSON body not complete this long after its first read is abandoned (408) however steadily it trickles: the
 * idle deadline alone let a byte every few seconds hold a request (and its 20 MiB allowance) for ever. The
 * server is reached over loopback (or a LAN the operator chose), where the largest JSON body (20 MiB) takes
 * milliseconds; the UI's and MCP's bodies are a few KiB.
 */
export const JSON_BODY_DEADLINE_MS = 30_000;
const CONTINUE = '100-continue';

/**
 * What the lifecycle needs of the application it serves: its settings (allowed host, body deadlines), the access
 * token and the signal that says the server is stopping. The application (server/app.ts) is more than this;
 * the lifecycle hands it on to the handlers as it is, so it stays generic over it.
 */
export interface Host {
  config: ServerConfig;
  token: string;
  /** Aborted when the server shuts down: streams end, long work stops. */
  stopping: AbortSignal;
}

export interface HandlerInput<A extends Host = Host> {
  ctx: RequestContext;
  app: A;
  profile: string;
}

export type Handler<A extends Host = Host> = (input: HandlerInput<A>) => Promise<void> | void;

export interface Route<A extends Host = Host> {
  handler: Handler<A>;
  /** Needs the access token (every /api route but the health ones). */
  auth: boolean;
  /** The 500 text for unexpected failures of this route. */
  failure?: string;
}

export type RouteTable<A extends Host = Host> = Record<string, Partial<Record<string, Route<A>>>>;

/** How many raw lines carry `name` (rawHeaders is `[name, value, name, value, …]`). */
function countLines(rawHeaders: readonly string[], name: string): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === name) n++;
  return n;
}

/** A client that left, or a server that stopped, ends the request quietly: a normal disconnect. */
function clientGone(ctx: RequestContext, err: unknown): boolean {
  return err instanceof ClientGoneError || isClientDisconnect(err) || ctx.signal.aborted;
}

export function createRequestListener<A extends Host>(app: A, routes: RouteTable<A>, fallback: Handler<A>) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    try {
      owe(req.socket, res);
      const target = parseTarget(req.url);
      const ctx = createContext(app, req, res, target);
      handle(app, routes, fallback, ctx, target).catch((err: unknown) => lastResort(req, res, err));
    } catch (err) {
      lastResort(req, res, err);
    }
  };
}

/**
 * Requests in flight per server, so one 'abort' listener on the server's stop signal reaches them all: an
 * EventTarget listener added and removed per request cost more than the rest of a small GET's own work.
 */
const inFlight = new WeakMap<AbortSignal, Set<(reason: unknown) => void>>();

function onStop(stopping: AbortSignal): Set<(reason: unknown) => void> {
  let requests = inFlight.get(stopping);
  if (!requests) {
    const set = new Set<(reason: unknown) => void>();
    stopping.addEventListener('abort', () => {
      for (const stop of [...set]) stop(new ClientGoneError());
    }, { once: true });
    inFlight.set(stopping, set);
    requests = set;
  }
  return requests;
}

// One function for every request, not a closure made per request: a small GET's allocations are its GC cost.
const onRequestError = (err: unknown): void => log.debug('request stream error', err);
const onResponseError = (err: unknown): void => log.debug('response stream error', err);

/**
 * One request's context. A class, not an object literal with a getter: the literal made a new accessor and closure
 * for every request, a visible part of a small GET's own CPU.
 */
class LiveContext implements RequestContext {
  readonly url: URL;
  readonly framing: RequestContext['framing'];
  cookies: string[] = [];
  close = false;
  expectsContinue: boolean;
  bodyIdleTimeoutMs: number;
  bodyDeadlineMs: number;
  uploadStallTimeoutMs: number;
  uploadPace: RequestContext['uploadPace'];
  // The signal is made when a handler first asks for it (most requests never do); a request that ended early or
  // a server that stopped before then hands out a signal already aborted, with the same reason.
  private controller: AbortController | undefined;
  private reason: unknown;

  constructor(
    app: Host,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    target: RequestTarget,
  ) {
    this.url = target.kind === 'invalid' ? new URL('http://localhost/') : target.url;
    this.framing = analyzeFraming(req.rawHeaders);
    this.expectsContinue = (req.headers.expect ?? '').trim().toLowerCase() === CONTINUE;
    this.bodyIdleTimeoutMs = app.config.bodyIdleTimeoutMs ?? BODY_IDLE_TIMEOUT_MS;
    this.bodyDeadlineMs = app.config.bodyDeadlineMs ?? JSON_BODY_DEADLINE_MS;
    this.uploadStallTimeoutMs = app.config.uploadStallTimeoutMs ?? STALL_TIMEOUT_MS;
    this.uploadPace = {
      graceMs: app.config.uploadGraceMs ?? UPLOAD_GRACE_MS,
      minBytesPerSecond: app.config.uploadMinBytesPerSecond ?? UPLOAD_MIN_BYTES_PER_SECOND,
    };
  }

  /** The client left before its response was complete, or the server stopped: the first reason stays. */
  readonly abort = (why: unknown): void => {
    if (this.reason !== undefined) return;
    this.reason = why;
    this.controller?.abort(why);
  };

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason !== undefined) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }
}

function createContext(app: Host, req: IncomingMessage, res: ServerResponse, target: RequestTarget): RequestContext {
  const ctx = new LiveContext(app, req, res, target);
  const requests = onStop(app.stopping);
  if (app.stopping.aborted) ctx.abort(new ClientGoneError());
  else requests.add(ctx.abort);
  res.once('close', () => {
    requests.delete(ctx.abort);
    if (!res.writableFinished) ctx.abort(new ClientGoneError());
  });
  req.on('error', onRequestError);
  res.on('error', onResponseError);
  return ctx;
}

/** The head checks every request passes before routing; each failure closes the connection. */
function checkHead(app: Host, ctx: RequestContext, target: RequestTarget): void {
  const { req } = ctx;
  const fail = (status: number, message: string): never => {
    ctx.close = true;
    throw new HttpError(status, message);
  };
  if (req.rawHeaders.length / 2 > MAX_HEADER_LINES) fail(431, 'Request header fields too large');
  const hosts = countLines(req.rawHeaders, 'host');
  if (hosts === 0) fail(400, 'Missing Host header');
  if (hosts > 1) fail(400, 'Multiple Host headers');
  if (target.kind === 'invalid') fail(400, 'Invalid request target');
  // An absolute-form target names the authority itself, and it must be ours as the Host must.
  if (target.kind === 'absolute' && !isAllowedHost(target.authority, app.config.host)) fail(403, 'Forbidden host');
  if (!isAllowedHost(req.headers.host, app.config.host)) throw new HttpError(403, 'Forbidden host');
  // Any Transfer-Encoding is refused for every route, before a handler could answer and leave the parser to
  // refuse the body later on the same socket (two answers to one request).
  if (ctx.framing.transferEncoding !== undefined) fail(411, transferEncodingError(ctx.framing.transferEncoding));
  const expect = req.headers.expect;
  if (expect !== undefined && expect.trim().toLowerCase() !== CONTINUE) fail(417, 'Unsupported Expect header');
}

async function handle<A extends Host>(app: A, routes: RouteTable<A>, fallback: Handler<A>, ctx: RequestContext, target: RequestTarget): Promise<void> {
  const { req } = ctx;
  let route: Route<A> | undefined;
  try {
    checkHead(app, ctx, target);
    const methods = routes[ctx.url.pathname];
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    if (methods) {
      route = methods[method];
      if (!route) throw new HttpError(405, 'Method not allowed');
    } else if (ctx.url.pathname.startsWith('/api/')) {
      throw new HttpError(404, 'Not found');
    }
    if (!isSameOriginWrite(req)) throw new HttpError(403, 'Cross-origin request refused');
    if (route?.auth && !hasValidToken(req, app.token)) throw new HttpError(401, 'Missing or invalid access token');
    const input = { ctx, app, profile: activeProfile(req) };
    await (route ? route.handler(input) : fallback(input));
  } catch (err) {
    await respondToError(ctx, route, err);
  }
}

async function respondToError(ctx: RequestContext, route: Pick<Route, 'failure'> | undefined, err: unknown): Promise<void> {
  if (clientGone(ctx, err)) {
    log.debug('client went away', ctx.url.pathname);
    ctx.req.socket.destroy();
    return;
  }
  if (ctx.res.headersSent) {
    log.warn('error after the response started', ctx.url.pathname, err);
    ctx.res.destroy();
    return;
  }
  if (err instanceof HttpError) return sendError(ctx, err.status, err.message, err.details);
  if (err instanceof ValueError) return sendError(ctx, 400, err.verbatim ? err.message : sanitizeErrorText(err.message));
  log.error(`${ctx.req.method} ${ctx.url.pathname} failed:`, err);
  if (err instanceof Error && err.stack) log.debug(err.stack);
  await sendError(ctx, 500, route?.failure ?? 'Internal server error');
}

/**
 * The guard behind everything: whatever escaped the handler's own error handling (a bug, a throw inside an
 * error response) is logged, redacted like every line, and answered 500 for this request only.
 */
function lastResort(req: IncomingMessage, res: ServerResponse, err: unknown): void {
  try {
    log.error('request handling failed unexpectedly:', err);
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    const { headers, body } = jsonResponse({ error: 'Internal server error' });
    res.writeHead(500, Object.assign(withSecurityHeaders(headers), { 'Content-Length': String(body.length), Connection: 'close' }));
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (writeErr) {
    log.debug('could not answer after an unexpected failure', writeErr);
    req.socket?.destroy();
  }
}
