// A real server (index.ts startServer) on a temporary folder of a test's own, which the test can stop and start
// again on the same state folder (a restart mid-turn), with an in-process agent. The chat properties
// (handlers/chat-invariant.property.test.ts, handlers/queued-order.property.test.ts) run on it.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AppOptions } from '../app.js';
import { startServer, type RunningServer } from '../index.js';
import { TEST_TOKEN } from './harness.js';

/** A request that hangs this long is a failure of the test, not a wait. */
const CALL_DEADLINE_MS = 10_000;

export interface RestartableServer {
  /** The test's folder: the state folder is `state/` below it, and it is the default workspace. */
  readonly tmp: string;
  /** The server running now (a new one after each restart). */
  readonly server: RunningServer;
  /** The server stopped and started again on the same state folder. */
  restart(): Promise<void>;
  /** A JSON request with the test token; the answer's status and parsed body. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  call(method: 'GET' | 'POST', pathname: string, body?: unknown): Promise<{ status: number; json: any }>;
  /** The server stopped and the folder removed. */
  close(): Promise<void>;
}

export async function startRestartable(prefix: string, agent: AppOptions['agent']): Promise<RestartableServer> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  const stateDir = path.join(tmp, 'state');
  const start = () =>
    startServer({ host: '127.0.0.1', port: 0, stateDir, token: TEST_TOKEN, maxUploadBytes: 1024 * 1024, defaultWorkspace: tmp }, { agent });
  let server = await start();
  return {
    tmp,
    get server() {
      return server;
    },
    async restart() {
      await server.close();
      server = await start();
    },
    async call(method, pathname, body) {
      const res = await fetch(server.origin + pathname, {
        method,
        headers: { Authorization: `Bearer ${TEST_TOKEN}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(CALL_DEADLINE_MS),
      });
      return { status: res.status, json: await res.json() };
    },
    async close() {
      await server.close();
      await fs.rm(tmp, { recursive: true, force: true });
    },
  };
}
