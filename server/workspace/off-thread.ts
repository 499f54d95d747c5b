// Work the server hands off its event loop (OCR, a PDF's text): one worker thread running a given script, either
// in this process or inside a child process of its own (off-thread-host.ts) that ends when its worker is let go:
// forked under Node, started by the launcher the desktop hands in under Electron (setHostLauncher). The child is
// the default: the native memory a worker's job allocates stays
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

/** A process running the compiled host (off-thread-host.ts). Events: 'message' (what the host sent), 'exit' (its
 *  exit code, null when killed by a signal or never started), once. */
export interface HostProcess extends EventEmitter {
  readonly pid: number | undefined;
  /** Dropped when the process is gone: its exit answers the job. */
  send(message: ToHost): void;
  kill(): void;
  /** Whether it keeps this process's event loop alive (where the runtime has such a notion). */
  ref(): void;
  unref(): void;
}

/** Starts the host file with the given environment. Node's fork() by default; the desktop app hands in Electron's
 *  utilityProcess (main/worker-process.ts), since the server imports no Electron. */
export type HostLauncher = (host: string, env: NodeJS.ProcessEnv) => HostProcess;

let launcher: { host: string; launch: HostLauncher } | undefined;

/** Runs the workers in processes started by `launch` from `host` (the compiled off-thread-host.js), also where
 *  fork() cannot (Electron); undefined goes back to the default. Set before the first worker starts. */
export function setHostLauncher(host: string | undefined, launch?: HostLauncher): void {
  launcher = host !== undefined && launch ? { host, launch } : undefined;
}

/**
 * The compiled host when work may go to child processes, else null (threads of this process): the launcher's when
 * one was set (the desktop's). Under the test runner's TypeScript sources there is no compiled host. Under Electron
 * without a launcher: threads, since the packaged app's runAsNode fuse is off (electron-builder.yml), so its binary
 * cannot run as Node, and forking it would start a second app.
 */
export function defaultChildHost(): string | null {
  if (launcher) return launcher.host;
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
  private readonly child: HostProcess;
  private end: OffThreadEnd | undefined;
  private exited = false;
  private readonly gone: Promise<void>;

  constructor(spec: OffThreadSpec, host: string) {
    super();
    const launch = launcher?.host === host ? launcher.launch : forkHost;
    this.child = launch(host, childEnv());
    children.add(this);
    this.child.on('message', (reply: FromHost) => this.emit('message', reply.m));
    this.gone = new Promise((resolve) => {
      let told = false;
      const ended = (code: number | null) => {
        if (told) return;
        told = true;
        this.exited = true;
        children.delete(this);
        this.emit('exit', this.end ?? (code === HOST_EXIT_MEMORY ? 'memory' : 'crash'));
        resolve();
      };
      this.child.once('exit', ended);
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
    if (!this.exited) this.child.kill();
    await this.gone;
  }

  ref(): void {
    this.child.ref();
  }

  unref(): void {
    this.child.unref();
  }

  private send(message: ToHost): void {
    this.child.send(message);
  }
}

/** The host as a Node child process (fork): its own execPath (this Node) and no inherited flags (a profiler's, a
 *  test runner's), the stdio closed (what the worker's code prints is not for the log); 'advanced' serialization
 *  carries byte arrays as they are. */
export const forkHost: HostLauncher = (host, env) => new ForkedHost(fork(host, [], { execPath: process.execPath, execArgv: [], env, serialization: 'advanced', stdio: ['ignore', 'ignore', 'ignore', 'ipc'] }));

class ForkedHost extends EventEmitter implements HostProcess {
  constructor(private readonly child: ChildProcess) {
    super();
    child.on('message', (m) => this.emit('message', m));
    let told = false;
    const exit = (code: number | null) => {
      if (told) return;
      told = true;
      this.emit('exit', code);
    };
    child.once('exit', (code) => exit(code));
    // A closed channel is followed by the exit; a process that never started has none.
    child.on('error', () => {
      if (child.pid === undefined) exit(null);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  send(message: ToHost): void {
    if (this.child.connected) this.child.send(message, (err) => void err);
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  ref(): void {
    this.child.ref();
    (this.child.channel as { ref?: () => void } | null | undefined)?.ref?.();
  }

  unref(): void {
    this.child.unref();
    (this.child.channel as { unref?: () => void } | null | undefined)?.unref?.();
  }
}
