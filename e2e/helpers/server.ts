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
  let output = '';
  const found = await new Promise<{ base: string; token: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server printed no URL within ${START_DEADLINE_MS} ms:\n${output}`)), START_DEADLINE_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = URL_LINE.exec(output);
      if (m?.[1] && m[2]) {
        clearTimeout(timer);
        resolve({ base: m[1], token: m[2] });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before it was ready:\n${output}`));
    });
  });
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
