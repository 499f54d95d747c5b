import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_SETTINGS_FILE, loadAgentConfig, saveAgentSettings } from '../server/agent/config.js';
import { MCP_TOKEN_FILE, McpToken } from '../server/mcp/token.js';
import { CONNECTIONS_FILE, loadConnectionConfig, saveConnection } from '../server/agent/connections.js';
import { AGENT_KEY_FILE, MCP_TOKEN_SECURE_FILE, openAgentKeyStore, openMcpTokenStore, type SafeStorage } from './secret-file-store.js';

const KEY = 'sk-desktop-key-do-not-leak-7d3e9b1f0a';
let state: string;
let lines: string[];
const logger = { info: (m: string) => lines.push(`INFO ${m}`), warn: (m: string) => lines.push(`WARN ${m}`) };

/** Like safeStorage: real encryption with a secret of its own, so another "machine" cannot decrypt. */
function fakeSafeStorage(overrides: Partial<SafeStorage> = {}): SafeStorage {
  const secret = randomBytes(32);
  return {
    isEncryptionAvailable: () => true,
    encryptString(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', secret, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    decryptString(encrypted) {
      const decipher = createDecipheriv('aes-256-gcm', secret, encrypted.subarray(0, 12));
      decipher.setAuthTag(encrypted.subarray(12, 28));
      return Buffer.concat([decipher.update(encrypted.subarray(28)), decipher.final()]).toString('utf8');
    },
    ...overrides,
  };
}

const keyFile = () => path.join(state, AGENT_KEY_FILE);
const settingsFile = () => path.join(state, AGENT_SETTINGS_FILE);
const readSettings = () => JSON.parse(fs.readFileSync(settingsFile(), 'utf8'));
const mode = (file: string) => fs.statSync(file).mode & 0o777;
const POSIX = process.platform !== 'win32';

beforeEach(() => {
  state = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-agent-key-'));
  lines = [];
});
afterEach(() => fs.rmSync(state, { recursive: true, force: true }));

