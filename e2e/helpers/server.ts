// Starts the real server as the product ships it (`node dist/main/index.js --server-only`) and parses the
// tokened URL it prints. Every wait has a deadline; stop() escalates from SIGTERM to SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Generous: on a 2-core machine loaded by several builds (load 20), the server took over 30 s to print its URL;
// a healthy start takes about a second, so the deadline only bounds a server that never starts.
export const START_DEADLINE_MS = 120_000;
export const STOP_DEADLINE_MS = 5_000;
const URL_LINE = /Satchel is running at (http:\/\/[^\s/]+)\/\?token=([^\s]+)/;

export interface ServerInfo {
  base: string;
  token: string;
  stateDir: string;
  workspace: string;
  pid: number;
}

export interface RunningServer extends ServerInfo {
  stop(): Promise<void>;
}

/** SIGTERM, then SIGKILL after STOP_DEADLINE_MS; resolves once the process has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * The base URL and token `child` prints once it listens (its stdout and stderr kept meanwhile, for the error);
 * rejects if it exits first or prints none within START_DEADLINE_MS.
 */
export function printedUrl(child: ChildProcess): Promise<{ base: string; token: string }> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server printed no URL within ${START_DEADLINE_MS} ms:\n${output}`)), START_DEADLINE_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const m = URL_LINE.exec(output);
      if (m?.[1] && m[2]) {
        clearTimeout(timer);
        resolve({ base: m[1], token: m[2] });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before it was ready:\n${output}`));
    });
  });
}

/** A server a test starts and stops itself, on a state folder the test owns (and removes). */
export interface Launched {
  base: string;
  token: string;
  stop(): Promise<void>;
}

/** `node <args>` with `env` over this process's environment, once it prints its URL. */
export async function launchServer(args: string[], env: Record<string, string>): Promise<Launched> {
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const found = await printedUrl(child);
  return { ...found, stop: () => stopChild(child) };
}

/**
 * The server as `npm run serve` runs it (dist/server/cli.js) on `stateDir`, a new token each start; without
 * `--port` in `args` it tries the port its state folder remembers.
 */
export const serveCli = (stateDir: string, workspace: string, args: string[] = []): Promise<Launched> =>
  launchServer([path.resolve('dist/server/cli.js'), '--state-dir', stateDir, ...args], {
    SATCHEL_WEBUI_DEFAULT_WORKSPACE: workspace,
    SATCHEL_WEBUI_TOKEN: '',
    SATCHEL_WEBUI_PORT: '',
    SATCHEL_STT_PRELOAD: '0',
  });

/** `seed`: writes into the state folder before the server starts (a session file an older Satchel left, say). */
export async function startServer(env: Record<string, string> = {}, seed?: (dirs: { stateDir: string; workspace: string }) => void): Promise<RunningServer> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-e2e-'));
  const stateDir = path.join(root, 'state');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(stateDir);
  fs.mkdirSync(workspace);
  seed?.({ stateDir, workspace });
  // SATCHEL_E2E_ENTRY runs another build of the same entry (e.g. a patched copy while bisecting).
  const entry = path.resolve(process.env.SATCHEL_E2E_ENTRY || 'dist/main/index.js');
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run "npm run build" first`);
  const child: ChildProcess = spawn(process.execPath, [entry, '--server-only', '--port', '0', '--state-dir', stateDir], {
    env: { ...process.env, SATCHEL_WEBUI_DEFAULT_WORKSPACE: workspace, SATCHEL_WEBUI_TOKEN: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const found = await printedUrl(child);
  // Keep draining the pipes so a chatty server never blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.on('data', (c: Buffer) => {
    if (process.env.SATCHEL_E2E_SERVER_LOG) process.stderr.write(c);
  });
  const stop = async () => {
    await stopChild(child);
    fs.rmSync(root, { recursive: true, force: true });
  };
  return { ...found, stateDir, workspace, pid: child.pid ?? -1, stop };
}

/** The running server's details, handed from the global setup to the workers through the environment. */
export function serverInfo(): ServerInfo {
  const raw = process.env.SATCHEL_E2E_SERVER;
  if (!raw) throw new Error('SATCHEL_E2E_SERVER is not set: the global setup did not run');
  return JSON.parse(raw) as ServerInfo;
}
