import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_SETTINGS_FILE, agentJsonKeyStore, loadAgentConfig, publicAgentSettings, saveAgentSettings } from './config.js';
import type { SecretStore } from './secret-store.js';

let state: string;
const KEY = 'sk-config-test-0123456789abcdefghij';
beforeEach(() => {
  state = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-agent-config-'));
});
afterEach(() => fs.rmSync(state, { recursive: true, force: true }));

describe('agent settings', () => {
  it('no base URL anywhere: no agent', () => {
    expect(loadAgentConfig(state, {})).toBeUndefined();
  });

  it('reads the environment, with defaults for timeout and budget', () => {
    const env = { SATCHEL_AGENT_BASE_URL: 'http://127.0.0.1:11434/v1/', SATCHEL_AGENT_MODEL: 'llama3', SATCHEL_AGENT_API_KEY: KEY };
    expect(loadAgentConfig(state, env)).toEqual({
      baseUrl: 'http://127.0.0.1:11434/v1',
      apiKey: KEY,
      model: 'llama3',
      kind: 'openai',
      idleTimeoutMs: 600_000,
      turnMaxMs: 1_800_000,
      contextChars: 200_000,
      satchelTools: true,
    });
  });

  it('reads the turn deadline from the environment only (SATCHEL_AGENT_TURN_MAX_MS)', () => {
    const env = { SATCHEL_AGENT_BASE_URL: 'http://127.0.0.1:11434', SATCHEL_AGENT_TURN_MAX_MS: '90000', SATCHEL_AGENT_TIMEOUT_MS: '5000' };
    expect(loadAgentConfig(state, env)).toMatchObject({ idleTimeoutMs: 5000, turnMaxMs: 90_000 });
  });

  it('takes Hermes’ port as hermes when the kind is unset, with its model name', () => {
    const config = loadAgentConfig(state, { SATCHEL_AGENT_BASE_URL: 'http://127.0.0.1:8642' });
    expect(config).toMatchObject({ kind: 'hermes', model: 'hermes-agent' });
  });

  it('saves agent.json 0600; the environment wins field by field', async () => {
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', apiKey: KEY, model: 'qwen', kind: 'openai' });
    const file = path.join(state, AGENT_SETTINGS_FILE);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadAgentConfig(state, {})).toMatchObject({ baseUrl: 'http://127.0.0.1:1234', apiKey: KEY, model: 'qwen', kind: 'openai' });
    expect(loadAgentConfig(state, { SATCHEL_AGENT_MODEL: 'mistral', SATCHEL_AGENT_TIMEOUT_MS: '5000' })).toMatchObject({
      baseUrl: 'http://127.0.0.1:1234',
      model: 'mistral',
      idleTimeoutMs: 5000,
    });
  });

  it('an omitted key keeps the stored one at the same address; an empty key removes it', async () => {
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', apiKey: KEY, model: 'a' });
    // The same agent, spelled with /v1 and a slash: still the address the key was saved with.
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234/v1/', model: 'b' });
    expect(loadAgentConfig(state, {})).toMatchObject({ baseUrl: 'http://127.0.0.1:1234/v1', apiKey: KEY, model: 'b' });
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', apiKey: '', model: 'b' });
    expect(loadAgentConfig(state, {})?.apiKey).toBeUndefined();
  });

  it('a new address never gets the previous key: omitted, it is removed, unless keeping it is asked for', async () => {
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', apiKey: KEY, model: 'a' });
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1235', model: 'a', keepApiKey: true });
    expect(loadAgentConfig(state, {})).toMatchObject({ baseUrl: 'http://127.0.0.1:1235', apiKey: KEY });
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1236', model: 'a' });
    expect(loadAgentConfig(state, {})).not.toHaveProperty('apiKey');
    expect(fs.readFileSync(path.join(state, AGENT_SETTINGS_FILE), 'utf8')).not.toContain(KEY);
    expect(publicAgentSettings(state, {}).has_api_key).toBe(false);
  });

  it('the stored key stays with its address when the base URL changes elsewhere (environment, file by hand)', async () => {
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', apiKey: KEY, model: 'a' });
    expect(loadAgentConfig(state, { SATCHEL_AGENT_BASE_URL: 'http://127.0.0.1:9999' })).not.toHaveProperty('apiKey');
    const file = path.join(state, AGENT_SETTINGS_FILE);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"baseUrl": "http://127.0.0.1:1234"', '"baseUrl": "http://127.0.0.1:9999"'));
    expect(loadAgentConfig(state, {})).toMatchObject({ baseUrl: 'http://127.0.0.1:9999' });
    expect(loadAgentConfig(state, {})).not.toHaveProperty('apiKey');
    // A file written before the key's address was recorded: the key belongs to its own baseUrl.
    fs.writeFileSync(file, JSON.stringify({ baseUrl: 'http://127.0.0.1:1234', apiKey: KEY }));
    expect(loadAgentConfig(state, {})?.apiKey).toBe(KEY);
  });

  it('refuses a base URL that is not http(s), naming the field only', async () => {
    const err = await saveAgentSettings(state, { baseUrl: 'file:///etc', apiKey: KEY, model: 'x' }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/baseUrl/);
    expect((err as Error).message).not.toContain(KEY);
    expect(fs.existsSync(path.join(state, AGENT_SETTINGS_FILE))).toBe(false);
  });

  it('public settings never carry the key', async () => {
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:8642', apiKey: KEY, model: 'hermes-agent', kind: 'hermes' });
    const shown = publicAgentSettings(state, { SATCHEL_AGENT_CONTEXT_CHARS: '5000' });
    expect(JSON.stringify(shown)).not.toContain(KEY);
    expect(shown).toEqual({
      base_url: 'http://127.0.0.1:8642',
      model: 'hermes-agent',
      kind: 'hermes',
      timeout_ms: 600_000,
      context_chars: 5000,
      has_api_key: true,
      tools: true,
      tools_refused: false,
      from_env: ['contextChars'],
    });
  });

  it('ignores a broken, oversized or symlinked agent.json', () => {
    const file = path.join(state, AGENT_SETTINGS_FILE);
    fs.writeFileSync(file, '{not json');
    expect(loadAgentConfig(state, {})).toBeUndefined();
    fs.writeFileSync(file, JSON.stringify({ baseUrl: 'http://127.0.0.1:1', model: 'x'.repeat(70 * 1024) }));
    expect(loadAgentConfig(state, {})).toBeUndefined();
    if (process.platform !== 'win32') {
      fs.rmSync(file);
      const elsewhere = path.join(state, 'elsewhere.json');
      fs.writeFileSync(elsewhere, JSON.stringify({ baseUrl: 'http://127.0.0.1:1', model: 'x' }));
      fs.symlinkSync(elsewhere, file);
      expect(loadAgentConfig(state, {})).toBeUndefined();
    }
  });
});

