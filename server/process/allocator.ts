// glibc's allocator settings for the server's own process (issue 37, finding 8). They are read by the C library
// once, before any JavaScript runs, from GLIBC_TUNABLES: Node 20 has neither process.execve nor mallopt, so a
// process can only have them if whoever starts it puts them in its environment. The headless command (cli.ts) does
// that by starting itself once more with them and waiting for that child: the waiting parent holds ~7 MiB of its
// own (a bare Node: its shared code pages are the child's too), against the ~40 MiB of thread arenas the settings
// keep from building up in the server over a day (docs/benchmarks.md, finding 8).
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** Large buffers mapped and unmapped on their own (no dynamic threshold that creeps up to 32 MiB and leaves freed
 *  upload and image buffers inside the heap), freed memory handed back past 128 KiB, and two arenas instead of one
 *  per thread that ever allocated (libuv's pool, libvips', SQLite's). Ignored by other C libraries. */
export const GLIBC_ALLOCATOR_TUNABLES = 'glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072:glibc.malloc.arena_max=2';

/** Signals a terminal, a process manager or a script sends the command: passed on to the server, which stops on
 *  the first and ignores repeats (process/stop.ts), so the terminal's Ctrl+C reaching both is harmless. */
export const RELAYED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** `env` with the allocator settings on Linux unless the person set GLIBC_TUNABLES themselves (an empty value
 *  included: that is how to turn them off). */
export function allocatorEnv(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): NodeJS.ProcessEnv {
  return { ...env, ...(platform === 'linux' && env.GLIBC_TUNABLES === undefined ? { GLIBC_TUNABLES: GLIBC_ALLOCATOR_TUNABLES } : {}) };
}

/** Whether this C library is glibc (musl and others ignore the settings: no second process for nothing). */
export function runsOnGlibc(): boolean {
  const report = process.report as { excludeNetwork?: boolean; getReport(): object } | undefined;
  if (!report) return false;
  report.excludeNetwork = true;
  const header = (report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
  return typeof header?.glibcVersionRuntime === 'string';
}

/** True when this process lacks the settings and would get them by starting again: Linux with glibc, and no
 *  GLIBC_TUNABLES of the person's (the restarted process has ours, so it never starts a third). */
export function wantsAllocatorRelaunch(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, glibc: () => boolean = runsOnGlibc): boolean {
  return platform === 'linux' && env.GLIBC_TUNABLES === undefined && glibc();
}

export interface RelaunchHost {
  execPath: string;
  execArgv: string[];
  env: NodeJS.ProcessEnv;
  on(signal: NodeJS.Signals, listener: () => void): unknown;
  removeAllListeners(signal: NodeJS.Signals): unknown;
  kill(pid: number, signal: NodeJS.Signals): unknown;
  readonly pid: number;
  exit(code: number): never | void;
}

/** Exit code when the restarted server could not be started at all (its Node missing): the command's start failure. */
export const EXIT_RELAUNCH_FAILED = 1;

/**
 * Runs `script` with `args` again in a Node child with the allocator settings (and this process's Node flags), its
 * terminal the same (stdio inherited), and this process's stop signals passed on; this process then ends as the
 * child ended: its exit code, or the same signal. `onFailure` runs when the child could not be started, so the
 * caller can run in this process instead.
 */
export function relaunchWithAllocator(
  script: string,
  args: string[],
  host: RelaunchHost = process as unknown as RelaunchHost,
  start: (cmd: string, argv: string[], options: SpawnOptions) => ChildProcess = spawn,
  onFailure?: (err: Error) => void,
): ChildProcess {
  // The channel is only there to close: when this process dies, even by SIGKILL, the child sees it (exitWithParent).
  const child = start(host.execPath, [...host.execArgv, script, ...args], { stdio: ['inherit', 'inherit', 'inherit', 'ipc'], env: allocatorEnv(host.env, 'linux') });
  for (const signal of RELAYED_SIGNALS) {
    host.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  child.once('error', (err) => {
    if (child.pid !== undefined) return;
    for (const signal of RELAYED_SIGNALS) host.removeAllListeners(signal);
    if (onFailure) onFailure(err);
    else host.exit(EXIT_RELAUNCH_FAILED);
  });
  child.once('exit', (code, signal) => {
    if (signal) {
      // Die of the same signal, so whoever started the command sees what happened to the server.
      for (const s of RELAYED_SIGNALS) host.removeAllListeners(s);
      host.kill(host.pid, signal);
      return;
    }
    host.exit(code ?? EXIT_RELAUNCH_FAILED);
  });
  return child;
}

/** Exit code of a restarted server whose waiting parent died without passing a signal on (a kill -9 of it). */
export const EXIT_PARENT_GONE = 129;

/**
 * In a server started by relaunchWithAllocator: end at once when the waiting parent is gone (its end of the IPC
 * channel closed), so a kill -9 of the command a person or a script started ends the server as it did before the
 * restart existed, and the state folder's lock is free for the next start. The channel does not keep the process
 * alive. Does nothing in a process without a channel.
 */
export function exitWithParent(proc: NodeJS.Process = process): void {
  const channel = proc.channel as { unref?: () => void } | undefined;
  if (!channel) return;
  channel.unref?.();
  proc.once('disconnect', () => proc.exit(EXIT_PARENT_GONE));
}
