// Several saved agent connections, one of them the default (issue 24, "Per conversation"). The first connection
// is the one agent.json has always held (id `main`, its key in the SecretStore the app hands in: config.ts), so a
// state folder from before is read as it is, nothing moved and nothing rewritten: its agent is the default
// connection. The others live in <state>/agent-connections.json (mode 0600, written atomically), each with its
// own key in that file, sent only to the address it was saved with (the rule agent.json's key follows). The
// same file names the default and agent.json's connection's name. The desktop app seals those keys with the
// system's secure storage (SecretStore.seal: `apiKeySealed`), as it keeps agent.json's in agent-key.bin. The environment's SATCHEL_AGENT_* settings
// overlay the default connection, field by field, as they overlay agent.json today. No key leaves this module
// except inside an AgentConfig; the UI sees `has_api_key`.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { log } from '../core/log.js';
import { rememberSecret } from '../redact/index.js';
import { writeFileAtomic } from '../store/atomic.js';
import {
  checkAgentField,
  configFrom,
  envSettings,
  isAgentKind,
  merged,
  parseStoredFields,
  publicFrom,
  readSmallJsonFile,
  readStoredAgentSettings,
  sameAgentAddress,
  savedToolFields,
  saveAgentSettings,
  writeStoredAgentSettings,
  agentJsonKeyStore,
  type SaveAgentSettings,
  type StoredAgentSettings,
} from './config.js';
import type { SecretStore } from './secret-store.js';
import { BAD_AGENT_KIND } from './dialect/index.js';
import type { AgentConfig } from './types.js';
import type * as wire from '../core/wire.js';

export const CONNECTIONS_FILE = 'agent-connections.json';
/** agent.json's connection: the one every state folder from before has. */
export const MAIN_CONNECTION_ID = 'main';
/** A settings drawer lists them all at once, and a person switches between a handful: 16 is plenty. */
export const MAX_AGENT_CONNECTIONS = 16;
/** A name is a label in a picker: 80 characters fit a header's menu. */
export const MAX_CONNECTION_NAME_CHARS = 80;
/** 8 random bytes = 16 hex characters: unguessable enough for an id that is no secret, short in a URL. */
export const CONNECTION_ID_BYTES = 8;
const CONNECTION_ID = /^[0-9a-f]{16}$/;
/**
 * 16 connections of a few short strings each and a key: a key of even 8 KiB fits. A save that would pass this is
 * refused (ConnectionError), never written: an oversized file would be ignored on reading, all of it lost.
 */
export const MAX_CONNECTIONS_FILE_BYTES = 256 * 1024;

/** A client's mistake about connections: the route answers it with `status` and this message. */
export class ConnectionError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

interface StoredConnection extends StoredAgentSettings {
  id: string;
  name: string;
  /** A sealed key this process cannot open (another machine's, or the desktop's read by the server alone): kept as it is. */
  unopened?: string;
}

interface ConnectionsFile {
  /** The default connection's id; absent or unknown: agent.json's. */
  default?: string;
  /** agent.json's connection's name (agent.json itself keeps its old fields only, for older versions). */
  mainName?: string;
  connections: StoredConnection[];
}

/** One connection as this module sees it: its settings with the key it may send, and whether it is the default. */
export interface Connection {
  id: string;
  name: string;
  settings: StoredAgentSettings;
  isDefault: boolean;
}

/** Whether `id` has the shape of a connection id (a client's string is checked before anything is looked up). */
export function isConnectionId(id: unknown): id is string {
  return typeof id === 'string' && (id === MAIN_CONNECTION_ID || CONNECTION_ID.test(id));
}

function connectionsFile(stateDir: string): string {
  return path.join(stateDir, CONNECTIONS_FILE);
}

function readFile(stateDir: string, keys?: SecretStore): ConnectionsFile {
  const raw = readSmallJsonFile(connectionsFile(stateDir), CONNECTIONS_FILE, MAX_CONNECTIONS_FILE_BYTES) as Record<string, unknown> | undefined;
  const out: ConnectionsFile = { connections: [] };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return out;
  if (typeof raw.default === 'string' && isConnectionId(raw.default)) out.default = raw.default;
  if (typeof raw.mainName === 'string') out.mainName = cleanName(raw.mainName);
  const list = Array.isArray(raw.connections) ? raw.connections : [];
  const seen = new Set<string>();
  for (const item of list.slice(0, MAX_AGENT_CONNECTIONS)) {
    if (typeof item !== 'object' || item === null) continue;
    const c = item as Record<string, unknown>;
    if (typeof c.id !== 'string' || !CONNECTION_ID.test(c.id) || seen.has(c.id)) continue;
    const fields = parseStoredFields(c, `${CONNECTIONS_FILE}: ${c.id}`);
    if (!fields.baseUrl) continue;
    const sealed = typeof c.apiKeySealed === 'string' ? openKey(c.apiKeySealed, keys, c.id) : undefined;
    if (sealed) fields.apiKey = sealed;
    const unopened = typeof c.apiKeySealed === 'string' && !sealed ? { unopened: c.apiKeySealed } : {};
    seen.add(c.id);
    out.connections.push({ ...fields, ...unopened, id: c.id, name: typeof c.name === 'string' ? cleanName(c.name) : '' });
  }
  return out;
}

