// Work the server hands off its event loop (OCR, a PDF's text): one worker thread running a given script, either
// in this process or, where the runtime allows, inside a child process of its own (off-thread-host.ts) that ends
// when its worker is let go. The child is the default under Node: the native memory a worker's job allocates stays
// in glibc's arena for that thread after the thread ends, but leaves with a process (docs/benchmarks.md, issue 37
// finding 8). Both kinds answer alike: a message per job, an end with its reason ('memory' past the job's budget,
// 'crash' for anything unplanned, 'ended' when terminated), so the OCR engine and the PDF reader keep one code path.
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createRssWatchdog, type RssWatchdog } from './rss-watchdog.js';
import { HOST_EXIT_MEMORY, type FromHost, type OffThreadScript, type ToHost } from './off-thread-protocol.js';

/** glibc's allocator settings for a child (docs/benchmarks.md, finding 8): large buffers mapped and unmapped on
 *  their own, freed memory returned past 128 KiB, two arenas instead of one per thread. Measured on the whole
 *  server: idle after a day 5.0× its start without them, 2.0× with them. Ignored by other C libraries. */
export const CHILD_GLIBC_TUNABLES = 'glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072:glibc.malloc.arena_max=2';

export type OffThreadEnd = 'memory' | 'crash' | 'ended';

export interface OffThreadSpec {
  script: OffThreadScript;
  workerData?: unknown;
  /** The worker's JavaScript heap. */
  maxHeapMb: number;
  /** What one job may add to the resident set of the process it runs in (rss-watchdog.ts). */
  memory: { budgetBytes: number; sampleMs: number };
  /** The compiled host to fork (defaultChildHost()), or null for a thread of this process. */
  childHost: string | null;
}

/** A worker thread, here or in a child process. Events: 'message' (the worker's answer), 'exit' (OffThreadEnd),
 *  once. */
export interface OffThread extends EventEmitter {
  /** The child process's id, undefined for a thread of this process. */
  readonly pid: number | undefined;
  /** Send a message; a job is watched for memory until the worker's next message. */
  post(message: object, options?: { job?: boolean; transfer?: ArrayBuffer[] }): void;
  /** End it now; resolves once it is gone, with its memory. */
  terminate(): Promise<void>;
  /** Whether it keeps this process alive (a busy one does, an idle one does not). */
  ref(): void;
  unref(): void;
}

const HOST_NEXT_TO_US = new URL('./off-thread-host.js', import.meta.url);

/**
 * The compiled host when work may go to child processes, else null (threads of this process). Under the test
 * runner's TypeScript sources there is no compiled host. Under Electron never: the packaged app's runAsNode fuse is
 * off (electron-builder.yml), so its binary cannot run as Node, and forking it would start a second app; the desktop
 * keeps threads (server/ imports no Electron, whose utilityProcess would be the way).
 */
export function defaultChildHost(): string | null {
  if (process.versions.electron !== undefined || HOST_NEXT_TO_US.protocol !== 'file:') return null;
  const file = fileURLToPath(HOST_NEXT_TO_US);
  return existsSync(file) ? file : null;
}

/** The child's environment: the server's, with the allocator settings on Linux unless the person set their own. */
export function childEnv(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): NodeJS.ProcessEnv {
  return { ...env, ...(platform === 'linux' && env.GLIBC_TUNABLES === undefined ? { GLIBC_TUNABLES: CHILD_GLIBC_TUNABLES } : {}) };
}

export function startOffThread(spec: OffThreadSpec): OffThread {
  return spec.childHost === null ? new ThreadOffThread(spec) : new ChildOffThread(spec, spec.childHost);
}

// Children alive now, so that stopping the server ends them (endOffThreadChildren).
const children = new Set<ChildOffThread>();

/** Ends every child now (the server's stop); their jobs end as 'ended'. */
export async function endOffThreadChildren(): Promise<void> {
  await Promise.all([...children].map((child) => child.terminate()));
}

// One watchdog per budget for threads of this process: the resident set is the whole process's, so jobs watched
// by the same rule share one floor (rss-watchdog.ts).
const watchdogs = new Map<string, RssWatchdog>();

