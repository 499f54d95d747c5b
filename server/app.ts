// The request pipeline: Host check, routing, access token and Origin checks, then the handler; every throw
// becomes the specification's `{ "error": … }` response. No framework: a table of routes is all we need.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hasValidToken, isAllowedHost, isSameOriginWrite } from './access.js';
import type { ServerConfig } from './config.js';
import { ClientGoneError, HttpError, isClientDisconnect, sanitizeErrorText, ValueError } from './errors.js';
import type { EventBus } from './events.js';
import { analyzeFraming } from './framing.js';
import { log } from './log.js';
import { activeProfile } from './profiles.js';
import { sendError, type RequestContext } from './respond.js';
import type { SessionStore } from './sessions.js';
import type { Workspaces } from './workspaces.js';

export interface App {
  config: ServerConfig;
  token: string;
  version: string;
  sessions: SessionStore;
  workspaces: Workspaces;
  events: EventBus;
  stagingDir: string;
  staticDir: string;
  /** Aborted when the server shuts down: streams end, long work stops. */
  stopping: AbortSignal;
}

export interface HandlerInput {
  ctx: RequestContext;
  app: App;
  profile: string;
}

export type Handler = (input: HandlerInput) => Promise<void> | void;

export interface Route {
  handler: Handler;
  /** Needs the access token (every /api route but the health ones). */
  auth: boolean;
  /** The 500 text for unexpected failures of this route. */
  failure?: string;
}

export type RouteTable = Record<string, Partial<Record<string, Route>>>;

export function createRequestListener(app: App, routes: RouteTable, fallback: Handler) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const abort = new AbortController();
    const onStop = () => abort.abort(new ClientGoneError());
    app.stopping.addEventListener('abort', onStop, { once: true });
    res.once('close', () => {
      app.stopping.removeEventListener('abort', onStop);
      if (!res.writableFinished) abort.abort(new ClientGoneError());
    });
    const ctx: RequestContext = {
      req,
      res,
      url: new URL(req.url ?? '/', 'http://localhost'),
      framing: analyzeFraming(req.rawHeaders),
      cookies: [],
      bodyConsumed: false,
      close: false,
      signal: abort.signal,
    };
    req.on('error', (err) => log.debug('request stream error', err));
    res.on('error', (err) => log.debug('response stream error', err));
    let route: Route | undefined;
    try {
      if (!isAllowedHost(req.headers.host, app.config.host)) throw new HttpError(403, 'Forbidden host');
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
  };
}

async function respondToError(ctx: RequestContext, route: Route | undefined, err: unknown): Promise<void> {
  if (err instanceof ClientGoneError || isClientDisconnect(err)) {
    log.debug('client went away', ctx.url.pathname);
    ctx.req.socket.destroy();
    return;
  }
  if (ctx.res.headersSent) {
    log.warn('error after the response started', ctx.url.pathname, err);
    ctx.res.destroy();
    return;
  }
  try {
    if (err instanceof HttpError) return await sendError(ctx, err.status, err.message);
    if (err instanceof ValueError) return await sendError(ctx, 400, sanitizeErrorText(err.message));
    log.error(`${ctx.req.method} ${ctx.url.pathname} failed:`, err);
    if (err instanceof Error && err.stack) log.debug(err.stack);
    await sendError(ctx, 500, route?.failure ?? 'Internal server error');
  } catch (writeErr) {
    log.debug('could not send the error response', writeErr);
    ctx.res.destroy();
  }
}