/** A sealed key (the desktop app's secure storage), or undefined when it cannot be opened here (said once, never the key). */
function openKey(sealed: string, keys: SecretStore | undefined, id: string): string | undefined {
  const line = `Agent connection ${id}: its saved key cannot be read here (saved by another user or machine?); no key is sent`;
  try {
    if (keys?.seal) return keys.seal.open(sealed);
  } catch {
    // said below
  }
  if (!unreadable.has(line)) {
    unreadable.add(line);
    log.warn(line);
  }
  return undefined;
}
const unreadable = new Set<string>();

async function writeFile(stateDir: string, file: ConnectionsFile, keys?: SecretStore): Promise<void> {
  // Keys sealed where the app can (the desktop's secure storage); a plain key left from before is sealed now.
  const seal = keys?.seal;
  const connections = file.connections.map(({ apiKey, unopened, ...c }) => {
    if (!apiKey) return unopened ? { ...c, apiKeySealed: unopened } : c;
    return seal ? { ...c, apiKeySealed: seal.seal(apiKey) } : { ...c, apiKey };
  });
  const text = JSON.stringify({ ...file, connections }, null, 2) + '\n';
  if (Buffer.byteLength(text) > MAX_CONNECTIONS_FILE_BYTES) throw new ConnectionError(400, 'The agent connections would not fit their file: use shorter keys');
  fs.mkdirSync(stateDir, { recursive: true });
  await writeFileAtomic(connectionsFile(stateDir), text);
}

/** Control characters out, spaces trimmed; the length is checked where a client's name is taken (saveConnection). */
function cleanName(name: string): string {
  return name.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, MAX_CONNECTION_NAME_CHARS);
}

/** A connection without a name is called by its host: what a person typed, and what tells two apart. */
function nameOf(name: string | undefined, baseUrl: string | undefined): string {
  if (name) return name;
  try {
    return new URL(baseUrl ?? '').host;
  } catch {
    return 'Agent';
  }
}

/** A saved connection's settings with its key only where it goes, the environment over them when it is the default. */
function settingsOf(c: StoredConnection, env: NodeJS.ProcessEnv | undefined): StoredAgentSettings {
  const { id: _id, name: _name, unopened: _unopened, apiKey, apiKeyBaseUrl, ...fields } = c;
  rememberSecret(apiKey);
  const fromEnv = env ? envSettings(env) : {};
  const baseUrl = fromEnv.baseUrl ?? fields.baseUrl;
  const key = apiKey && sameAgentAddress(baseUrl, apiKeyBaseUrl ?? fields.baseUrl) ? apiKey : undefined;
  const settings = { ...fields, ...(key ? { apiKey: key } : {}), ...fromEnv };
  rememberSecret(settings.apiKey);
  return settings;
}

/** Every connection, agent.json's first (when it names an agent), and which one is the default. */
export function listConnections(stateDir: string, env: NodeJS.ProcessEnv, keys?: SecretStore): { connections: Connection[]; defaultId: string } {
  const file = readFile(stateDir, keys);
  const defaultId = file.default && (file.default === MAIN_CONNECTION_ID || file.connections.some((c) => c.id === file.default)) ? file.default : MAIN_CONNECTION_ID;
  const out: Connection[] = [];
  const main = merged(stateDir, defaultId === MAIN_CONNECTION_ID ? env : {}, keys);
  if (main.baseUrl) out.push({ id: MAIN_CONNECTION_ID, name: nameOf(file.mainName, main.baseUrl), settings: main, isDefault: defaultId === MAIN_CONNECTION_ID });
  for (const c of file.connections) {
    const isDefault = c.id === defaultId;
    const settings = settingsOf(c, isDefault ? env : undefined);
    out.push({ id: c.id, name: nameOf(c.name, settings.baseUrl), settings, isDefault });
  }
  return { connections: out, defaultId };
}

/**
 * The connection a conversation's turn uses: `id`'s, or the default's when `id` is absent or names a connection
 * since deleted (the header says so: it finds no such connection in the list). Undefined: no agent at all.
 */
