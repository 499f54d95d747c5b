// The allocator settings for the server's own process (allocator.ts): the headless command starts itself again with
// them, passes signals on, ends as its child ended, and a kill -9 of it ends the child too. The processes are real
// Node processes running allocator.ts bundled (esbuild), since a spawned Node cannot import TypeScript.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allocatorEnv, EXIT_PARENT_GONE, GLIBC_ALLOCATOR_TUNABLES, relaunchWithAllocator, wantsAllocatorRelaunch, type RelaunchHost } from './allocator.js';
import { REPO_ROOT } from '../testing/compile.js';

/** How long a real child gets to start, answer or end on a loaded machine. */
const CHILD_DEADLINE_MS = 30_000;
const POLL_MS = 50;

let work: string;
let bundle: string;

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-allocator-'));
  bundle = path.join(work, 'allocator.mjs');
  await build({ entryPoints: [path.join(REPO_ROOT, 'server', 'process', 'allocator.ts')], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'silent' });
}, 60_000);
afterAll(() => fs.rm(work, { recursive: true, force: true }));

async function until<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (let waited = 0; waited < CHILD_DEADLINE_MS; waited += POLL_MS) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error('timed out');
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it('adds the settings on Linux only, and never over the person\'s own (an empty value turns them off)', () => {
  expect(allocatorEnv({ PATH: '/bin' }, 'linux')).toEqual({ PATH: '/bin', GLIBC_TUNABLES: GLIBC_ALLOCATOR_TUNABLES });
  expect(allocatorEnv({ GLIBC_TUNABLES: '' }, 'linux')).toEqual({ GLIBC_TUNABLES: '' });
  expect(allocatorEnv({ PATH: '/bin' }, 'darwin')).toEqual({ PATH: '/bin' });
  expect(wantsAllocatorRelaunch({}, 'linux', () => true)).toBe(true);
  expect(wantsAllocatorRelaunch({}, 'linux', () => false)).toBe(false);
  expect(wantsAllocatorRelaunch({ GLIBC_TUNABLES: GLIBC_ALLOCATOR_TUNABLES }, 'linux', () => true)).toBe(false);
  expect(wantsAllocatorRelaunch({ GLIBC_TUNABLES: '' }, 'linux', () => true)).toBe(false);
  expect(wantsAllocatorRelaunch({}, 'win32', () => true)).toBe(false);
});

it('runs the script again with the settings and this process\'s flags, and ends with its exit code', async () => {
  const script = path.join(work, 'child-exit.mjs');
  const out = path.join(work, 'child-exit.json');
  await fs.writeFile(script, `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify({ args: process.argv.slice(2), execArgv: process.execArgv, tunables: process.env.GLIBC_TUNABLES })); process.exit(7);`);
  const exited = new Promise<number>((resolve) => {
    const host: RelaunchHost = { execPath: process.execPath, execArgv: ['--no-warnings'], env: { PATH: process.env.PATH }, on: () => host, removeAllListeners: () => host, kill: () => true, pid: process.pid, exit: (code) => resolve(code) };
    relaunchWithAllocator(script, ['--port', '8787'], host);
  });
  expect(await exited).toBe(7);
  expect(JSON.parse(await fs.readFile(out, 'utf8'))).toEqual({ args: ['--port', '8787'], execArgv: ['--no-warnings'], tunables: GLIBC_ALLOCATOR_TUNABLES });
});

it('passes a stop signal on, and dies of the signal that killed the child', async () => {
  const script = path.join(work, 'child-signal.mjs');
  const out = path.join(work, 'child-signal.txt');
  // Up and listening first, then the signal: the first SIGTERM is answered by a clean exit 0.
  await fs.writeFile(script, `import fs from 'node:fs'; process.on('SIGTERM', () => { fs.writeFileSync(${JSON.stringify(out)}, 'SIGTERM'); process.exit(0); }); fs.writeFileSync(${JSON.stringify(out)}, 'up'); setInterval(() => {}, 1000);`);
  const listeners = new Map<string, () => void>();
  const ended: { code?: number; killed?: string } = {};
  const host: RelaunchHost = {
    execPath: process.execPath,
    execArgv: [],
    env: { PATH: process.env.PATH },
    on: (signal, listener) => listeners.set(signal, listener),
    removeAllListeners: (signal) => listeners.delete(signal),
    kill: (_pid, signal) => (ended.killed = signal),
    pid: process.pid,
    exit: (code) => void (ended.code = code),
  };
  relaunchWithAllocator(script, [], host);
  expect([...listeners.keys()].sort()).toEqual(['SIGHUP', 'SIGINT', 'SIGTERM']);
  await until(async () => ((await fs.readFile(out, 'utf8')) === 'up' ? true : undefined));
  listeners.get('SIGTERM')!();
  await until(async () => (ended.code !== undefined ? true : undefined));
  expect(ended).toEqual({ code: 0 });
  expect(await fs.readFile(out, 'utf8')).toBe('SIGTERM');

  // A child killed outright: the parent removes its relays and raises the same signal on itself.
  const killed = relaunchWithAllocator(path.join(work, 'child-signal.mjs'), [], { ...host, exit: () => {} });
  await until(async () => (killed.pid !== undefined && (await fs.readFile(out, 'utf8')) === 'up' ? true : undefined));
  killed.kill('SIGKILL');
  await until(async () => (ended.killed !== undefined ? true : undefined));
  expect(ended.killed).toBe('SIGKILL');
  expect(listeners.size).toBe(0);
});

it('a kill -9 of the waiting parent ends the server it started', async () => {
  const server = path.join(work, 'server.mjs');
  const pidFile = path.join(work, 'server.pid');
  await fs.writeFile(server, `import fs from 'node:fs'; import { exitWithParent } from ${JSON.stringify(bundle)}; exitWithParent(); fs.writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`);
  const launcher = path.join(work, 'launcher.mjs');
  await fs.writeFile(launcher, `import { relaunchWithAllocator } from ${JSON.stringify(bundle)}; relaunchWithAllocator(${JSON.stringify(server)}, []);`);
  const parent = spawn(process.execPath, [launcher], { stdio: 'ignore' });
  const pid = await until(async () => Number(await fs.readFile(pidFile, 'utf8')) || undefined);
  expect(pid).not.toBe(parent.pid);
  const parentGone = new Promise((r) => parent.once('exit', r));
  parent.kill('SIGKILL');
  await parentGone;
  // Gone, or a zombie waiting for whoever adopted it to reap it: either way no longer running.
  await until(async () => (!alive(pid) || (await fs.readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.startsWith('Z') ? true : undefined));
  expect(EXIT_PARENT_GONE).toBeGreaterThan(0);
}, 60_000);
