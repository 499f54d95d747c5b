// Command-line handling of the desktop entry. The parsing is server/settings/args.ts, shared with
// `npm run serve`; here Electron's argv (Chromium switches, the app path, Playwright's additions) makes
// unknown arguments something to ignore, not an error.
import type { CliFlags } from '../server/core/config.js';
import { FLAGS_USAGE, parseServerArgs, SERVER_ONLY_FLAG } from '../server/settings/args.js';

export interface MainArgs {
  serverOnly: boolean;
  flags: CliFlags;
}

/** Parse `--server-only`, `--port N`, `--host H`, `--state-dir D` (also `--flag=value`). Throws on a flag
 * without its value, since starting on a default the user did not ask for would be a surprise. */
export function parseMainArgs(argv: readonly string[]): MainArgs {
  const { serverOnly, flags } = parseServerArgs(argv, 'ignore');
  return { serverOnly, flags };
}

/** The arguments handed to runCli under plain Node: ours, minus the mode flag it does not need. */
export function cliArgv(argv: readonly string[]): string[] {
  return argv.filter((arg) => arg !== SERVER_ONLY_FLAG);
}

export type Runtime = 'electron' | 'node-server' | 'node-usage';

/** Which entry to run: Electron's, plain Node's headless server, or (plain Node without the flag) a usage
 * error, since a window cannot exist without Electron. */
export function chooseRuntime(versions: NodeJS.ProcessVersions, argv: readonly string[]): Runtime {
  if (typeof versions.electron === 'string' && versions.electron !== '') return 'electron';
  return argv.includes(SERVER_ONLY_FLAG) ? 'node-server' : 'node-usage';
}

export const NODE_USAGE = `The Satchel window needs Electron (npm start). Under plain Node run: node dist/main/index.js ${SERVER_ONLY_FLAG} ${FLAGS_USAGE}`;
