// The headless server's port memory (cli.ts): a restart comes back on the port it had, so an open tab finds it
// again; a taken port or a port the user chose wins over the memory; the token is new on every launch.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { remembersPort, startHeadless } from './cli.js';
import { loadConfig, type CliFlags } from './core/config.js';
import type { RunningServer } from './index.js';
import { setLogSink } from './core/log.js';
import { PORT_FILE_NAME } from './process/port-store.js';

// No speech model loading at start: these tests only listen.
const ENV = { SATCHEL_STT_PRELOAD: '0' };

let dir: string;
let restoreLog: () => void;
const running: RunningServer[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'satchel-cli-'));
  restoreLog = setLogSink(() => {});
});
afterEach(async () => {
  restoreLog();
  await Promise.all(running.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

async function launch(flags: CliFlags = {}, env: NodeJS.ProcessEnv = ENV): Promise<RunningServer> {
  const all = { stateDir: dir, ...flags };
  const config = loadConfig(env, all);
  const server = await startHeadless(config, remembersPort(config, all, env));
  running.push(server);
  return server;
}

async function stop(server: RunningServer): Promise<void> {
  running.splice(running.indexOf(server), 1);
  await server.close();
}

/** Hold a port as another program would, until released. */
async function occupy(port: number): Promise<net.Server> {
  const blocker = net.createServer();
  await new Promise<void>((resolve, reject) => blocker.once('error', reject).listen(port, '127.0.0.1', resolve));
  return blocker;
}

describe('remembersPort', () => {
  it('remembers unless the user fixed a port; 0 (any port) fixes nothing', () => {
    const remembers = (flags: CliFlags, env: NodeJS.ProcessEnv) => remembersPort(loadConfig(env, flags), flags, env);
    expect(remembers({}, {})).toBe(true);
    expect(remembers({ port: '0' }, {})).toBe(true);
    expect(remembers({ port: '8123' }, {})).toBe(false);
    expect(remembers({}, { SATCHEL_WEBUI_PORT: '8123' })).toBe(false);
  });
});

describe('startHeadless', () => {
  it('a restart listens on the port of the previous launch, with a new token', async () => {
    const first = await launch();
    const { port, token } = first;
    expect(JSON.parse(await readFile(path.join(dir, PORT_FILE_NAME), 'utf8'))).toEqual({ port });
    await stop(first);
    const second = await launch();
    expect(second.port).toBe(port);
    expect(second.token).not.toBe(token);
  });

  it('when the remembered port is taken, starts on another one and remembers that', async () => {
    const first = await launch();
    const taken = first.port;
    await stop(first);
    const blocker = await occupy(taken);
    try {
      const second = await launch();
      expect(second.port).not.toBe(taken);
      expect(JSON.parse(await readFile(path.join(dir, PORT_FILE_NAME), 'utf8'))).toEqual({ port: second.port });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('--port wins over the remembered port, and is not remembered', async () => {
    const first = await launch();
    const remembered = first.port;
    await stop(first);
    const free = await occupy(0);
    const chosen = (free.address() as net.AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    const second = await launch({ port: String(chosen) });
    expect(second.port).toBe(chosen);
    expect(JSON.parse(await readFile(path.join(dir, PORT_FILE_NAME), 'utf8'))).toEqual({ port: remembered });
  });
});
