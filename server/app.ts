// The composition root: the one place that builds the application from its configuration. It prepares the
// state folder, loads the stores, recovers turns a stop interrupted, wires the agent's turn manager, the MCP
// token and the attachment sweep, and joins the route table to the request lifecycle. The HTTP server around
// it (server/index.ts) only listens and closes; the layers below never build each other.
import { setMaxListeners } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAgentConfig } from './agent/config.js';
import { requestBuilder } from './agent/request.js';
import { recoverInterruptedTurns, TurnManager, type TurnDependencies } from './agent/turns.js';
import { streamTurn } from './agent/upstream.js';
import { sessionFolder } from './attachments/layout.js';
import type { ServerConfig } from './core/config.js';
import { startAttachmentSweep } from './drafts/sweep.js';
import { routes } from './handlers/routes.js';
import { newToken } from './http/access.js';
import { createRequestListener, type Handler as HandlerOf, type HandlerInput as HandlerInputOf, type Host, type Route as RouteOf } from './http/lifecycle.js';
import { serveStatic } from './http/static.js';
import { log } from './core/log.js';
import { attachMcpToken, McpToken, mcpTokenFileStore } from './mcp/token.js';
import { EventBus } from './store/events.js';
import { SessionStore } from './store/sessions.js';
import { Workspaces } from './store/workspaces.js';

/** What every handler, the MCP tools and the attachment services are handed: the application's parts. */
export interface App extends Host {
  version: string;
  sessions: SessionStore;
  workspaces: Workspaces;
  events: EventBus;
  /** Conversations with the agent: running turns and the frames of recent ones. */
  turns: TurnManager;
  stagingDir: string;
  staticDir: string;
}

export type HandlerInput = HandlerInputOf<App>;
export type Handler = HandlerOf<App>;
export type Route = RouteOf<App>;

/** The built application: its parts, the request listener that serves them, and how to stop its work. */
export interface BuiltApp {
  app: App;
  listener: http.RequestListener;
  /** Stops the background work: running turns are cancelled and stored, the sweep ends. Idempotent. */
  stop(): Promise<void>;
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

/** The web UI's folder: beside the compiled server in a build, under dist/ when run from the sources. */
export function defaultStaticDir(): string {
  return findUp([path.join(here, '..', 'renderer'), path.join(here, '..', 'dist', 'renderer')], (d) => existsSync(path.join(d, 'index.html')));
}

export async function createApp(config: ServerConfig): Promise<BuiltApp> {
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

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      stopping.abort();
      await Promise.all([turns.stop(), sweep.stop()]);
    })();
    return stopped;
  };
  return { app, listener: createRequestListener(app, routes, serveStatic), stop };
}
