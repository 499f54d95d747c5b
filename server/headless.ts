// The headless server, as both entry points run it (`npm run serve` through cli.ts, the desktop app's
// `--server-only` through main/electron-main.ts): start, print the tokened URL once, and on the first
// SIGINT/SIGTERM close (in-flight uploads finish or are cleaned up, within a deadline) and exit.
import { log } from './core/log.js';
import { closeWithDeadline, onStopSignal, type SignalSource } from './process/stop.js';

export const READY_PREFIX = 'Satchel is running at ';
export const EXIT_OK = 0;
export const EXIT_UNCLEAN_CLOSE = 1;

export interface HeadlessServer {
  tokenUrl: string;
  close(): Promise<void>;
}

export interface HeadlessDeps {
  start: () => Promise<HeadlessServer>;
  print: (line: string) => void;
  signals: SignalSource;
  exit: (code: number) => void;
  onError?: (err: unknown) => void;
}

/** The one line that tells the operator (and scripts waiting for it) where the server is. */
export function readyLine(tokenUrl: string): string {
  return READY_PREFIX + tokenUrl;
}

/** Start, print the ready line once, and exit 0 after a clean close on the first stop signal (1 when the
 * close fails or overruns its deadline). Rejects, printing nothing, when the server does not start. */
export async function runHeadless(deps: HeadlessDeps): Promise<HeadlessServer> {
  const started = deps.start();
  // Handlers before the ready line, even before the server is up: whoever reads the line may signal at once,
  // and an unhandled SIGINT would kill the process without closing anything.
  onStopSignal(deps.signals, (signal) => {
    log.info(`${signal} received, shutting down`);
    void started
      .then(
        (server) => closeWithDeadline(() => server.close(), undefined, deps.onError),
        () => false, // the start failure is reported by whoever awaited runHeadless
      )
      .then((clean) => deps.exit(clean ? EXIT_OK : EXIT_UNCLEAN_CLOSE));
  });
  const server = await started;
  deps.print(readyLine(server.tokenUrl));
  return server;
}
