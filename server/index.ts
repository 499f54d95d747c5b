// Starting and stopping the loopback server: the HTTP server around the application that server/app.ts builds.
// It only listens (with the transport's timeouts and its answers to CONNECT and Upgrade) and closes. Used by
// the headless CLI, by Electron's main process and by the tests alike; nothing here knows about Electron.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createApp, type AppOptions } from './app.js';
import { CLOSE_DEADLINE_MS, handleClientError, writeRefusal } from './http/clienterror.js';
import { CONNECTIONS_CHECK_INTERVAL_MS, HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, SHUTDOWN_GRACE_MS } from './http/timeouts.js';
import type { ServerConfig } from './core/config.js';
import { log } from './core/log.js';
import { loadSttConfig, preloadSpeech } from './speech/index.js';
import { addFilesToInbox, type OpenedDestination, type OpenedResult } from './inbox/open-with.js';
import { DEFAULT_PROFILE } from './store/profiles.js';
import { claimStateFolder, type StateLock } from './process/state-lock.js';
import { setServerHeapGrowth } from './core/heap-growth.js';
import { fullCollection, IdleCollector, idleRelease } from './core/idle-collect.js';
import { loadMallocTrim } from './core/malloc-trim.js';

export { ACCESS_COOKIE } from './http/access.js';

export { CONNECTIONS_CHECK_INTERVAL_MS, HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, SHUTDOWN_GRACE_MS } from './http/timeouts.js';

export interface RunningServer {
  host: string;
  port: number;
  origin: string;
  token: string;
  tokenUrl: string;
  stateDir: string;
  /** For the desktop shell in the same process (main/): what the tray and "Open with" do to the server. */
  desktop: DesktopHooks;
  close(): Promise<void>;
}

export interface DesktopHooks {
  /**
   * Files and folders opened with Satchel, into the default profile's Inbox conversation, or its conversation in
   * use when `to` is 'current' (the desktop setting openWithTo; inbox/open-with.ts).
   */
  addToInbox(paths: readonly string[], to?: OpenedDestination): Promise<OpenedResult>;
  /** The Inbox folder watcher, for the tray's Pause/Resume watching. */
  watching: { state(): 'watching' | 'paused' | 'none'; pause(): void; resume(): void };
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

/**
 * Start the server on `config.stateDir`, which it owns until it closes (process/state-lock.ts): a second one on the
 * same folder is refused with StateFolderInUse. A caller that must own the folder before it touches it (the desktop
 * app moves the agent's key into its keychain file first) claims it itself and passes its lock: the server releases
 * it when it closes, the caller when the start fails. `options`: the parts a caller swaps in (app.ts AppOptions).
 */
export async function startServer(config: ServerConfig, options: AppOptions = {}, claimed?: StateLock): Promise<RunningServer> {
  // V8 collects the old generation's garbage sooner (core/heap-growth.ts: not a limit; issue 37's Export all).
  setServerHeapGrowth();
  // Before anything in the folder is touched (createApp empties its staging folder).
  const lock = claimed ?? (await claimStateFolder(config.stateDir));
  try {
    return await serve(config, options, lock);
  } catch (err) {
    if (!claimed) await lock.release();
    throw err;
  }
}

async function serve(config: ServerConfig, options: AppOptions, lock: StateLock): Promise<RunningServer> {
  const { app, listener, stop, releaseIdle } = await createApp(config, options);
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
  // Once nothing has been asked for a while, the heap a busy spell grew is given back (core/idle-collect.ts).
  const idle = new IdleCollector(idleRelease(fullCollection(), loadMallocTrim(), releaseIdle));
  server.on('request', () => idle.touch());
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
  try {
    await listen(server, config.port, config.host);
  } catch (err) {
    await stop();
    throw err;
  }

  const { port } = server.address() as AddressInfo;
  const hostPart = config.host.includes(':') ? `[${config.host}]` : config.host;
  const origin = `http://${hostPart}:${port}`;
  // Where a second start on this folder is sent (its refusal, or the desktop window opening this one).
  await lock.announce({ url: `${origin}/`, token: app.token }).catch((err: unknown) => log.warn('Could not record this server\'s address in its state folder:', err));
  log.info(`listening on ${origin}`);
  if (config.preloadSpeech) {
    // In the background: the server answers at once; a dictation arriving meanwhile queues behind the load.
    void preloadSpeech(loadSttConfig(config.stateDir)).then((loaded) => loaded && log.info('speech: on-device model ready'));
  }

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      idle.stop();
      // Running turns are cancelled and what they streamed is stored before close resolves.
      const stored = stop().finally(() => lock.release());
      server.close(() => void stored.then(() => resolve()));
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs ?? SHUTDOWN_GRACE_MS).unref();
    });
    return closing;
  };

  const desktop: DesktopHooks = {
    addToInbox: (paths, to) => addFilesToInbox(app, DEFAULT_PROFILE, paths, to),
    watching: {
      state: () => (app.inbox.list(DEFAULT_PROFILE).length === 0 ? 'none' : app.inbox.isPaused ? 'paused' : 'watching'),
      pause: () => void app.inbox.setPaused(true).catch((err: unknown) => log.warn('inbox: could not pause', err)),
      resume: () => void app.inbox.setPaused(false).catch((err: unknown) => log.warn('inbox: could not resume', err)),
    },
  };
  return { host: config.host, port, origin, token: app.token, tokenUrl: `${origin}/?token=${app.token}`, stateDir: config.stateDir, desktop, close };
}
