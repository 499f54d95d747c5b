// The off-thread runner in both of its kinds, with the child's host bundled from its sources: a job answered in a
// process of its own with the allocator settings, a crash and a memory overrun told apart, a terminate that waits
// for the process to be gone, and no child left when the server is killed.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHILD_GLIBC_TUNABLES, childEnv, endOffThreadChildren, startOffThread, type OffThread, type OffThreadEnd, type OffThreadSpec } from './off-thread.js';
import { bundleChild } from '../testing/compile.js';

const SLOW = 60_000;
const MIB = 1024 * 1024;
/** Generous on a loaded 2-core machine: a child process gone after its parent was killed. */
const ORPHAN_WAIT_MS = 15_000;

// Answers each message with what it saw; 'crash' ends the thread; { mb } holds that many MiB of touched memory.
const WORKER = `
const { parentPort } = require('node:worker_threads');
const held = [];
parentPort.on('message', (m) => {
  if (m === 'crash') process.exit(3);
  if (m && m.mb) { for (let i = 0; i < m.mb; i++) held.push(Buffer.alloc(1024 * 1024, 1)); }
  parentPort.postMessage({ pid: process.pid, tunables: process.env.GLIBC_TUNABLES ?? null, bytes: m && m.bytes ? m.bytes.length : 0, sum: m && m.bytes ? m.bytes.reduce((a, b) => a + b, 0) : 0 });
});`;

let host: string;
beforeAll(async () => {
  host = await bundleChild('server/workspace/off-thread-host.ts', 'off-thread-host-');
}, SLOW);
afterAll(() => endOffThreadChildren());

const spec = (childHost: string | null, budgetMb = 256): OffThreadSpec => ({ script: { source: WORKER }, maxHeapMb: 64, memory: { budgetBytes: budgetMb * MIB, sampleMs: 10 }, childHost });
const reply = (w: OffThread) => new Promise<Record<string, unknown>>((resolve) => w.once('message', resolve));
const ended = (w: OffThread) => new Promise<OffThreadEnd>((resolve) => w.once('exit', resolve));
/** Whether a process exists and is not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('work off the thread, in a child process', () => {
  it('answers a job from a process of its own, with the allocator settings, and is gone once terminated', async () => {
    const w = startOffThread(spec(host));
    expect(w.pid).toBeGreaterThan(0);
    expect(w.pid).not.toBe(process.pid);
    const bytes = new Uint8Array(3 * MIB).fill(2);
    w.post({ bytes }, { job: true });
    const answer = await reply(w);
    expect(answer).toEqual({ pid: w.pid, tunables: process.platform === 'linux' ? (process.env.GLIBC_TUNABLES ?? CHILD_GLIBC_TUNABLES) : null, bytes: 3 * MIB, sum: 6 * MIB });
    const end = ended(w);
    await w.terminate();
    expect(await end).toBe('ended');
    expect(alive(w.pid!)).toBe(false);
  }, SLOW);

  it("tells a crash of its worker from a job past its memory budget, and the next child starts fresh", async () => {
    const crashing = startOffThread(spec(host));
    const crash = ended(crashing);
    crashing.post('crash' as unknown as object, { job: true });
    expect(await crash).toBe('crash');
    expect(alive(crashing.pid!)).toBe(false);

    const greedy = startOffThread(spec(host, 32));
    const overrun = ended(greedy);
    greedy.post({ mb: 200 }, { job: true });
    expect(await overrun).toBe('memory');
    expect(alive(greedy.pid!)).toBe(false);

    const next = startOffThread(spec(host, 32));
    next.post({ mb: 8 }, { job: true });
    expect((await reply(next)).pid).toBe(next.pid);
    await next.terminate();
  }, SLOW);

  it('is killed from outside as a crash', async () => {
    const w = startOffThread(spec(host));
    w.post({}, { job: true });
    await reply(w);
    const end = ended(w);
    process.kill(w.pid!, 'SIGKILL');
    expect(await end).toBe('crash');
  }, SLOW);

  it('leaves no child behind when the server is killed, even one busy with a job', async () => {
    const parentScript = await bundleChild('server/workspace/testing/off-thread-parent.ts', 'off-thread-parent-');
    const parent = spawn(process.execPath, [parentScript, host], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      parent.once('exit', () => reject(new Error('the parent ended first')));
    });
    expect(alive(pid)).toBe(true);
    parent.kill('SIGKILL');
    const deadline = Date.now() + ORPHAN_WAIT_MS;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
  }, SLOW);

  it('ends every child at the server stop', async () => {
    const a = startOffThread(spec(host));
    const b = startOffThread(spec(host));
    a.post({}, { job: true });
    await reply(a);
    await endOffThreadChildren();
    expect([alive(a.pid!), alive(b.pid!)]).toEqual([false, false]);
  }, SLOW);

  it('sets the allocator settings only on Linux, and keeps a person\'s own', () => {
    expect(childEnv({ PATH: '/bin' }, 'linux')).toEqual({ PATH: '/bin', GLIBC_TUNABLES: CHILD_GLIBC_TUNABLES });
    expect(childEnv({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=1' }, 'linux')).toEqual({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=1' });
    expect(childEnv({ PATH: '/bin' }, 'darwin')).toEqual({ PATH: '/bin' });
  });
});

describe('work off the thread, in a thread of this process', () => {
  it('answers alike, and ends a job past its memory budget as memory', async () => {
    const w = startOffThread(spec(null, 32));
    expect(w.pid).toBeUndefined();
    w.post({ bytes: new Uint8Array(10).fill(1) }, { job: true });
    expect(await reply(w)).toEqual({ pid: process.pid, tunables: process.env.GLIBC_TUNABLES ?? null, bytes: 10, sum: 10 });
    const overrun = ended(w);
    w.post({ mb: 200 }, { job: true });
    expect(await overrun).toBe('memory');
  }, SLOW);
});

describe('an idle child', () => {
  it('keeps a process that awaits only its end alive until it has ended', async () => {
    // A script whose only pending work is terminating an idle (unreferenced) child: it must print, not exit 13.
    const script = await bundleChild('server/workspace/testing/off-thread-idle-end.ts', 'off-thread-idle-');
    const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
      const p = spawn(process.execPath, [script, host], { stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      p.stdout.on('data', (d: Buffer) => (text += d.toString()));
      p.on('exit', (code) => resolve({ code, text }));
    });
    expect(out).toEqual({ code: 0, text: 'ended\n' });
  }, SLOW);
});
