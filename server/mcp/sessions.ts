// The MCP sessions of an application (the SDK's `Mcp-Session-Id`, which exist because list-changed notifications
// need the GET stream): a bounded table, first come first served, idle ones swept, each told when its profile's
// conversations change; regenerating the MCP token ends the sessions it opened. The /mcp route
// (handlers/mcp.ts) creates and finds them here; handlers/mcp-settings.ts closes the token's.
import { randomUUID } from 'node:crypto';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { App } from '../app.js';
import { HttpError } from '../core/errors.js';
import { log } from '../core/log.js';
import { redactText } from '../projections/index.js';
import * as L from './limits.js';
import { releaseAnsweredRequests } from './json-mode-release.js';
import type { McpRuntime } from './runtime.js';

/** The answer (503, Retry-After) to a new session when every place is held by a session in use. */
export const MCP_SESSIONS_FULL = `Too many MCP sessions are open (${L.MAX_MCP_SESSIONS}); close one with DELETE /mcp, or retry when one has been idle for ${L.MCP_EVICTABLE_IDLE_MS / 60_000} minutes`;
const NOTIFY_EVENTS = new Set(['session_created', 'session_renamed', 'session_updated', 'attachment_added']);

/** Which token opened a session: regenerating the MCP token ends the sessions it opened; `key`: an agent's own. */
export type Credential = 'launch' | 'mcp' | 'key';

export interface Entry {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  profile: string;
  credential: Credential;
  /** The agent key (mcp/keys.ts) the session belongs to: only a request with that key's token may use it. */
  keyId: string;
  lastSeen: number;
  /** Open GET streams: a session listening for notifications is not idle. */
  streams: number;
  notifyTimer?: NodeJS.Timeout;
}

/**
 * Errors the SDK builds itself quote the request (`Resource <uri> not found` as a JSON-RPC error, `Tool <name>
 * not found` as a tool result marked isError): their text is redacted on the way out, as every error text is.
 * Successful results are already projections (mcp/data.ts) and pass untouched.
 */
function redactErrorTexts(transport: StreamableHTTPServerTransport): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('error' in message && typeof message.error.message === 'string') {
      return send({ ...message, error: { ...message.error, message: redactText(message.error.message) } }, options);
    }
    if ('result' in message && message.result.isError === true && Array.isArray(message.result.content)) {
      const content = message.result.content.map((part: unknown) => {
        const p = part as { type?: unknown; text?: unknown };
        return p?.type === 'text' && typeof p.text === 'string' ? { ...p, text: redactText(p.text) } : part;
      });
      return send({ ...message, result: { ...message.result, content } }, options);
    }
    return send(message, options);
  };
}

let warnedUnreleased = false;
/** Said once: the SDK's internals moved, so its answered requests may be held until their session closes. */
function warnUnreleased(): void {
  if (warnedUnreleased) return;
  warnedUnreleased = true;
  log.warn('mcp: this MCP SDK keeps answered requests in a way Satchel does not know; they are held until their session closes');
}

export class Registry {
  readonly sessions = new Map<string, Entry>();
  private unsubscribe?: () => void;
  private sweeper?: NodeJS.Timeout;

  constructor(private readonly app: App) {
    app.stopping.addEventListener('abort', () => this.closeAll(), { once: true });
  }

  /** Sessions being initialized: counted against the bound before the SDK registers them. */
  private pending = 0;

