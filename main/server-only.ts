// `--server-only` inside Electron: the same server as the window uses, no window, stopped by SIGINT/SIGTERM.
// (Under plain Node the entry delegates to server/cli.ts instead; both print the same line.)
import { closeWithDeadline, onStopSignal, type SignalSource } from './lifecycle.js';

export const READY_PREFIX = 'Satchel is running at ';

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

/** Start, print the tokened URL once, and exit 0 after a clean close on the first stop signal. */
export async function runHeadless(deps: HeadlessDeps): Promise<HeadlessServer> {
  const server = await deps.start();
  // Handlers first: whoever reads the ready line may signal at once, and an unhandled SIGINT kills outright.
  onStopSignal(deps.signals, () => {
    void closeWithDeadline(() => server.close(), undefined, deps.onError).then((clean) => deps.exit(clean ? 0 : 1));
  });
  deps.print(READY_PREFIX + server.tokenUrl);
  return server;
}
