// Server configuration read once at start: the settings table's start-time rows (settings/table.ts), the
// environment overridden by command-line flags. Values the specification says are "read on each request"
// (CSP extras, the extraction cap, the attachment folder) are NOT captured here; their readers ask the table
// at the moment they need them. Plain values only: the parts a caller swaps in (key stores, a scripted agent, the
// Inbox's and the database care's timings) are the composition root's options (app.ts AppOptions), so this core
// module names nothing of the layers above it.
import os from 'node:os';
import path from 'node:path';
import { expandUser } from '../settings/parsers.js';
import { DEFAULT_HOST, DEFAULT_MAX_UPLOAD_MB, readSetting, SETTINGS, type FlagSettingName } from '../settings/table.js';

export { expandUser } from '../settings/parsers.js';
export { DEFAULT_HOST, DEFAULT_MAX_UPLOAD_MB } from '../settings/table.js';
export const APP_DIR_NAME = 'Satchel';
const BYTES_PER_MIB = 1024 * 1024;

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
  /** Folders watched into the Inbox conversation (SATCHEL_INBOX_FOLDERS), absolute; settings may add more. */
  inboxFolders?: string[];
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
  /** Total deadline for a JSON request body (http/lifecycle.ts JSON_BODY_DEADLINE_MS); tests shorten it. */
  bodyDeadlineMs?: number;
  /** Idle deadline for an upload's body; tests shorten it. */
  uploadStallTimeoutMs?: number;
  /** An upload's pace (http/multipart.ts UPLOAD_GRACE_MS, UPLOAD_MIN_BYTES_PER_SECOND); tests change it. */
  uploadGraceMs?: number;
  uploadMinBytesPerSecond?: number;
  /** Silence on a chat stream before a `: heartbeat` comment; tests shorten it. */
  chatHeartbeatMs?: number;
  /** How long a deleted session can be restored before it is purged (sessions/deletion.ts SESSION_DELETE_GRACE_MS); tests shorten it. */
  sessionDeleteGraceMs?: number;
}

/** The platform's per-user app-data folder, as Electron's app.getPath('userData') would give it. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), APP_DIR_NAME);
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', APP_DIR_NAME);
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), APP_DIR_NAME);
}

/** The settings a command-line flag can set (rows of the table with a `flag`), as typed. */
export type CliFlags = { [N in FlagSettingName]?: string };

/** Build the configuration from the environment, then flags (flags win). Throws on an invalid flag. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, flags: CliFlags = {}): ServerConfig {
  const portFlag = SETTINGS.port.flag;
  const flagPort = flags.port === undefined ? undefined : SETTINGS.port.parse(flags.port, flagContext(portFlag));
  if (flags.port !== undefined && flagPort === undefined) throw new Error(`Invalid ${portFlag}: ${flags.port}`);
  // A flag's value is taken as typed (not trimmed): the shell already split the words.
  const stateDir = flags.stateDir
    ? path.resolve(expandUser(flags.stateDir))
    : (readSetting('stateDir', env) ?? path.resolve(expandUser(defaultStateDir(env))));
  return {
    host: flags.host || readSetting('host', env) || DEFAULT_HOST,
    port: flagPort ?? readSetting('port', env) ?? 0,
    stateDir,
    token: readSetting('token', env),
    maxUploadBytes: Math.floor((readSetting('maxUploadMb', env) ?? DEFAULT_MAX_UPLOAD_MB) * BYTES_PER_MIB),
    defaultWorkspace: readSetting('defaultWorkspace', env),
    preloadSpeech: readSetting('sttPreload', env) ?? true,
    inboxFolders: readSetting('inboxFolders', env),
  };
}

function flagContext(key: string) {
  return { key, source: 'flag' as const, warn: () => {} };
}
