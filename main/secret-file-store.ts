// The desktop app's secrets (docs/spec-notes.md, "Chat: configuration"; docs/mcp.md, "Access"): the agent's API
// key in <state>/agent-key.bin and the MCP token in <state>/mcp-token.bin, each encrypted with Electron's
// safeStorage (0600, written atomically, no symlink followed). safeStorage is handed in, so this module is
// tested with a fake and the server never sees Electron. Where the system cannot protect a secret (Linux
// without a keyring), it stays where server-only mode keeps it, in a file of mode 0600.
import fs from 'node:fs';
import path from 'node:path';
import { AGENT_SETTINGS_FILE, agentJsonKeyStore } from '../server/agent/config.js';
import type { KeySeal, SecretStore } from '../server/agent/secret-store.js';
import { log } from '../server/core/log.js';
import { MCP_TOKEN_FILE, mcpTokenFileStore } from '../server/mcp/token.js';
import { fileSecretStore } from '../server/store/secret-file.js';

export const AGENT_KEY_FILE = 'agent-key.bin';
export const MCP_TOKEN_SECURE_FILE = 'mcp-token.bin';
/** Electron's name for Linux without a keyring: it then encrypts with a fixed password, which protects nothing. */
export const UNPROTECTED_BACKEND = 'basic_text';

/** The part of Electron's safeStorage used here. */
export interface SafeStorage {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only in Electron. */
  getSelectedStorageBackend?(): string;
}

export interface KeyStoreLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface SecretStoreOptions {
  platform?: NodeJS.Platform;
  logger?: KeyStoreLog;
}

/** One secret: what the log calls it, its encrypted file, and server-only mode's place for it. */
interface SecretSpec {
  label: string;
  file: string;
  plain: SecretStore;
  /** The plain store's file, as the log names it. */
  plainName: string;
  /** What follows when the encrypted file holds nothing usable. */
  consequence: string;
}

/** Why safeStorage cannot protect a secret on this machine, or undefined when it can. */
export function whyUnprotected(safeStorage: SafeStorage, platform: NodeJS.Platform = process.platform): string | undefined {
  if (!safeStorage.isEncryptionAvailable()) return 'the system offers no encryption (on Linux: no keyring is running)';
  if (platform === 'linux' && safeStorage.getSelectedStorageBackend?.() === UNPROTECTED_BACKEND) {
    return 'no keyring is running (safeStorage would encrypt with a fixed password)';
  }
  return undefined;
}

/**
 * The agent's API key (agent.json's field where no keyring protects it), and the seal of the other saved agent
 * connections' keys (server/agent/connections.ts): encrypted by the same secure storage, base64 in
 * agent-connections.json; where no keyring protects them they stay text in that file of mode 0600. Call after
 * Electron's 'ready'.
 */
export async function openAgentKeyStore(stateDir: string, safeStorage: SafeStorage, options: SecretStoreOptions = {}): Promise<SecretStore> {
  const spec = { label: 'Agent API key', file: AGENT_KEY_FILE, plain: agentJsonKeyStore(stateDir), plainName: AGENT_SETTINGS_FILE, consequence: 'no key is sent' };
  const store = await openSecretStore(stateDir, safeStorage, spec, options);
  if (whyUnprotected(safeStorage, options.platform)) return store;
  const seal: KeySeal = {
    seal: (value) => safeStorage.encryptString(value).toString('base64'),
    open: (sealed) => safeStorage.decryptString(Buffer.from(sealed, 'base64')),
  };
  return { get: () => store.get(), set: (value) => store.set(value), seal };
}

/** The MCP token (<state>/mcp-token where no keyring protects it). Call after Electron's 'ready'. */
export function openMcpTokenStore(stateDir: string, safeStorage: SafeStorage, options: SecretStoreOptions = {}): Promise<SecretStore> {
  const spec = { label: 'MCP token', file: MCP_TOKEN_SECURE_FILE, plain: mcpTokenFileStore(stateDir), plainName: MCP_TOKEN_FILE, consequence: 'a new token is made' };
  return openSecretStore(stateDir, safeStorage, spec, options);
}

/**
 * The store the desktop app hands to the server. safeStorage answers only after 'ready'. A secret still in
 * the plain store (saved before, or while no keyring ran) is moved into the encrypted file.
 */
async function openSecretStore(stateDir: string, safeStorage: SafeStorage, spec: SecretSpec, options: SecretStoreOptions): Promise<SecretStore> {
  const logger = options.logger ?? log;
  const file = path.join(stateDir, spec.file);
  const why = whyUnprotected(safeStorage, options.platform);
  if (why) {
    const earlier = fs.existsSync(file) ? `; the one saved in ${spec.file} is unreadable until it is back` : '';
    logger.info(`${spec.label}: kept in ${spec.plainName} (mode 0600) because ${why}${earlier}`);
    return fallbackStore(spec.plain, file);
  }
  const secure = encryptedStore(file, safeStorage, spec, logger);
  const legacy = spec.plain.get();
  if (legacy) {
    try {
      // Encrypted copy first: a crash in between leaves the secret in both, and the next start moves it again.
      await secure.set(legacy);
      await spec.plain.set(undefined);
    } catch {
      // The error could come from the keychain with details; the secret itself is never in a message here.
      logger.warn(`${spec.label}: could not move it into the system's secure storage; it stays in ${spec.plainName} (mode 0600)`);
      return fallbackStore(spec.plain, file);
    }
    logger.info(`${spec.label}: moved from ${spec.plainName} into the system's secure storage`);
  }
  return secure;
}

function encryptedStore(file: string, safeStorage: SafeStorage, spec: SecretSpec, logger: KeyStoreLog): SecretStore {
  const warned = new Set<string>();
  // Read at every turn: one line per problem, not one per message.
  const warnOnce = (why: string) => {
    if (warned.has(why)) return;
    warned.add(why);
    logger.warn(`${spec.label}: ${spec.file} ${why}; ${spec.consequence}`);
  };
  return fileSecretStore(file, warnOnce, {
    encode: (value) => safeStorage.encryptString(value),
    decode: (bytes) => safeStorage.decryptString(bytes),
    undecodable: 'cannot be decrypted (saved by another user or machine?)',
  });
}

/** The plain store; an encrypted file left from before is dropped on save, so a removed secret stays removed. */
function fallbackStore(plain: SecretStore, file: string): SecretStore {
  return {
    get: () => plain.get(),
    async set(value) {
      await plain.set(value);
      await fs.promises.rm(file, { force: true });
    },
  };
}
