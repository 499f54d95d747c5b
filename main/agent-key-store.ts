// The agent's API key in the desktop app (../shared/spec/agent.md, "Configuration"): encrypted with Electron's
// safeStorage into <state>/agent-key.bin (0600, written atomically). safeStorage is handed in, so this module
// is tested with a fake and the server never sees Electron. Where the system cannot protect the key (Linux
// without a keyring), it stays where server-only mode keeps it: agent.json's field, in a file of mode 0600.
import fs from 'node:fs';
import path from 'node:path';
import { AGENT_SETTINGS_FILE, agentJsonKeyStore } from '../server/agent/config.js';
import type { SecretStore } from '../server/agent/secret-store.js';
import { log } from '../server/log.js';
import { writeFileAtomic } from '../server/store/atomic.js';

export const AGENT_KEY_FILE = 'agent-key.bin';
/** An encrypted key is a few hundred bytes: a file bigger than this is not ours. */
export const MAX_AGENT_KEY_FILE_BYTES = 64 * 1024;
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

export interface AgentKeyStoreOptions {
  platform?: NodeJS.Platform;
  logger?: KeyStoreLog;
}

/** Why safeStorage cannot protect the key on this machine, or undefined when it can. */
export function whyUnprotected(safeStorage: SafeStorage, platform: NodeJS.Platform = process.platform): string | undefined {
  if (!safeStorage.isEncryptionAvailable()) return 'the system offers no encryption (on Linux: no keyring is running)';
  if (platform === 'linux' && safeStorage.getSelectedStorageBackend?.() === UNPROTECTED_BACKEND) {
    return 'no keyring is running (safeStorage would encrypt with a fixed password)';
  }
  return undefined;
}

/**
 * The store the desktop app hands to the server. Call after Electron's 'ready' (safeStorage answers only
 * then). A key still in agent.json (saved before, or while no keyring ran) is moved into the encrypted file.
 */
export async function openAgentKeyStore(stateDir: string, safeStorage: SafeStorage, options: AgentKeyStoreOptions = {}): Promise<SecretStore> {
  const logger = options.logger ?? log;
  const plain = agentJsonKeyStore(stateDir);
  const file = path.join(stateDir, AGENT_KEY_FILE);
  const why = whyUnprotected(safeStorage, options.platform);
  if (why) {
    const earlier = fs.existsSync(file) ? `; the key saved in ${AGENT_KEY_FILE} is unreadable until it is back` : '';
    logger.info(`Agent API key: kept in ${AGENT_SETTINGS_FILE} (mode 0600) because ${why}${earlier}`);
    return fallbackStore(plain, file);
  }
  const secure = encryptedStore(file, stateDir, safeStorage, logger);
  const legacy = plain.get();
  if (legacy) {
    try {
      // Encrypted copy first: a crash in between leaves the key in both, and the next start moves it again.
      await secure.set(legacy);
      await plain.set(undefined);
    } catch {
      // The error could come from the keychain with details; the key itself is never in a message here.
      logger.warn(`Agent API key: could not move it into the system's secure storage; it stays in ${AGENT_SETTINGS_FILE} (mode 0600)`);
      return fallbackStore(plain, file);
    }
    logger.info(`Agent API key: moved from ${AGENT_SETTINGS_FILE} into the system's secure storage`);
  }
  return secure;
}

function encryptedStore(file: string, stateDir: string, safeStorage: SafeStorage, logger: KeyStoreLog): SecretStore {
  const warned = new Set<string>();
  // Read at every turn: one line per problem, not one per message.
  const warnOnce = (why: string) => {
    if (warned.has(why)) return;
    warned.add(why);
    logger.warn(`Agent API key: ${AGENT_KEY_FILE} ${why}; no key is sent`);
  };
  return {
    get() {
      let encrypted: Buffer | undefined;
      try {
        encrypted = readSmallFile(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') warnOnce('is unreadable');
        return undefined;
      }
      if (!encrypted) {
        warnOnce(`is not a regular file under ${MAX_AGENT_KEY_FILE_BYTES} bytes`);
        return undefined;
      }
      try {
        return safeStorage.decryptString(encrypted) || undefined;
      } catch {
        warnOnce('cannot be decrypted (saved by another user or machine?)');
        return undefined;
      }
    },
    async set(value) {
      if (!value) {
        await fs.promises.rm(file, { force: true });
        return;
      }
      await fs.promises.mkdir(stateDir, { recursive: true, mode: 0o700 });
      await writeFileAtomic(file, safeStorage.encryptString(value));
    },
  };
}

/** agent.json's field; an encrypted file left from before is dropped on save, so a removed key stays removed. */
function fallbackStore(plain: SecretStore, file: string): SecretStore {
  return {
    get: () => plain.get(),
    async set(value) {
      await plain.set(value);
      await fs.promises.rm(file, { force: true });
    },
  };
}

/** The file's bytes; undefined when it is not a regular file within the cap. No symlink is followed. */
function readSmallFile(file: string): Buffer | undefined {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_AGENT_KEY_FILE_BYTES) return undefined;
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