describe('the desktop key store (safeStorage)', () => {
  it("the saved connections' keys are sealed with it too; another machine's are unreadable, said once, and kept", async () => {
    const safe = fakeSafeStorage();
    const keys = await openAgentKeyStore(state, safe, { logger, platform: 'darwin' });
    const id = await saveConnection(state, { name: 'Box', baseUrl: 'http://127.0.0.1:4321', apiKey: KEY, model: 'm' }, keys);
    const text = fs.readFileSync(path.join(state, CONNECTIONS_FILE), 'utf8');
    expect(text).not.toContain(KEY);
    expect(JSON.parse(text).connections[0]).toHaveProperty('apiKeySealed');
    if (POSIX) expect(mode(path.join(state, CONNECTIONS_FILE))).toBe(0o600);
    expect(loadConnectionConfig(state, {}, keys, id)).toMatchObject({ apiKey: KEY });

    const elsewhere = await openAgentKeyStore(state, fakeSafeStorage(), { logger, platform: 'darwin' });
    expect(loadConnectionConfig(state, {}, elsewhere, id)).not.toHaveProperty('apiKey');
    // A change to another connection keeps the unreadable key as it was.
    await saveConnection(state, { baseUrl: 'http://127.0.0.1:4322', model: '' }, elsewhere);
    expect(loadConnectionConfig(state, {}, keys, id)).toMatchObject({ apiKey: KEY });
  });

  it("without a keyring, the connections' keys stay text in their 0600 file", async () => {
    const keys = await openAgentKeyStore(state, fakeSafeStorage({ isEncryptionAvailable: () => false }), { logger, platform: 'linux' });
    expect(keys.seal).toBeUndefined();
    await saveConnection(state, { baseUrl: 'http://127.0.0.1:4321', apiKey: KEY, model: '' }, keys);
    expect(JSON.parse(fs.readFileSync(path.join(state, CONNECTIONS_FILE), 'utf8')).connections[0].apiKey).toBe(KEY);
  });

  it('round trip: the key is encrypted into agent-key.bin (0600), never in agent.json', async () => {
    const keys = await openAgentKeyStore(state, fakeSafeStorage(), { logger, platform: 'darwin' });
    expect(keys.get()).toBeUndefined();
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', apiKey: KEY, model: 'qwen' }, keys);

    const bytes = fs.readFileSync(keyFile());
    expect(bytes.includes(Buffer.from(KEY)), 'the bytes on disk are not the key').toBe(false);
    if (POSIX) expect(mode(keyFile())).toBe(0o600);
    // agent.json names the address the key belongs to, never the key.
    expect(readSettings()).toEqual({ baseUrl: 'http://127.0.0.1:1234', apiKeyBaseUrl: 'http://127.0.0.1:1234', model: 'qwen' });
    expect(loadAgentConfig(state, {}, keys)).toMatchObject({ baseUrl: 'http://127.0.0.1:1234', apiKey: KEY });

    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', apiKey: '', model: 'qwen' }, keys);
    expect(fs.existsSync(keyFile())).toBe(false);
    expect(keys.get()).toBeUndefined();
    expect(lines.join('\n')).not.toContain(KEY);
  });

  it('moves a key from agent.json into the encrypted file on first start, keeping the other settings', async () => {
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', apiKey: KEY, model: 'qwen', timeoutMs: 5000 });
    expect(readSettings().apiKey).toBe(KEY);

    const safe = fakeSafeStorage();
    const keys = await openAgentKeyStore(state, safe, { logger, platform: 'linux' });
    expect(readSettings()).toEqual({ baseUrl: 'http://127.0.0.1:1234', model: 'qwen', timeoutMs: 5000 });
    expect(fs.readFileSync(keyFile()).includes(Buffer.from(KEY))).toBe(false);
    expect(keys.get()).toBe(KEY);
    expect(lines).toEqual([`INFO Agent API key: moved from ${AGENT_SETTINGS_FILE} into the system's secure storage`]);

    // The next start finds nothing to move.
    const again = await openAgentKeyStore(state, safe, { logger, platform: 'linux' });
    expect(again.get()).toBe(KEY);
    expect(lines).toHaveLength(1);
  });

  it('without encryption: the key stays in agent.json (0600), and the log says why, once', async () => {
    const safe = fakeSafeStorage({ isEncryptionAvailable: () => false });
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', apiKey: KEY, model: 'qwen' });
    const keys = await openAgentKeyStore(state, safe, { logger, platform: 'linux' });
    expect(keys.get()).toBe(KEY);
    expect(readSettings().apiKey, 'not migrated').toBe(KEY);
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', apiKey: `${KEY}-2`, model: 'qwen' }, keys);
    expect(readSettings().apiKey).toBe(`${KEY}-2`);
    if (POSIX) expect(mode(settingsFile())).toBe(0o600);
    expect(fs.existsSync(keyFile())).toBe(false);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^INFO Agent API key: kept in agent\.json \(mode 0600\) because .*no keyring/);
    expect(lines.join('\n')).not.toContain(KEY);
  });

  it('Linux with safeStorage on its fixed password counts as no encryption; other systems ignore the backend', async () => {
    const basicText = fakeSafeStorage({ getSelectedStorageBackend: () => 'basic_text' });
    await openAgentKeyStore(state, basicText, { logger, platform: 'linux' }).then((k) => k.set(KEY));
    expect(fs.existsSync(keyFile())).toBe(false);
    expect(readSettings().apiKey).toBe(KEY);
    expect(lines[0]).toMatch(/fixed password/);

    lines = [];
    const keys = await openAgentKeyStore(state, basicText, { logger, platform: 'darwin' });
    expect(fs.existsSync(keyFile()), 'migrated where the backend name means nothing').toBe(true);
    expect(keys.get()).toBe(KEY);
  });

  it('a removed key stays removed when encryption comes back: the stale encrypted file is dropped', async () => {
    const safe = fakeSafeStorage();
    await (await openAgentKeyStore(state, safe, { logger })).set(KEY);
    const locked = await openAgentKeyStore(state, { ...safe, isEncryptionAvailable: () => false }, { logger });
    expect(lines.at(-1)).toMatch(/is unreadable until it is back/);
    await locked.set(undefined);
    expect(fs.existsSync(keyFile())).toBe(false);
    expect((await openAgentKeyStore(state, safe, { logger })).get()).toBeUndefined();
  });

  it('a file it cannot decrypt: no key, one warning, never the bytes', async () => {
    await (await openAgentKeyStore(state, fakeSafeStorage(), { logger })).set(KEY);
    const elsewhere = await openAgentKeyStore(state, fakeSafeStorage(), { logger });
    expect(elsewhere.get()).toBeUndefined();
    expect(elsewhere.get()).toBeUndefined();
    expect(lines).toEqual([`WARN Agent API key: ${AGENT_KEY_FILE} cannot be decrypted (saved by another user or machine?); no key is sent`]);
  });

  it('a migration that cannot encrypt leaves the key in agent.json and the app starting', async () => {
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', apiKey: KEY, model: 'qwen' });
    const failing = fakeSafeStorage({
      encryptString: () => {
        throw new Error('Error while encrypting the text provided to safeStorage.encryptString.');
      },
    });
    const keys = await openAgentKeyStore(state, failing, { logger });
    expect(keys.get()).toBe(KEY);
    expect(readSettings().apiKey).toBe(KEY);
    expect(lines).toEqual([`WARN Agent API key: could not move it into the system's secure storage; it stays in ${AGENT_SETTINGS_FILE} (mode 0600)`]);
  });
});

