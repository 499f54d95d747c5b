// Runs an operator-configured speech command (argv array, never a shell) with a time limit and bounded
// output capture. The child gets its own process group so a wrapper script's children die with it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Stdout and stderr are each captured up to this many bytes; more means a runaway command. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;
/** Time between SIGTERM and SIGKILL when a command is stopped. */
export const KILL_GRACE_MS = 2000;
/** After SIGKILL, give up waiting for the exit event (a zombie must not hang the request). */
export const EXIT_WAIT_AFTER_KILL_MS = 1000;
/** Placeholder replaced in every argument by the input file's path. */
export const INPUT_PLACEHOLDER = '{input}';

export interface CommandResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunCommandOptions {
  /** Replaces every `{input}` inside each argument. */
  input?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  maxOutputBytes?: number;
  env?: NodeJS.ProcessEnv;
}

/** Base class of the failures below; the message names the program only (no arguments, no output). */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly stderr = '',
  ) {
    super(message);
    this.name = 'CommandError';
  }
}
export class CommandTimeoutError extends CommandError {
  override name = 'CommandTimeoutError';
}
export class CommandOutputLimitError extends CommandError {
  override name = 'CommandOutputLimitError';
}
export class CommandExitError extends CommandError {
  override name = 'CommandExitError';
  constructor(
    message: string,
    stderr: string,
    readonly exitCode: number | null,
    readonly exitSignal: NodeJS.Signals | null,
  ) {
    super(message, stderr);
  }
}

/** Substitute `{input}` in each argument (substring, so `--file={input}` works). */
export function substituteInput(argv: readonly string[], input: string | undefined): string[] {
  if (input === undefined) return [...argv];
  return argv.map((arg) => arg.split(INPUT_PLACEHOLDER).join(input));
}

function isExecutableFile(candidate: string): boolean {
  try {
    if (!fs.statSync(candidate).isFile()) return false;
    if (process.platform === 'win32') return true;
    fs.accessSync(candidate, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where `program` would be found by spawn: an explicit path must be an executable file; a bare name is
 * looked up on PATH. Only inspects the file system (the capability probe must not run anything).
 */
export function resolveExecutable(program: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!program) return undefined;
  const exts =
    process.platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter(Boolean)] : [''];
  if (program.includes('/') || (process.platform === 'win32' && program.includes('\\'))) {
    const full = path.resolve(program);
    return exts.map((ext) => full + ext).find(isExecutableFile);
  }
  const dirs = (env.PATH ?? env.Path ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = path.join(dir, program + ext);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * Run `argv` and collect its output. Resolves for any exit status (the caller decides what a non-zero
 * exit means); rejects with CommandTimeoutError, CommandOutputLimitError, the abort reason, or the spawn
 * error (ENOENT, EACCES).
 */
export function runCommand(argv: readonly string[], opts: RunCommandOptions): Promise<CommandResult> {
  const [program, ...args] = substituteInput(argv, opts.input);
  if (!program) return Promise.reject(new CommandError('Empty command'));
  const limit = opts.maxOutputBytes ?? MAX_OUTPUT_BYTES;
  const name = path.basename(program);
  if (opts.signal?.aborted) return Promise.reject(opts.signal.reason);

  return new Promise<CommandResult>((resolve, reject) => {
    const ownGroup = process.platform !== 'win32';
    const child = spawn(program, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: false,
      detached: ownGroup,
      windowsHide: true,
      env: opts.env ?? process.env,
    });
    const out = { stdout: [] as Buffer[], stderr: [] as Buffer[], stdoutBytes: 0, stderrBytes: 0 };
    let failure: Error | undefined;
    let settled = false;
    let exited = false;
    let killTimer: NodeJS.Timeout | undefined;
    let giveUpTimer: NodeJS.Timeout | undefined;

    const signalGroup = (sig: NodeJS.Signals): void => {
      try {
        if (ownGroup && child.pid !== undefined) process.kill(-child.pid, sig);
        else child.kill(sig);
      } catch {
        // Already gone: nothing left to stop.
      }
    };
    const finish = (err: Error | undefined, result?: CommandResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      clearTimeout(giveUpTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(result!);
    };
    const stop = (err: Error): void => {
      if (failure || settled) return;
      failure = err;
      signalGroup('SIGTERM');
      killTimer = setTimeout(() => {
        signalGroup('SIGKILL');
        giveUpTimer = setTimeout(() => finish(err), EXIT_WAIT_AFTER_KILL_MS);
      }, KILL_GRACE_MS);
      // The process may already have exited while a grandchild holds the pipes: settle now.
      if (exited) {
        signalGroup('SIGKILL');
        finish(err);
      }
    };
    const onAbort = (): void => stop(opts.signal!.reason instanceof Error ? opts.signal!.reason : new Error('Aborted'));
    const timeoutTimer = setTimeout(
      () => stop(new CommandTimeoutError(`${name} did not finish within ${opts.timeoutMs} ms`)),
      opts.timeoutMs,
    );
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    const capture = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      if (failure) return;
      const bytesKey = stream === 'stdout' ? 'stdoutBytes' : 'stderrBytes';
      out[bytesKey] += chunk.length;
      if (out[bytesKey] > limit) {
        stop(new CommandOutputLimitError(`${name} wrote more than ${limit} bytes to ${stream}`));
        return;
      }
      out[stream].push(chunk);
    };
    child.stdout.on('data', capture('stdout'));
    child.stderr.on('data', capture('stderr'));

    child.on('error', (err) => {
      // Spawn failure (ENOENT, EACCES): no process exists, so nothing to kill.
      finish(err);
    });
    child.on('exit', () => {
      exited = true;
      if (failure) {
        // Stopped on purpose; make sure no straggler in the group survives.
        signalGroup('SIGKILL');
        finish(failure);
      }
    });
    child.on('close', (exitCode, signal) => {
      if (failure) return finish(failure);
      finish(undefined, {
        exitCode,
        signal,
        stdout: Buffer.concat(out.stdout).toString('utf8'),
        stderr: Buffer.concat(out.stderr).toString('utf8'),
      });
    });
  });
}