export function loadConnectionConfig(stateDir: string, env: NodeJS.ProcessEnv, keys: SecretStore | undefined, id?: string): AgentConfig | undefined {
  const { connections, defaultId } = listConnections(stateDir, env, keys);
  const chosen = connections.find((c) => c.id === id) ?? connections.find((c) => c.id === defaultId);
  const config = chosen ? configFrom(chosen.settings, env) : undefined;
  return config && chosen ? { ...config, connection: { id: chosen.id, name: chosen.name } } : config;
}

/** The wire's view of every connection (GET /api/agent/connections): never a key. */
export function publicConnections(stateDir: string, env: NodeJS.ProcessEnv, keys?: SecretStore): wire.AgentConnectionsResponse {
  const { connections, defaultId } = listConnections(stateDir, env, keys);
  return {
    connections: connections.map((c) => ({ id: c.id, name: c.name, is_default: c.isDefault, ...publicFrom(c.settings, c.isDefault ? env : undefined) })),
    default_id: defaultId,
    max_connections: MAX_AGENT_CONNECTIONS,
    max_name_chars: MAX_CONNECTION_NAME_CHARS,
  };
}

/** What a save names: the agent settings' fields and the connection's name; no id: a new connection. */
export interface SaveConnection extends SaveAgentSettings {
  id?: string;
  name?: string;
}

// Saves read the file, change it and write it back across awaits: one at a time per state folder.
const queues = new Map<string, Promise<unknown>>();
function serialized<T>(stateDir: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(stateDir) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.catch(() => {});
  queues.set(stateDir, settled);
  void settled.then(() => {
    if (queues.get(stateDir) === settled) queues.delete(stateDir);
  });
  return next;
}

/** A name as a client sent it: at most MAX_CONNECTION_NAME_CHARS once cleaned, else a 400. */
function checkedName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (name.length > MAX_CONNECTION_NAME_CHARS * 4) throw new ConnectionError(400, `Connection name too long (max ${MAX_CONNECTION_NAME_CHARS} characters)`);
  const cleaned = name.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  if (cleaned.length > MAX_CONNECTION_NAME_CHARS) throw new ConnectionError(400, `Connection name too long (max ${MAX_CONNECTION_NAME_CHARS} characters)`);
  return cleaned;
}

/**
 * Adds a connection (no id) or changes one; returns its id. agent.json's connection is saved as POST
 * /api/agent/settings saves it. A saved connection's key follows the same rule: omitted, kept at the same
 * address and dropped at a new one unless `keepApiKey`; '' removes it. Throws ConnectionError for a client's
 * mistake, or config.ts's "Invalid agent setting …" Error naming the field.
 */
export function saveConnection(stateDir: string, next: SaveConnection, keys: SecretStore = agentJsonKeyStore(stateDir)): Promise<string> {
  const name = checkedName(next.name);
  return serialized(stateDir, async () => {
    const file = readFile(stateDir, keys);
    if (next.id === MAIN_CONNECTION_ID) {
      await saveAgentSettings(stateDir, next, keys);
      if (name !== undefined) await writeFile(stateDir, { ...file, mainName: name }, keys);
      return MAIN_CONNECTION_ID;
    }
    const index = next.id === undefined ? -1 : file.connections.findIndex((c) => c.id === next.id);
    if (next.id !== undefined && index < 0) throw new ConnectionError(404, 'Agent connection not found');
    const current = index >= 0 ? file.connections[index]! : undefined;
    if (!current && countConnections(stateDir, file, keys) >= MAX_AGENT_CONNECTIONS) {
      throw new ConnectionError(400, `At most ${MAX_AGENT_CONNECTIONS} agent connections can be saved`);
    }
    const baseUrl = checkAgentField('baseUrl', next.baseUrl) as string;
    const stored: StoredConnection = { id: current?.id ?? randomBytes(CONNECTION_ID_BYTES).toString('hex'), name: name ?? current?.name ?? '', baseUrl };
    const model = next.model.replace(/[\u0000-\u001f\u007f]/g, '').trim();
    if (model) stored.model = checkAgentField('model', model) as string;
    if (next.kind !== undefined) {
      if (!isAgentKind(next.kind)) throw new Error(BAD_AGENT_KIND);
      stored.kind = next.kind;
    }
    const timeoutMs = checkAgentField('timeoutMs', next.timeoutMs ?? current?.timeoutMs);
    if (timeoutMs !== undefined) stored.timeoutMs = timeoutMs as number;
    const contextChars = checkAgentField('contextChars', next.contextChars ?? current?.contextChars);
    if (contextChars !== undefined) stored.contextChars = Math.floor(contextChars as number);
    Object.assign(stored, savedToolFields(next, current, !sameAgentAddress(current?.baseUrl, baseUrl)));
    let key: string | undefined;
    if (next.apiKey !== undefined) key = next.apiKey.trim() || undefined;
    else if (current?.apiKey && (sameAgentAddress(current.apiKeyBaseUrl ?? current.baseUrl, baseUrl) || next.keepApiKey)) key = current.apiKey;
    rememberSecret(key);
    if (key) Object.assign(stored, { apiKey: key, apiKeyBaseUrl: baseUrl });
    const connections = [...file.connections];
    if (index >= 0) connections[index] = stored;
    else connections.push(stored);
    // The first agent of a state folder without one is the default: a turn has something to talk to.
    const defaultHasAgent = listConnections(stateDir, {}, keys).connections.some((c) => c.isDefault) || !!envSettings(process.env).baseUrl;
    const made: ConnectionsFile = { ...file, connections, ...(!current && !defaultHasAgent ? { default: stored.id } : {}) };
    await writeFile(stateDir, made, keys);
    return stored.id;
  });
}

