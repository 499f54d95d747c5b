// /mcp: the MCP Streamable HTTP endpoint (docs/mcp.md). The lifecycle has already checked Host and the Origin
// of POST/DELETE; the token is checked here, because /mcp takes two (the launch token and the persistent MCP
// token, mcp/token.ts) where the JSON API takes only the first. GET (the notification stream) checks Origin here, as the MCP specification asks of
// local servers. The body is read by Satchel's bounded reader and handed over parsed, so the SDK never reads
// the socket; the security headers and the connection-close rule are set before the SDK writes its answer.
// Sessions (the SDK's `Mcp-Session-Id`) exist because list-changed notifications need the GET stream.
// The SDK itself is loaded after those checks, on the first request that needs it (mcp/runtime.ts); the
// sessions' table is mcp/sessions.ts.
import type { App, HandlerInput } from '../app.js';
import { requestToken, tokensEqual } from '../http/access.js';
import { readJsonBody } from '../http/body.js';
import { markClosing } from '../http/connection.js';
import { securityHeaders } from '../http/headers.js';
import { bodyUnread, sendJson, type RequestContext } from '../http/respond.js';
import { redactText } from '../projections/index.js';
import { HttpError } from '../core/errors.js';
import * as L from '../mcp/limits.js';
import { loadMcpRuntime } from '../mcp/runtime.js';
import { MCP_SESSIONS_FULL, registryOf, type Credential } from '../mcp/sessions.js';
import { mcpTokenOf } from '../mcp/token.js';
import { agentKeysOf, KEY_PAUSED } from '../mcp/keys.js';
import { LAUNCH_KEY_ID } from '../mcp/scope.js';
import { UNNAMED_KEY_ID } from '../store/mcp-keys.js';

const SESSION_HEADER = 'mcp-session-id';

interface Caller {
  credential: Credential;
  /** The agent key it is (mcp/keys.ts); LAUNCH_KEY_ID for the person's own launch token. */
  keyId: string;
}

/**
 * Who the request is, if /mcp takes its token: the launch token, the shared MCP token (the "Unnamed client" key,
 * until revoked) or an agent's own key. Checked on every request, so a key revoked or paused is refused at its
 * next request, in an open session too. Every kind is compared every time, so timing tells nothing of which.
 */
function callerOf(ctx: RequestContext, app: App): Caller | 'paused' | undefined {
  const given = requestToken(ctx.req);
  if (given === undefined) return undefined;
  const launch = tokensEqual(given, app.token);
  const mcp = mcpTokenOf(app)?.matches(given) ?? false;
  const keys = agentKeysOf(app);
  const agent = keys?.match(given);
  if (launch) return { credential: 'launch', keyId: LAUNCH_KEY_ID };
  const key = mcp ? (keys ? keys.unnamedLive() : undefined) : agent;
  if (mcp && !keys) return { credential: 'mcp', keyId: UNNAMED_KEY_ID };
  if (!key) return undefined;
  if (key.paused) return 'paused';
  keys!.touch(key);
  return { credential: mcp ? 'mcp' : 'key', keyId: key.id };
}

/** An Origin, when a browser sent one, must be our own: a page elsewhere cannot open the stream. */
function originAllowed(ctx: RequestContext): boolean {
  const origin = ctx.req.headers.origin;
  return origin === undefined || origin === `http://${ctx.req.headers.host ?? ''}`;
}

/** What respond.ts does for its own answers, done before the SDK writes one. */
function prepareResponse(ctx: RequestContext): void {
  const { res } = ctx;
  for (const [name, value] of Object.entries(securityHeaders())) res.setHeader(name, value);
  res.setHeader('Cache-Control', 'no-store');
  // A body nobody read (a GET or DELETE that declared one) leaves bytes on the socket: close after the answer.
  if (bodyUnread(ctx)) ctx.close = true;
  if (ctx.close) res.setHeader('Connection', 'close');
  if (ctx.close || !res.shouldKeepAlive) markClosing(ctx.req.socket);
}

function rpcError(ctx: RequestContext, status: number, message: string): Promise<void> {
  return sendJson(ctx, status, { jsonrpc: '2.0', error: { code: -32000, message: redactText(message) }, id: null });
}

export async function mcpEndpoint({ ctx, app, profile }: HandlerInput): Promise<void> {
  const { req, res } = ctx;
  const caller = callerOf(ctx, app);
  if (!caller) throw new HttpError(401, 'Missing or invalid access token');
  if (caller === 'paused') throw new HttpError(403, KEY_PAUSED);
  if (!originAllowed(ctx)) throw new HttpError(403, 'Cross-origin request refused');
  const registry = registryOf(app);
  const body = req.method === 'POST' ? await readJsonBody(ctx, L.MAX_MCP_BODY_BYTES) : undefined;
  const header = req.headers[SESSION_HEADER];
  const id = typeof header === 'string' ? header : undefined;
  let entry = id ? registry.sessions.get(id) : undefined;
  // A session is its key's: another key's token (or the launch token) cannot continue it.
  if (id && (!entry || entry.profile !== profile || entry.keyId !== caller.keyId)) return rpcError(ctx, 404, 'Session not found');
  if (!entry) {
    const sdk = await loadMcpRuntime();
    if (req.method !== 'POST' || !sdk.isInitializeRequest(body)) return rpcError(ctx, 400, 'Bad Request: no valid session id');
    const created = await registry.create(sdk, profile, caller.credential, caller.keyId);
    if (!created) {
      ctx.res.setHeader('Retry-After', String(L.MCP_FULL_RETRY_AFTER_S));
      return rpcError(ctx, 503, MCP_SESSIONS_FULL);
    }
    created.lastSeen = Date.now();
    prepareResponse(ctx);
    return registry.initialize(created, () => created.transport.handleRequest(req, res, body));
  }
  entry.lastSeen = Date.now();
  prepareResponse(ctx);
  if (req.method === 'GET') {
    const current = entry;
    current.streams++;
    res.once('close', () => {
      current.streams--;
      current.lastSeen = Date.now();
    });
  }
  await entry.transport.handleRequest(req, res, body);
}
