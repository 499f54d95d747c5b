// The agent's settings (agent.md, "Configuration"): `<state>/agent.json`, which the UI writes through a route,
// under the environment's SATCHEL_AGENT_* rows of the settings table. Read at each turn, so a change in the
// UI takes effect on the next message. The key lives in a SecretStore (secret-store.ts): by default agent.json's
// `apiKey` field, in a file of mode 0600 (writeFileAtomic creates it so); the desktop app hands in its own. It
// never leaves this module except inside an AgentConfig (publicAgentSettings reports only whether there is one).
import fs from 'node:fs';
import path from 'node:path';
import { log } from '../core/log.js';
import { rememberSecret } from '../redact/index.js';
import { writeFileAtomic } from '../store/atomic.js';
import { DEFAULT_AGENT_CONTEXT_CHARS, DEFAULT_AGENT_TIMEOUT_MS, DEFAULT_AGENT_TURN_MAX_MS, readSetting, SETTINGS, type SettingName } from '../settings/table.js';
import type { Warn } from '../settings/parsers.js';
import type { AgentSettings } from '../core/wire.js';
import type { SecretStore } from './secret-store.js';
import type { AgentConfig, AgentKind } from './types.js';
import { agentUrl } from './upstream-errors.js';
import { AGENT_KINDS, BAD_AGENT_KIND, dialectOf, guessKind, isAgentKind } from './dialect/index.js';

export { guessKind, isAgentKind } from './dialect/index.js';

export const AGENT_SETTINGS_FILE = 'agent.json';
/** agent.json holds a handful of short strings: anything bigger is not ours. */
export const MAX_AGENT_SETTINGS_BYTES = 64 * 1024;

/** What agent.json holds (every field optional; the environment wins field by field). */
export interface StoredAgentSettings {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  kind?: AgentKind;
  timeoutMs?: number;
  contextChars?: number;
  /**
   * The address the stored key was saved with (agent.json only, never from the environment). The key is sent
   * to that address and no other; a file written before this field existed means its own baseUrl.
   */
  apiKeyBaseUrl?: string;
  /** Satchel's own in-turn tools offered (agent/tools/): absent means on; false when the person switched them off. */
  tools?: boolean;
  /**
   * The server at `baseUrl` refused a request with tools (Test, or a turn: agent/tools/refusal.ts): none are
   * offered until a Test finds it takes them, or the address changes.
   */
  toolsRefused?: boolean;
}

/** The tool fields as a stored file has them: booleans or nothing (neither is a setting of the environment). */
function toolFields(raw: Record<string, unknown>): Pick<StoredAgentSettings, 'tools' | 'toolsRefused'> {
  return {
    ...(typeof raw.tools === 'boolean' ? { tools: raw.tools } : {}),
    ...(raw.toolsRefused === true ? { toolsRefused: true } : {}),
  };
}

/** What the UI may see: everything but the key (GET and POST /api/agent/settings). */
export type PublicAgentSettings = AgentSettings;

const FILE_FIELDS: Record<Exclude<keyof StoredAgentSettings, 'apiKeyBaseUrl' | 'tools' | 'toolsRefused'>, SettingName> = {
  baseUrl: 'agentBaseUrl',
  apiKey: 'agentApiKey',
  model: 'agentModel',
  kind: 'agentKind',
  timeoutMs: 'agentTimeoutMs',
  contextChars: 'agentContextChars',
};

const warned = new Set<string>();
const warnOnce: Warn = (key, why) => {
  const line = `Agent setting ${key}: ${why}`;
  if (warned.has(line)) return;
  warned.add(line);
  log.warn(line);
};

function settingsFile(stateDir: string): string {
  return path.join(stateDir, AGENT_SETTINGS_FILE);
}

