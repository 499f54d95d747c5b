// The one command-line parser of both headless entry points: `npm run serve` (server/cli.ts) and the
// desktop app's `--server-only` (main/args.ts). The value flags are the settings table's `flag` column.
// Electron's argv also holds Chromium switches and the app path (and Playwright adds its own), so the
// Electron entry ignores what it does not know; the plain-Node entry refuses it, since there a stray word
// is the user's typo.
import type { CliFlags } from '../core/config.js';
import { FLAG_SETTING_NAMES, SETTINGS, type FlagSettingName } from './table.js';

export const SERVER_ONLY_FLAG = '--server-only';
export const HELP_FLAGS: readonly string[] = ['--help', '-h'];
const FLAG_TO_SETTING = new Map<string, FlagSettingName>(FLAG_SETTING_NAMES.map((name) => [SETTINGS[name].flag, name]));

/** `[--port N] [--host H] [--state-dir DIR]`, from the table. */
export const FLAGS_USAGE = FLAG_SETTING_NAMES.map((name) => `[${SETTINGS[name].flag} ${SETTINGS[name].flagArg}]`).join(' ');
export const USAGE = `Usage: satchel-serve ${FLAGS_USAGE}`;

export type UnknownArguments = 'reject' | 'ignore';

export interface ServerArgs {
  serverOnly: boolean;
  help: boolean;
  flags: CliFlags;
}

/**
 * `--server-only`, `--help`/`-h`, and each table flag as `--flag value` or `--flag=value`. Throws on a flag
 * without its value (starting on a default the user did not ask for would be a surprise) and, with
 * unknown = 'reject', on any other argument.
 */
export function parseServerArgs(argv: readonly string[], unknown: UnknownArguments): ServerArgs {
  const parsed: ServerArgs = { serverOnly: false, help: false, flags: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === SERVER_ONLY_FLAG) {
      parsed.serverOnly = true;
      continue;
    }
    if (HELP_FLAGS.includes(arg)) {
      parsed.help = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const setting = FLAG_TO_SETTING.get(name);
    if (setting === undefined) {
      if (unknown === 'reject') throw new Error(unknownArgument(arg, name));
      continue;
    }
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
    parsed.flags[setting] = value;
  }
  return parsed;
}

function unknownArgument(arg: string, name: string): string {
  if (!arg.startsWith('-') || arg === '-' || arg === '--') {
    return `Unexpected argument '${arg}'. This command does not take positional arguments`;
  }
  if (name === SERVER_ONLY_FLAG || HELP_FLAGS.includes(name)) return `Option '${name}' does not take an argument`;
  return `Unknown option '${name}'`;
}
