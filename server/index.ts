// Starting and stopping the loopback server. Used by the headless CLI, by Electron's main process and by the
// tests alike; nothing here knows about Electron.
import { setMaxListeners } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAgentConfig } from './agent/config.js';
import { requestBuilder } from './agent/request.js';
import { recoverInterruptedTurns, TurnManager, type TurnDependencies } from './agent/turns.js';
import { streamTurn } from './agent/upstream.js';
import { sessionFolder } from './attachments/layout.js';
import { newToken } from './http/access.js';
import { createRequestListener, type App } from './http/app.js';
import { CLOSE_DEADLINE_MS, handleClientError, writeRefusal } from './http/clienterror.js';
import type { ServerConfig } from './config.js';
import { EventBus } from './store/events.js';
import { log } from './log.js';
import { attachMcpToken, McpToken, mcpTokenFileStore } from './mcp/token.js';
import { routes } from './http/routes.js';
import { SessionStore } from './store/sessions.js';
import { startAttachmentSweep } from './drafts/sweep.js';
import { loadSttConfig, preloadSpeech } from './speech/index.js';
import { serveStatic } from './http/static.js';
import { Workspaces } from './store/workspaces.js';

export { ACCESS_COOKIE } from './http/access.js';

/** Slowloris guard: the request head must arrive within this time. */
export const HEADERS_TIMEOUT_MS = 30_000;
/** How often Node looks for request heads past their deadline (its default, 30 s, would double the wait). */
export const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;
/** Idle keep-alive connections close after this. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** On shutdown, in-flight requests (uploads) get this long to finish before connections are cut. */
export const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningServer {
  host: string;
  port: number;
  origin: string;
  token: string;
  tokenUrl: string;
  stateDir: string;
  close(): Promise<void>;
}

const here = path.dirname(fileURLToPath(import.meta.url));

function findUp(candidates: string[], probe: (dir: string) => boolean): string {
  return candidates.find(probe) ?? candidates[0]!;
}

function appVersion(): string {
  const file = findUp([path.join(here, '..', 'package.json'), path.join(here, '..', '..', 'package.json')], (f) => {
    try {
      return JSON.parse(readFileSync(f, 'utf8')).name === 'satchel';
    } catch {
      return false;
    }
  });
  try {
    return String(JSON.parse(readFileSync(file, 'utf8')).version ?? '0.0.0');
  } catch {
    return '0.0.0';
  }
}

export function defaultStaticDir(): string {
  return findUp([path.join(here, '..', 'renderer'), path.join(here, '..', 'dist', 'renderer')], (d) => existsSync(path.join(d, 'index.html')));
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/** Answer a request whose socket Node has handed over (an Upgrade), then close the connection. */
function answerAndClose(req: http.IncomingMessage, socket: Duplex, listener: http.RequestListener): void {
  const res = new http.ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  socket.on('error', (err) => log.debug('upgrade socket error', err));
  res.once('finish', () => {
    res.detachSocket(socket as Socket);
    socket.end();
    setTimeout(() => socket.destroy(), CLOSE_DEADLINE_MS).unref();
  });
  listener(req, res);
}

export async function startServer(config: ServerConfig): Promise<RunningServer> {
  await fs.mkdir(config.stateDir, { recursive: true, mode: 0o700 });
  const stagingDir = path.join(config.stateDir, 'staging');
  // Staged files from a crash are garbage: nothing can refer to them any more.
  await fs.rm(stagingDir, { recursive: true, force: true });
  await fs.mkdir(stagingDir, { recursive: true, mode: 0o700 });

  const sessions = new SessionStore(config.stateDir);
  const workspaces = new Workspaces(config.stateDir, config.defaultWorkspace);
  await Promise.all([sessions.load(), workspaces.load()]);
  const interrupted = await recoverInterruptedTurns(sessions);
  if (interrupted > 0) log.warn(`${interrupted} conversation turn(s) were interrupted when Satchel last stopped`);

  const stopping = new AbortController();
  // Every request in flight listens for the stop: as many listeners as requests, which is no leak.
  setMaxListeners(0, stopping.signal);
  const events = new EventBus();
  const agent: TurnDependencies = {
    streamTurn,
    loadConfig: () => loadAgentConfig(config.stateDir, process.env, config.agentKeyStore),
    buildRequest: requestBuilder(config.stateDir, (id) => sessionFolder(config.stateDir, id)),
    ...config.agent,
  };
  const turns = new TurnManager(sessions, events, agent);
  // The agent's key becomes known to the redactor before the first request: a session stored by an older
  // version may hold what the agent echoed of it, and GET /api/session or MCP may read it at once.
  agent.loadConfig();
  const app: App = {
    config,
    token: config.token ?? newToken(),
    version: appVersion(),
    sessions,
    workspaces,
    events,
    turns,
    stagingDir,
    staticDir: config.staticDir ?? defaultStaticDir(),
    stopping: stopping.signal,
  };
  attachMcpToken(app, await McpToken.open(config.mcpTokenStore ?? mcpTokenFileStore(config.stateDir)));
  // Uploads never sent and in no draft for a week go (drafts/sweep.ts): now, in the background, then periodically.
  const sweep = startAttachmentSweep(config.stateDir, sessions);

  const listener = createRequestListener(app, routes, serveStatic);
  const headersTimeout = config.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const server = http.createServer(
    {
      requestTimeout: 0,
      headersTimeout,
      connectionsCheckingInterval: Math.min(CONNECTIONS_CHECK_INTERVAL_MS, headersTimeout),
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      // The lifecycle answers a missing Host itself, with the JSON error and the security headers.
      requireHostHeader: false,
    },
    listener,
  );
  // Node keeps 2000 header lines and frames on the ones it dropped; with its count lifted (the 16 KiB
  // head-size cap still bounds it) the lifecycle sees every line and refuses too many itself (431).
  server.maxHeadersCount = 0;
  server.on('clientError', handleClientError);
  // The lifecycle decides when to say `100 Continue` (after the access and framing checks), and answers any
  // other expectation 417 itself: both go through the same listener as every request.
  server.on('checkContinue', listener);
  server.on('checkExpectation', listener);
  // Without a listener Node would drop a CONNECT silently: it is answered like any unsupported method.
  server.on('connect', (_req, socket) => writeRefusal(socket, 405, 'Method not allowed'));
  // Satchel speaks no protocol to upgrade to (WebSocket, h2c). Without a listener Node answers such a request
  // but throws away whatever was pipelined behind it and keeps the connection open; here it is answered as an
  // ordinary request and the connection closes after it, so a client knows to send the rest again.
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex) => answerAndClose(req, socket, listener));
  await listen(server, config.port, config.host);

  const { port } = server.address() as AddressInfo;
  const hostPart = config.host.includes(':') ? `[${config.host}]` : config.host;
  const origin = `http://${hostPart}:${port}`;
  log.info(`listening on ${origin}`);
  if (config.preloadSpeech) {
    // In the background: the server answers at once; a dictation arriving meanwhile queues behind the load.
    void preloadSpeech(loadSttConfig(config.stateDir)).then((loaded) => loaded && log.info('speech: on-device model ready'));
  }

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      stopping.abort();
      // Running turns are cancelled and what they streamed is stored before close resolves.
      const stored = Promise.all([turns.stop(), sweep.stop()]);
      server.close(() => void stored.then(() => resolve()));
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs ?? SHUTDOWN_GRACE_MS).unref();
    });
    return closing;
  };

  return { host: config.host, port, origin, token: app.token, tokenUrl: `${origin}/?token=${app.token}`, stateDir: config.stateDir, close };
}