/** agent.json's fields, each checked by its row's parser; a missing, oversized or broken file is {}. */
export function readStoredAgentSettings(stateDir: string): StoredAgentSettings {
  const raw = readSmallJsonFile(settingsFile(stateDir), AGENT_SETTINGS_FILE, MAX_AGENT_SETTINGS_BYTES);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {};
  return parseStoredFields(raw as Record<string, unknown>, AGENT_SETTINGS_FILE);
}

/**
 * A small JSON file of the state folder, or undefined (missing, oversized, not a regular file, not JSON; each
 * but the first logged once under `label`, never with the file's text: it can hold a key).
 */
export function readSmallJsonFile(file: string, label: string, maxBytes: number): unknown {
  let text: string;
  let fd: number | undefined;
  try {
    // No symlink is followed, and the size is known before anything is read.
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > maxBytes) {
      warnOnce(label, `not a regular file under ${maxBytes} bytes; ignored`);
      return undefined;
    }
    text = fs.readFileSync(fd, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') warnOnce(label, 'unreadable; ignored');
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  try {
    return JSON.parse(text);
  } catch {
    // The parser's message can quote the file (the key): not logged.
    warnOnce(label, 'not valid JSON; ignored');
    return undefined;
  }
}

/** A stored agent's fields (agent.json's, or one saved connection's), each checked by its row's parser. */
export function parseStoredFields(raw: Record<string, unknown>, label: string): StoredAgentSettings {
  const out: Record<string, unknown> = {};
  for (const [field, name] of Object.entries(FILE_FIELDS)) {
    const value = raw[field];
    if (value === undefined || value === null) continue;
    // The table's parsers read strings (as the environment gives them); numbers are written as numbers.
    const parsed = SETTINGS[name].parse(typeof value === 'number' ? String(value) : value, {
      key: `${label}: ${field}`,
      source: 'file',
      warn: warnOnce,
    });
    if (parsed !== undefined) out[field] = parsed;
  }
  if (out.kind !== undefined && !isAgentKind(out.kind)) delete out.kind;
  // The key's address is read as a base URL is, but it is no setting: the environment never sets it.
  const keyAddress = raw.apiKeyBaseUrl;
  if (keyAddress !== undefined && keyAddress !== null) {
    const parsed = SETTINGS.agentBaseUrl.parse(keyAddress, { key: `${label}: apiKeyBaseUrl`, source: 'file', warn: warnOnce });
    if (typeof parsed === 'string') out.apiKeyBaseUrl = parsed;
  }
  return { ...(out as StoredAgentSettings), ...toolFields(raw) };
}

/**
 * Whether two base URLs are the same agent: what requests would be sent to (`/v1` or not, a trailing slash, a
 * query or fragment make no difference; scheme, host, port and path do). An unusable one equals only itself.
 */
export function sameAgentAddress(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  try {
    return agentUrl(a, '').href === agentUrl(b, '').href;
  } catch {
    return a.trim() === b.trim();
  }
}

/** The environment's fields (blank or unusable ones are absent): they overlay the default connection. */
export function envSettings(env: NodeJS.ProcessEnv): StoredAgentSettings {
  const out: Record<string, unknown> = {};
  for (const [field, name] of Object.entries(FILE_FIELDS)) {
    const value = readSetting(name, env, warnOnce);
    if (value !== undefined) out[field] = typeof value === 'string' && field === 'kind' ? value.trim() : value;
  }
  if (out.kind !== undefined && !isAgentKind(out.kind)) {
    warnOnce(SETTINGS.agentKind.env, `expected ${AGENT_KINDS.join(' or ')}; detected instead`);
    delete out.kind;
  }
  return out as StoredAgentSettings;
}

/**
 * The key as agent.json's `apiKey` field (server-only mode, and a desktop without a keyring). Setting it
 * rewrites the file with its other fields as they are; removing it from a file without one writes nothing.
 */
export function agentJsonKeyStore(stateDir: string): SecretStore {
  return {
    get: () => readStoredAgentSettings(stateDir).apiKey,
    async set(value) {
      const stored = readStoredAgentSettings(stateDir);
      if (value) stored.apiKey = value;
      else if (stored.apiKey === undefined) return;
      else {
        delete stored.apiKey;
        delete stored.apiKeyBaseUrl;
      }
      await writeStoredAgentSettings(stateDir, stored);
    },
  };
}

export async function writeStoredAgentSettings(stateDir: string, stored: StoredAgentSettings): Promise<void> {
  fs.mkdirSync(stateDir, { recursive: true });
  await writeFileAtomic(settingsFile(stateDir), JSON.stringify(stored, null, 2) + '\n');
}

/** The file's fields with the store's key, under the environment's (SATCHEL_AGENT_API_KEY wins, and is never stored). */
export function merged(stateDir: string, env: NodeJS.ProcessEnv, keys: SecretStore = agentJsonKeyStore(stateDir)): StoredAgentSettings {
  const { apiKey: _inFile, apiKeyBaseUrl, ...file } = readStoredAgentSettings(stateDir);
  const fromEnv = envSettings(env);
  // The stored key goes only to the address it was saved with: a base URL changed in the environment, or in
  // the file by hand, does not take it along (README, "the key is sent only to the address it was saved with").
  const baseUrl = fromEnv.baseUrl ?? file.baseUrl;
  const key = keys.get();
  // Known to the redactor even where it is not sent: an agent elsewhere may still echo what it saw before.
  rememberSecret(key);
  const stored = sameAgentAddress(baseUrl, apiKeyBaseUrl ?? file.baseUrl) ? key : undefined;
  const settings = { ...file, ...(stored ? { apiKey: stored } : {}), ...fromEnv };
  // Every read of the key makes it known to the redactor: whatever the agent echoes of it is masked.
  rememberSecret(settings.apiKey);
  return settings;
}

/** The agent to talk to this turn, or undefined when no base URL is configured anywhere. */
export function loadAgentConfig(stateDir: string, env: NodeJS.ProcessEnv = process.env, keys?: SecretStore): AgentConfig | undefined {
  return configFrom(merged(stateDir, env, keys), env);
}

/** A connection's settings (agent.json's, or a saved connection's: connections.ts) as the turn uses them. */
export function configFrom(s: StoredAgentSettings, env: NodeJS.ProcessEnv): AgentConfig | undefined {
  if (!s.baseUrl) return undefined;
  const kind = s.kind ?? guessKind(s.baseUrl);
  return {
    baseUrl: s.baseUrl,
    ...(s.apiKey ? { apiKey: s.apiKey } : {}),
    model: s.model ?? dialectOf(kind).defaultModel,
    kind,
    idleTimeoutMs: s.timeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS,
    // The environment only: a bound the person running Satchel sets, not a field of the settings dialog.
    turnMaxMs: readSetting('agentTurnMaxMs', env, warnOnce) ?? DEFAULT_AGENT_TURN_MAX_MS,
    contextChars: Math.floor(s.contextChars ?? DEFAULT_AGENT_CONTEXT_CHARS),
    satchelTools: s.tools !== false && s.toolsRefused !== true,
  };
}

export interface SaveAgentSettings {
  baseUrl: string;
  /**
   * Omitted: the stored key is kept while the address stays the same, and removed when it changes unless
   * `keepApiKey` says to send it to the new address. An empty string removes it.
   */
  apiKey?: string;
  /** With `apiKey` omitted and a new address: the person confirmed that the saved key goes there too. */
  keepApiKey?: boolean;
  model: string;
  kind?: AgentKind;
  timeoutMs?: number;
  contextChars?: number;
  /** Satchel's own tools on or off for this connection; omitted: kept as they are. */
  tools?: boolean;
}

/**
 * The tool fields a save keeps: the switch as sent (else as it was), and a remembered refusal only while the
 * address stays the same (another server may take tools).
 */
export function savedToolFields(next: Pick<SaveAgentSettings, 'tools'>, current: StoredAgentSettings | undefined, moved: boolean): Pick<StoredAgentSettings, 'tools' | 'toolsRefused'> {
  const tools = next.tools ?? current?.tools;
  return { ...(tools === false ? { tools } : {}), ...(current?.toolsRefused && !moved ? { toolsRefused: true } : {}) };
}

/** A field to be saved, read by its settings row's parser; throws a plain Error naming the field (never the value). */
export function checkAgentField(field: keyof typeof FILE_FIELDS, value: unknown): unknown {
  if (value === undefined) return undefined;
  let why: string | undefined;
  const parsed = SETTINGS[FILE_FIELDS[field]].parse(typeof value === 'number' ? String(value) : value, {
    key: field,
    source: 'file',
    warn: (_key: string, reason: string) => (why = reason),
  });
  if (parsed === undefined) throw new Error(`Invalid agent setting ${field}${why ? `: ${why}` : ''}`);
  return parsed;
}

/**
 * Writes agent.json (0600, atomically) and, when one is given, the key into the store. Throws a plain Error
 * naming the bad field (never a value) when invalid, before anything is written.
 */
export async function saveAgentSettings(
  stateDir: string,
  next: SaveAgentSettings,
  keys: SecretStore = agentJsonKeyStore(stateDir),
): Promise<void> {
  const check = checkAgentField;
  const current = readStoredAgentSettings(stateDir);
  const baseUrl = check('baseUrl', next.baseUrl) as string;
  const stored: StoredAgentSettings = { baseUrl, model: next.model.trim() };
  if (!stored.model) delete stored.model;
  if (next.kind !== undefined) {
    if (!isAgentKind(next.kind)) throw new Error(BAD_AGENT_KIND);
    stored.kind = next.kind;
  }
  const timeoutMs = check('timeoutMs', next.timeoutMs ?? current.timeoutMs);
  if (timeoutMs !== undefined) stored.timeoutMs = timeoutMs as number;
  const contextChars = check('contextChars', next.contextChars ?? current.contextChars);
  if (contextChars !== undefined) stored.contextChars = Math.floor(contextChars as number);
  // The key first: a store that fails leaves the old settings whole. The file keeps whatever key field it has
  // then (the default store's, or none once the desktop app has moved it out).
  const keyAddress = current.apiKeyBaseUrl ?? current.baseUrl;
  if (next.apiKey !== undefined) {
    rememberSecret(next.apiKey);
    await keys.set(next.apiKey.trim() || undefined);
  } else if (!sameAgentAddress(keyAddress, baseUrl) && !next.keepApiKey) {
    // A new address never receives the previous key unless the person said so.
    await keys.set(undefined);
  }
  const keyInFile = readStoredAgentSettings(stateDir).apiKey;
  const keyKept = keys.get() !== undefined;
  const tools = savedToolFields(next, current, !sameAgentAddress(current.baseUrl, baseUrl));
  await writeStoredAgentSettings(stateDir, { ...stored, ...tools, ...(keyInFile ? { apiKey: keyInFile } : {}), ...(keyKept ? { apiKeyBaseUrl: baseUrl } : {}) });
}

/** The settings as the UI shows them: never the key. */
export function publicAgentSettings(stateDir: string, env: NodeJS.ProcessEnv = process.env, keys?: SecretStore): PublicAgentSettings {
  return publicFrom(merged(stateDir, env, keys), env);
}

/** A connection's settings as the UI shows them (`fromEnv`: the environment overlays this one, the default). */
export function publicFrom(s: StoredAgentSettings, env: NodeJS.ProcessEnv | undefined): PublicAgentSettings {
  return {
    base_url: s.baseUrl ?? null,
    model: s.model ?? null,
    kind: s.kind ?? null,
    timeout_ms: s.timeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS,
    context_chars: Math.floor(s.contextChars ?? DEFAULT_AGENT_CONTEXT_CHARS),
    has_api_key: !!s.apiKey,
    tools: s.tools !== false,
    tools_refused: s.toolsRefused === true,
    from_env: env ? Object.keys(envSettings(env)) : [],
  };
}