describe('the desktop MCP token store (safeStorage)', () => {
  const secureFile = () => path.join(state, MCP_TOKEN_SECURE_FILE);
  const plainFile = () => path.join(state, MCP_TOKEN_FILE);

  it('the token made at first start is encrypted into mcp-token.bin (0600) and is the same at the next start', async () => {
    const safe = fakeSafeStorage();
    const token = await McpToken.open(await openMcpTokenStore(state, safe, { logger }));
    expect(fs.readFileSync(secureFile()).includes(Buffer.from(token.value))).toBe(false);
    if (POSIX) expect(mode(secureFile())).toBe(0o600);
    expect(fs.existsSync(plainFile())).toBe(false);
    expect((await McpToken.open(await openMcpTokenStore(state, safe, { logger }))).value).toBe(token.value);
    const next = await token.regenerate();
    expect((await McpToken.open(await openMcpTokenStore(state, safe, { logger }))).value).toBe(next);
    expect(lines).toEqual([]);
  });

  it('a token kept in the 0600 file while no keyring ran is moved into the encrypted file when one does', async () => {
    const safe = fakeSafeStorage();
    const locked = await openMcpTokenStore(state, { ...safe, isEncryptionAvailable: () => false }, { logger, platform: 'linux' });
    const token = await McpToken.open(locked);
    expect(fs.readFileSync(plainFile(), 'utf8').trim()).toBe(token.value);
    if (POSIX) expect(mode(plainFile())).toBe(0o600);
    expect(lines[0]).toMatch(/^INFO MCP token: kept in mcp-token \(mode 0600\) because /);

    const keys = await openMcpTokenStore(state, safe, { logger, platform: 'linux' });
    expect(keys.get()).toBe(token.value);
    expect(fs.existsSync(plainFile())).toBe(false);
    expect(lines.at(-1)).toBe('INFO MCP token: moved from mcp-token into the system\'s secure storage');
    expect(lines.join('\n')).not.toContain(token.value);
  });

  it('an undecryptable file: a new token is made, with one warning', async () => {
    await McpToken.open(await openMcpTokenStore(state, fakeSafeStorage(), { logger }));
    const elsewhere = fakeSafeStorage();
    const token = await McpToken.open(await openMcpTokenStore(state, elsewhere, { logger }));
    expect(lines).toEqual([`WARN MCP token: ${MCP_TOKEN_SECURE_FILE} cannot be decrypted (saved by another user or machine?); a new token is made`]);
    expect((await openMcpTokenStore(state, elsewhere, { logger })).get()).toBe(token.value);
  });
});