function countConnections(stateDir: string, file: ConnectionsFile, keys: SecretStore | undefined): number {
  return file.connections.length + (merged(stateDir, {}, keys).baseUrl ? 1 : 0);
}

/** Removes a connection (not the default: another is made the default first). agent.json's loses its address and key. */
export function deleteConnection(stateDir: string, id: string, env: NodeJS.ProcessEnv, keys: SecretStore = agentJsonKeyStore(stateDir)): Promise<void> {
  return serialized(stateDir, async () => {
    const { connections, defaultId } = listConnections(stateDir, env, keys);
    if (!connections.some((c) => c.id === id)) throw new ConnectionError(404, 'Agent connection not found');
    if (id === defaultId) throw new ConnectionError(409, 'This is the default connection: make another one the default before deleting it');
    const file = readFile(stateDir, keys);
    if (id === MAIN_CONNECTION_ID) {
      await keys.set(undefined);
      await writeStoredAgentSettings(stateDir, {});
      const { mainName: _gone, ...rest } = file;
      await writeFile(stateDir, rest, keys);
      return;
    }
    await writeFile(stateDir, { ...file, connections: file.connections.filter((c) => c.id !== id) }, keys);
  });
}

/** Makes `id` the default connection: the one GET/POST /api/agent/settings and conversations without one use. */
export function setDefaultConnection(stateDir: string, id: string, env: NodeJS.ProcessEnv, keys?: SecretStore): Promise<void> {
  return serialized(stateDir, async () => {
    if (!listConnections(stateDir, env, keys).connections.some((c) => c.id === id)) throw new ConnectionError(404, 'Agent connection not found');
    await writeFile(stateDir, { ...readFile(stateDir, keys), default: id }, keys);
  });
}

/** The default connection's id and stored settings (POST /api/agent/settings acts on it). */
export function defaultConnection(stateDir: string, env: NodeJS.ProcessEnv, keys?: SecretStore): Connection | undefined {
  const { connections } = listConnections(stateDir, env, keys);
  return connections.find((c) => c.isDefault);
}

/** A saved connection's stored fields, without the environment (what a save compares a new address with). */
export function storedConnection(stateDir: string, id: string, keys?: SecretStore): StoredAgentSettings | undefined {
  return listConnections(stateDir, {}, keys).connections.find((c) => c.id === id)?.settings;
}

/**
 * Remembers whether the server at connection `id` (undefined: the default) takes Satchel's tools: `refused` after
 * a Test or a turn it refused them in, cleared after a Test it took them in. Nothing is written when nothing
 * changes; an id since deleted means the default, as it does for the turn that used it (loadConnectionConfig).
 */
export function rememberToolsRefused(stateDir: string, id: string | undefined, refused: boolean, env: NodeJS.ProcessEnv, keys: SecretStore = agentJsonKeyStore(stateDir)): Promise<void> {
  return serialized(stateDir, async () => {
    const { connections, defaultId } = listConnections(stateDir, env, keys);
    const target = connections.find((c) => c.id === id) ?? connections.find((c) => c.id === defaultId);
    if (!target || (target.settings.toolsRefused === true) === refused) return;
    const mark = <T extends { toolsRefused?: boolean }>(fields: T): T => {
      const { toolsRefused: _was, ...rest } = fields;
      return (refused ? { ...rest, toolsRefused: true } : rest) as T;
    };
    if (target.id === MAIN_CONNECTION_ID) {
      await writeStoredAgentSettings(stateDir, mark(readStoredAgentSettings(stateDir)));
      return;
    }
    const file = readFile(stateDir, keys);
    await writeFile(stateDir, { ...file, connections: file.connections.map((c) => (c.id === target.id ? mark(c) : c)) }, keys);
  });
}