/** A store that keeps the key in memory, as a secure store would keep it out of agent.json. */
function memoryStore(): SecretStore & { value?: string } {
  const store: SecretStore & { value?: string } = {
    get: () => store.value,
    set: async (value) => {
      store.value = value;
    },
  };
  return store;
}

describe('where the key lives', () => {
  it('by default in agent.json (0600); removing it keeps the other fields', async () => {
    const file = path.join(state, AGENT_SETTINGS_FILE);
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', apiKey: KEY, model: 'qwen', timeoutMs: 5000 });
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).apiKey).toBe(KEY);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const keys = agentJsonKeyStore(state);
    expect(keys.get()).toBe(KEY);
    await keys.set(undefined);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ baseUrl: 'http://127.0.0.1:1234', model: 'qwen', timeoutMs: 5000 });
    expect(keys.get()).toBeUndefined();
  });

  it('a given store holds the key: agent.json never sees it, and the settings read it from there', async () => {
    const keys = memoryStore();
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', apiKey: ` ${KEY} `, model: 'qwen' }, keys);
    expect(keys.value).toBe(KEY);
    expect(fs.readFileSync(path.join(state, AGENT_SETTINGS_FILE), 'utf8')).not.toContain(KEY);
    expect(loadAgentConfig(state, {}, keys)).toMatchObject({ baseUrl: 'http://127.0.0.1:1234', apiKey: KEY });
    expect(loadAgentConfig(state, {}), 'the default store has no key').not.toHaveProperty('apiKey');
    expect(publicAgentSettings(state, {}, keys).has_api_key).toBe(true);
    // Omitted keeps it (same address, or a new one when asked), empty removes it, as with agent.json.
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', model: 'b' }, keys);
    expect(keys.value).toBe(KEY);
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1235', model: 'b', keepApiKey: true }, keys);
    expect(loadAgentConfig(state, {}, keys)?.apiKey).toBe(KEY);
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1236', model: 'b' }, keys);
    expect(keys.value, 'a new address without keepApiKey').toBeUndefined();
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1235', apiKey: KEY, model: 'b' }, keys);
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1235', apiKey: '', model: 'b' }, keys);
    expect(keys.value).toBeUndefined();
    expect(publicAgentSettings(state, {}, keys).has_api_key).toBe(false);
  });

  it('an invalid setting writes neither the file nor the key', async () => {
    const keys = memoryStore();
    await expect(saveAgentSettings(state, { baseUrl: 'file:///etc', apiKey: KEY, model: 'x' }, keys)).rejects.toThrow(/baseUrl/);
    expect(keys.value).toBeUndefined();
  });

  it('SATCHEL_AGENT_API_KEY wins over the stored key and is never written', async () => {
    const envKey = 'sk-from-the-environment-9876543210';
    const keys = memoryStore();
    const env = { SATCHEL_AGENT_API_KEY: envKey };
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', apiKey: KEY, model: 'qwen' }, keys);
    expect(loadAgentConfig(state, env, keys)?.apiKey).toBe(envKey);
    expect(publicAgentSettings(state, env, keys).from_env).toEqual(['apiKey']);
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', model: 'qwen' }, keys);
    expect(keys.value).toBe(KEY);
    expect(fs.readFileSync(path.join(state, AGENT_SETTINGS_FILE), 'utf8')).not.toContain(envKey);
  });
});