class ThreadOffThread extends EventEmitter implements OffThread {
  readonly pid = undefined;
  private readonly worker: Worker;
  private readonly memory: RssWatchdog;
  private unwatch: (() => void) | undefined;
  private end: OffThreadEnd | undefined;
  private readonly gone: Promise<void>;

  constructor(spec: OffThreadSpec) {
    super();
    const key = `${spec.memory.budgetBytes}/${spec.memory.sampleMs}`;
    let memory = watchdogs.get(key);
    if (!memory) watchdogs.set(key, (memory = createRssWatchdog({ budgetBytes: spec.memory.budgetBytes, intervalMs: spec.memory.sampleMs })));
    this.memory = memory;
    const options = { workerData: spec.workerData, resourceLimits: { maxOldGenerationSizeMb: spec.maxHeapMb }, stdout: true, stderr: true };
    this.worker = 'source' in spec.script ? new Worker(spec.script.source, { ...options, eval: true }) : new Worker(pathToFileURL(spec.script.file), options);
    // What the worker's code prints is not for the log.
    this.worker.stdout.resume();
    this.worker.stderr.resume();
    this.worker.on('message', (m: unknown) => {
      this.stopWatching();
      this.emit('message', m);
    });
    this.worker.on('error', () => {});
    this.gone = new Promise((resolve) =>
      this.worker.once('exit', () => {
        this.stopWatching();
        this.emit('exit', this.end ?? 'crash');
        resolve();
      }),
    );
  }

  post(message: object, { job = false, transfer = [] }: { job?: boolean; transfer?: ArrayBuffer[] } = {}): void {
    if (job) {
      this.stopWatching();
      this.unwatch = this.memory.watch(() => {
        this.end ??= 'memory';
        void this.worker.terminate().catch(() => {});
      });
    }
    this.worker.postMessage(message, transfer);
  }

  async terminate(): Promise<void> {
    this.end ??= 'ended';
    await this.worker.terminate().catch(() => 0);
    await this.gone;
  }

  ref(): void {
    this.worker.ref();
  }

  unref(): void {
    this.worker.unref();
  }

  private stopWatching(): void {
    this.unwatch?.();
    this.unwatch = undefined;
  }
}

class ChildOffThread extends EventEmitter implements OffThread {
  private readonly child: ChildProcess;
  private end: OffThreadEnd | undefined;
  private readonly gone: Promise<void>;

  constructor(spec: OffThreadSpec, host: string) {
    super();
    // Its own execPath (this Node) and no inherited flags (a profiler's, a test runner's), the stdio closed: what
    // the worker's code prints is not for the log. 'advanced' serialization carries byte arrays as they are.
    this.child = fork(host, [], { execPath: process.execPath, execArgv: [], env: childEnv(), serialization: 'advanced', stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    children.add(this);
    this.child.on('message', (reply: FromHost) => this.emit('message', reply.m));
    this.gone = new Promise((resolve) => {
      let told = false;
      const ended = (code: number | null) => {
        if (told) return;
        told = true;
        children.delete(this);
        this.emit('exit', this.end ?? (code === HOST_EXIT_MEMORY ? 'memory' : 'crash'));
        resolve();
      };
      this.child.once('exit', ended);
      // A closed channel is followed by the exit; a process that never started has none.
      this.child.on('error', () => {
        if (this.child.pid === undefined) ended(null);
      });
    });
    this.send({ t: 'init', script: spec.script, workerData: spec.workerData, maxHeapMb: spec.maxHeapMb, budgetBytes: spec.memory.budgetBytes, sampleMs: spec.memory.sampleMs });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  post(message: object, { job = false }: { job?: boolean; transfer?: ArrayBuffer[] } = {}): void {
    this.send({ t: job ? 'job' : 'post', m: message });
  }

  async terminate(): Promise<void> {
    this.end ??= 'ended';
    // An idle child is unreferenced: without this, a process awaiting only this exit would end before it comes.
    this.ref();
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.gone;
  }

  ref(): void {
    this.child.ref();
    (this.child.channel as { ref?: () => void } | null | undefined)?.ref?.();
  }

  unref(): void {
    this.child.unref();
    (this.child.channel as { unref?: () => void } | null | undefined)?.unref?.();
  }

  private send(message: ToHost): void {
    // A child already gone: its exit answers the job.
    if (this.child.connected) this.child.send(message, (err) => void err);
  }
}
