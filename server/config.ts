// Server configuration: environment variables, overridden by command-line flags. Values that the
// specification says are "read on each request" (CSP extras, the extraction cap) are NOT captured here;
// their modules read process.env at the moment they are needed.
import os from 'node:os';
import path from 'node:path';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_MAX_UPLOAD_MB = 100;
export const APP_DIR_NAME = 'Satchel';

export interface ServerConfig {
  host: string;
  /** 0 = any free port. */
  port: number;
  stateDir: string;
  /** Fixed access token, or undefined for a random one per launch. */
  token?: string;
  maxUploadBytes: number;
  /** Trusted default workspace root (SATCHEL_WEBUI_DEFAULT_WORKSPACE), absolute, or undefined. */
  defaultWorkspace?: string;
  /** Directory holding the built web UI; undefined = the renderer next to the compiled server. */
  staticDir?: string;
  /** Load the on-device speech model at start (SATCHEL_STT_PRELOAD=0 turns it off) so the first dictation is fast. */
  preloadSpeech?: boolean;
  /** How long in-flight requests may run on after a shutdown request before their connections are cut. */
  shutdownGraceMs?: number;
  /** Deadline for a request head (slowloris guard); tests shorten it. */
  headersTimeoutMs?: number;
  /** Idle deadline for a JSON request body; tests shorten it. */
  bodyIdleTimeoutMs?: number;
}

/** The platform's per-user app-data folder, as Electron's app.getPath('userData') would give it. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), APP_DIR_NAME);
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', APP_DIR_NAME);
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), APP_DIR_NAME);
}

/** `~` and `~/x` expand to the user's home; anything else is returned unchanged. */
export function expandUser(p: string): string {
  if (p === '~') return os.homedir();
  if (p.startsWith('~/') || p.startsWith('~\\')) return path.join(os.homedir(), p.slice(2));
  return p;
}

function positiveNumber(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw.trim());
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

function port(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw.trim());
  return Number.isInteger(n) && n >= 0 && n <= 65535 ? n : undefined;
}

export interface CliFlags {
  host?: string;
  port?: string;
  stateDir?: string;
}

/** Build the configuration from the environment, then flags (flags win). Throws on an invalid flag. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, flags: CliFlags = {}): ServerConfig {
  const flagPort = flags.port === undefined ? undefined : port(flags.port);
  if (flags.port !== undefined && flagPort === undefined) throw new Error(`Invalid --port: ${flags.port}`);
  const stateDir = flags.stateDir || env.SATCHEL_WEBUI_STATE_DIR?.trim() || defaultStateDir(env);
  const maxUploadMb = positiveNumber(env.SATCHEL_WEBUI_MAX_UPLOAD_MB) ?? DEFAULT_MAX_UPLOAD_MB;
  const defaultWorkspace = env.SATCHEL_WEBUI_DEFAULT_WORKSPACE?.trim();
  return {
    host: flags.host || env.SATCHEL_WEBUI_HOST?.trim() || DEFAULT_HOST,
    port: flagPort ?? port(env.SATCHEL_WEBUI_PORT) ?? 0,
    stateDir: path.resolve(expandUser(stateDir)),
    token: env.SATCHEL_WEBUI_TOKEN?.trim() || undefined,
    maxUploadBytes: Math.floor(maxUploadMb * 1024 * 1024),
    defaultWorkspace: defaultWorkspace ? path.resolve(expandUser(defaultWorkspace)) : undefined,
    preloadSpeech: !['0', 'false', 'no', 'off'].includes((env.SATCHEL_STT_PRELOAD ?? '').trim().toLowerCase()),
  };
}
