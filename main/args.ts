// Command-line handling shared by the Electron and plain-Node entries. Electron's argv also holds Chromium
// switches and the app path (and Playwright adds its own), so unknown arguments are ignored, not errors.
import type { CliFlags } from '../server/config.js';

export const SERVER_ONLY_FLAG = '--server-only';
const VALUE_FLAGS = { '--port': 'port', '--host': 'host', '--state-dir': 'stateDir' } as const;
type ValueFlag = keyof typeof VALUE_FLAGS;

export interface MainArgs {
  serverOnly: boolean;
  flags: CliFlags;
}

function isValueFlag(name: string): name is ValueFlag {
  return Object.hasOwn(VALUE_FLAGS, name);
}

/** Parse `--server-only`, `--port N`, `--host H`, `--state-dir D` (also `--flag=value`). Throws on a flag
 * without its value, since starting on a default the user did not ask for would be a surprise. */
export function parseMainArgs(argv: readonly string[]): MainArgs {
  const flags: CliFlags = {};
  let serverOnly = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === SERVER_ONLY_FLAG) {
      serverOnly = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (!isValueFlag(name)) continue;
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith('--')) {
        value = next;
        i++;
      }
    }
    if (value === undefined || value === '') throw new Error(`Missing value for ${name}`);
    flags[VALUE_FLAGS[name]] = value;
  }
  return { serverOnly, flags };
}

/** The arguments handed to runCli under plain Node: ours, minus the mode flag it does not know. */
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

export const NODE_USAGE =
  'The Satchel window needs Electron (npm start). Under plain Node run: node dist/main/index.js --server-only [--port N] [--host H] [--state-dir DIR]';
