// The desktop's worker processes: the server's launcher over Electron's utilityProcess. The Electron binary cannot
// run here, so the fake below starts the real host (bundled from its sources) as a Node process that sees what a
// utility process sees: a process.parentPort whose messages arrive as events carrying `data`, and no IPC channel
// of its own to speak on. What is checked is the adapter and the host's side of it; Electron's own process
// launching (and a worker thread inside a utility process) is not run on this machine.
import { fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHILD_GLIBC_TUNABLES, defaultChildHost, setHostLauncher, startOffThread, type OffThread, type OffThreadEnd } from '../server/workspace/off-thread.js';
import { bundleChild } from '../server/testing/compile.js';
import { utilityHostLauncher, WORKER_SERVICE_NAME, workerHostFile, type UtilityChild, type UtilityForker } from './worker-process.js';

const SLOW = 60_000;
const MIB = 1024 * 1024;

// Before the host is imported: a parentPort as Electron gives a utility process, over this fake's IPC channel,
// and process.send hidden, so the host can only answer through the port. Like Electron's, the port holds what
// arrives until its first 'message' listener (Electron starts the port then).
const UTILITY_BOOTSTRAP = `
import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';
const ipcSend = process.send.bind(process);
const port = new EventEmitter();
const held = [];
port.postMessage = (message) => ipcSend({ viaPort: true, message });
port.on('newListener', (name) => name === 'message' && queueMicrotask(() => held.splice(0).forEach((data) => port.emit('message', { data }))));
process.on('message', (data) => (port.listenerCount('message') ? port.emit('message', { data }) : held.push(data)));
process.parentPort = port;
process.send = undefined;
await import(pathToFileURL(process.argv[2]).href);
`;

// Answers each job with its process and environment; { mb } holds that many MiB of touched memory.
const WORKER = `
const { parentPort } = require('node:worker_threads');
const held = [];
parentPort.on('message', (m) => {
  if (m && m.mb) { for (let i = 0; i < m.mb; i++) held.push(Buffer.alloc(1024 * 1024, 1)); }
  parentPort.postMessage({ pid: process.pid, tunables: process.env.GLIBC_TUNABLES ?? null, sum: m && m.bytes ? m.bytes.reduce((a, b) => a + b, 0) : 0 });
});`;

/** Electron's utilityProcess as far as the adapter uses it, each child a Node process running the bootstrap. */
function fakeUtility(bootstrap: string): UtilityForker & { forks: Array<{ modulePath: string; serviceName: string; stdio: string; tunables: string | undefined }> } {
  const forks: Array<{ modulePath: string; serviceName: string; stdio: string; tunables: string | undefined }> = [];
  return {
    forks,
    fork(modulePath, args, options) {
      forks.push({ modulePath, serviceName: options.serviceName, stdio: options.stdio, tunables: options.env.GLIBC_TUNABLES });
      const child = fork(bootstrap, [modulePath, ...args], { env: options.env, serialization: 'advanced', stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
      const events = new EventEmitter();
      // Only what came through the port counts: the host must not answer on Node's channel.
      child.on('message', (m: { viaPort?: boolean; message: unknown }) => m.viaPort && events.emit('message', m.message));
      child.on('exit', (code, signal) => events.emit('exit', code ?? (signal ? 1 : 0)));
      const utility: UtilityChild = {
        get pid() {
          return child.pid;
        },
        postMessage: (message) => void child.send(message as object),
        kill: () => child.kill('SIGKILL'),
        on: (event: string, listener: (...a: any[]) => void) => events.on(event, listener),
      };
      return utility;
    },
  };
}

let utility: ReturnType<typeof fakeUtility>;
let host: string;
beforeAll(async () => {
  host = await bundleChild('server/workspace/off-thread-host.ts', 'utility-host-');
  const bootstrap = path.join(path.dirname(host), 'utility-bootstrap.mjs');
  writeFileSync(bootstrap, UTILITY_BOOTSTRAP);
  utility = fakeUtility(bootstrap);
  setHostLauncher(host, utilityHostLauncher(utility));
}, SLOW);
afterAll(() => setHostLauncher(undefined));

const start = (budgetMb = 256): OffThread => startOffThread({ script: { source: WORKER }, maxHeapMb: 64, memory: { budgetBytes: budgetMb * MIB, sampleMs: 10 }, childHost: defaultChildHost() });
const reply = (w: OffThread) => new Promise<Record<string, unknown>>((resolve) => w.once('message', resolve));
const ended = (w: OffThread) => new Promise<OffThreadEnd>((resolve) => w.once('exit', resolve));
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('the workers as utility processes', () => {
  it('runs a job in a utility process of its own, named, with the allocator settings, and ends it', async () => {
    expect(defaultChildHost()).toBe(host);
    const w = start();
    w.post({ bytes: new Uint8Array(2 * MIB).fill(3) }, { job: true });
    const answer = await reply(w);
    expect(answer).toEqual({ pid: w.pid, tunables: process.platform === 'linux' ? (process.env.GLIBC_TUNABLES ?? CHILD_GLIBC_TUNABLES) : null, sum: 6 * MIB });
    expect(w.pid).not.toBe(process.pid);
    expect(utility.forks.at(-1)).toEqual({ modulePath: host, serviceName: WORKER_SERVICE_NAME, stdio: 'ignore', tunables: process.platform === 'linux' ? (process.env.GLIBC_TUNABLES ?? CHILD_GLIBC_TUNABLES) : undefined });
    const end = ended(w);
    await w.terminate();
    expect(await end).toBe('ended');
    expect(alive(w.pid!)).toBe(false);
  }, SLOW);

  it('tells a job past its memory budget (the host exits itself) from a process killed from outside', async () => {
    const greedy = start(32);
    const overrun = ended(greedy);
    greedy.post({ mb: 200 }, { job: true });
    expect(await overrun).toBe('memory');
    expect(alive(greedy.pid!)).toBe(false);

    const next = start();
    next.post({}, { job: true });
    await reply(next);
    const end = ended(next);
    process.kill(next.pid!, 'SIGKILL');
    expect(await end).toBe('crash');
    // A message to a process already gone is dropped, not thrown.
    expect(() => next.post({}, { job: true })).not.toThrow();
  }, SLOW);

  it('finds the host beside the compiled server, in its unpacked copy', () => {
    expect(workerHostFile()).toBe(path.resolve('server/workspace/off-thread-host.js'));
  });
});
