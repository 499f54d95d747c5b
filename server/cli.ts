// `npm run serve`, and `node dist/main/index.js --server-only` under plain Node: the headless server. The
// flags are parsed by the parser the desktop app's `--server-only` uses (settings/args.ts), and the server
// runs, prints its URL and stops exactly as there (headless.ts). Like the desktop window, it tries the port
// it last listened on first (remembered in its state folder), so a tab left open finds it again after a restart.
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AppOptions } from './app.js';
import { loadConfig, type CliFlags, type ServerConfig } from './core/config.js';
import { runHeadless } from './headless.js';
import type { RunningServer } from './index.js';
import { log, safeLogText } from './core/log.js';
import { exitWithParent, relaunchWithAllocator, wantsAllocatorRelaunch } from './process/allocator.js';
import { startOnRememberedPort } from './process/port-store.js';
import { StateFolderInUse, type StateLock } from './process/state-lock.js';
import { parseServerArgs, USAGE } from './settings/args.js';
import { isSettingSet } from './settings/table.js';

export { USAGE } from './settings/args.js';
export const EXIT_USAGE = 2;
export const EXIT_START_FAILED = 1;
/** Another Satchel owns the state folder (process/state-lock.ts): its own code, so a script can tell it apart. */
export const EXIT_ALREADY_RUNNING = 3;

/** What a start failure prints (one line) and the exit code: the refusal of a second server is its own sentence. */
export function startFailure(err: unknown): { line: string; code: number } {
  if (err instanceof StateFolderInUse) return { line: safeLogText(err.message), code: EXIT_ALREADY_RUNNING };
  return { line: `Satchel could not start: ${safeLogText((err as Error).message)}`, code: EXIT_START_FAILED };
}

/** True unless the user fixed a port (`--port` or SATCHEL_WEBUI_PORT, other than 0 = any): the same rule as
 * the desktop window's (main/gui-config.ts). */
export function remembersPort(config: ServerConfig, flags: CliFlags, env: NodeJS.ProcessEnv): boolean {
  const chosen = flags.port !== undefined || isSettingSet('port', env);
  return !chosen || config.port === 0;
}

/** Start on the remembered port when there is one and the user fixed none; any free port when it is taken.
 * `options` and `claimed`: the parts the caller swaps in, the state folder's lock when it took it first (index.ts startServer). */
export async function startHeadless(config: ServerConfig, remember: boolean, options: AppOptions = {}, claimed?: StateLock): Promise<RunningServer> {
  // Loaded here, not above: a command that only starts its server again with the allocator settings (main) stays
  // a bare Node, without the server's modules and their native bindings.
  const { startServer } = await import('./index.js');
  if (!remember) return startServer(config, options, claimed);
  return startOnRememberedPort(config.stateDir, (port) => startServer({ ...config, port }, options, claimed), {
    onFallback: (port, err) => log.info(`Port ${port} is unavailable (${(err as Error).message}); using another`),
    onSaveError: (err) => log.warn('Could not remember the port:', err),
  });
}

export async function runCli(argv: string[]): Promise<void> {
  let config: ServerConfig;
  let remember: boolean;
  try {
    const args = parseServerArgs(argv, 'reject');
    if (args.help) {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    config = loadConfig(process.env, args.flags);
    remember = remembersPort(config, args.flags, process.env);
  } catch (err) {
    process.stderr.write(`${safeLogText((err as Error).message)}\n${USAGE}\n`);
    process.exitCode = EXIT_USAGE;
    return;
  }
  await runHeadless({
    start: () => startHeadless(config, remember),
    print: (line) => process.stdout.write(`${line}\n`),
    signals: process,
    exit: (code) => process.exit(code),
    onError: (err) => log.error('Closing the server failed:', err),
  });
}

/** The command: run, and turn a start failure (port taken, state folder unwritable) into one line and exit 1, or
 * 3 when another Satchel runs on the state folder. `npm run serve` (scripts/serve.mjs, after its build check) runs
 * this file in a child with the allocator settings on glibc, and calls it in its own process elsewhere. */
export function main(argv: string[]): void {
  // On Linux the server runs in a child started with glibc's allocator settings (process/allocator.ts); this
  // process only waits for it, passing signals on. Where the child cannot start, the server runs here.
  if (wantsAllocatorRelaunch()) {
    relaunchWithAllocator(fileURLToPath(import.meta.url), argv, undefined, undefined, (err) => {
      log.warn('Could not restart with the allocator settings; running without them:', err);
      run(argv);
    });
    return;
  }
  run(argv);
}

function run(argv: string[]): void {
  exitWithParent();
  runCli(argv).catch((err) => {
    const { line, code } = startFailure(err);
    process.stderr.write(`${line}\n`);
    process.exit(code);
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
