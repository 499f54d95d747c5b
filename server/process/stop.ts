// Stopping a running server: it gets a bounded time to finish (open event streams would otherwise hold the
// quit forever), and SIGINT/SIGTERM are turned into one orderly stop. Shared by the headless server (both
// entry points, headless.ts) and the desktop window (main/electron-main.ts, through main/lifecycle.ts).
import { SHUTDOWN_GRACE_MS } from '../http/timeouts.js';

/** What quitting waits beyond the server's own grace: time for the connections it then cuts to close. */
export const SERVER_CLOSE_MARGIN_MS = 2_000;
/** How long quitting waits for the server to close before giving up on it: longer than the server's grace for
 * in-flight uploads, so that grace is honoured, and derived from it so the two cannot drift apart. */
export const SERVER_CLOSE_TIMEOUT_MS = SHUTDOWN_GRACE_MS + SERVER_CLOSE_MARGIN_MS;
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** Resolves true when close() finished in time, false on timeout or failure (reported through onError). */
export async function closeWithDeadline(
  close: () => Promise<void>,
  timeoutMs = SERVER_CLOSE_TIMEOUT_MS,
  onError?: (err: unknown) => void,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref?.();
  });
  try {
    return await Promise.race([
      close().then(
        () => true,
        (err: unknown) => {
          onError?.(err);
          return false;
        },
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface SignalSource {
  on(signal: NodeJS.Signals, listener: () => void): unknown;
}

/**
 * Call `stop` once, on the first SIGINT or SIGTERM. The listeners stay: a second signal (`npm run serve` passes
 * its own SIGTERM on to the server after the terminal's, a process manager signals the whole group) would
 * otherwise meet Node's default and kill the process in the middle of its orderly close, which has its own
 * deadline. Repeats are ignored, and said nowhere.
 */
export function onStopSignal(source: SignalSource, stop: (signal: NodeJS.Signals) => void): void {
  let stopped = false;
  for (const signal of STOP_SIGNALS) {
    source.on(signal, () => {
      if (stopped) return;
      stopped = true;
      stop(signal);
    });
  }
}