  /**
   * A new session, or undefined when the table is full of sessions in use. Every MCP client holds the same token
   * and, on loopback, the same address, so nothing tells one client from another: a bound per client would be a
   * bound per connection, which a client opens at will. So the table is first come, first served: a new session
   * may only take the place of one that nobody has used for MCP_EVICTABLE_IDLE_MS (and that holds no stream);
   * otherwise it is refused. A token holder who opens sessions in a loop is refused, never the client it races.
   */
  async create(sdk: McpRuntime, profile: string, credential: Credential, keyId: string): Promise<Entry | undefined> {
    this.start();
    if (this.sessions.size + this.pending >= L.MAX_MCP_SESSIONS && !this.evictIdle()) return undefined;
    const server = sdk.createMcpServer(this.app, profile, this.app.version, keyId);
    const entry: Entry = {
      server,
      profile,
      credential,
      keyId,
      lastSeen: Date.now(),
      streams: 0,
      transport: new sdk.StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => void this.sessions.set(id, entry),
        onsessionclosed: (id) => void this.drop(id),
      }),
    };
    redactErrorTexts(entry.transport);
    if (!releaseAnsweredRequests(entry.transport)) warnUnreleased();
    await server.connect(entry.transport);
    return entry;
  }

  drop(id: string): void {
    const entry = this.sessions.get(id);
    if (!entry) return;
    this.sessions.delete(id);
    clearTimeout(entry.notifyTimer);
    void entry.server.close().catch((err: unknown) => log.debug('mcp: close failed', err));
  }

  /** Close the least recently used session idle past MCP_EVICTABLE_IDLE_MS; false when there is none. */
  private evictIdle(): boolean {
    const cutoff = Date.now() - L.MCP_EVICTABLE_IDLE_MS;
    let oldest: [string, Entry] | undefined;
    for (const item of this.sessions) {
      if (item[1].streams > 0 || item[1].lastSeen >= cutoff) continue;
      if (!oldest || item[1].lastSeen < oldest[1].lastSeen) oldest = item;
    }
    if (oldest) this.drop(oldest[0]);
    return oldest !== undefined;
  }

  /** Run the initialize request of a new session; a session the SDK did not register is closed after it. */
  async initialize(entry: Entry, run: () => Promise<void>): Promise<void> {
    this.pending++;
    try {
      await run();
    } finally {
      this.pending--;
      const id = entry.transport.sessionId;
      if (id === undefined || this.sessions.get(id) !== entry) void entry.server.close().catch((err: unknown) => log.debug('mcp: close failed', err));
    }
  }

  /** One bus subscription and one sweeper for all MCP sessions, from the first session on. */
  private start(): void {
    if (this.app.stopping.aborted) throw new HttpError(503, 'Server is stopping');
    this.unsubscribe ??= this.app.events.subscribe((event) => {
      if (!NOTIFY_EVENTS.has(event.name)) return;
      for (const entry of this.sessions.values()) if (entry.profile === event.profile) this.notify(entry);
    });
    this.sweeper ??= setInterval(() => this.sweep(), L.MCP_SWEEP_INTERVAL_MS).unref();
  }

  private notify(entry: Entry): void {
    if (entry.notifyTimer) return;
    entry.notifyTimer = setTimeout(() => {
      entry.notifyTimer = undefined;
      if (entry.server.isConnected()) entry.server.sendResourceListChanged();
    }, L.LIST_CHANGED_COALESCE_MS);
  }

  private sweep(): void {
    const cutoff = Date.now() - L.MCP_SESSION_IDLE_MS;
    for (const [id, entry] of this.sessions) if (entry.streams === 0 && entry.lastSeen < cutoff) this.drop(id);
  }

  /** Ends every session the given token opened (its open notification streams close with it). */
  closeOpenedWith(credential: Credential): void {
    for (const [id, entry] of this.sessions) if (entry.credential === credential) this.drop(id);
  }

  /** Ends every session of one agent key (revoked): its open notification streams close with them. */
  closeOfKey(keyId: string): void {
    for (const [id, entry] of this.sessions) if (entry.keyId === keyId) this.drop(id);
  }

  private closeAll(): void {
    this.unsubscribe?.();
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.drop(id);
  }
}

const registries = new WeakMap<App, Registry>();

export function registryOf(app: App): Registry {
  let registry = registries.get(app);
  if (!registry) {
    registry = new Registry(app);
    registries.set(app, registry);
  }
  return registry;
}

/** Sessions currently held (tests and docs). */
export function mcpSessionCount(app: App): number {
  return registries.get(app)?.sessions.size ?? 0;
}

/** Ends the MCP sessions the MCP token opened: called when it is regenerated, so the old one stops at once. */
export function closeMcpTokenSessions(app: App): void {
  registries.get(app)?.closeOpenedWith('mcp');
}

/** Ends the MCP sessions of an agent key: called when it is revoked or paused (a request would be refused anyway). */
export function closeKeySessions(app: App, keyId: string): void {
  registries.get(app)?.closeOfKey(keyId);
}
