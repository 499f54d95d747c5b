import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_SETTINGS_FILE, loadAgentConfig, publicAgentSettings, saveAgentSettings } from './config.js';

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
      contextChars: 200_000,
    });
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

  it('an omitted key keeps the stored one; an empty key removes it', async () => {
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1234', apiKey: KEY, model: 'a' });
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1235', model: 'b' });
    expect(loadAgentConfig(state, {})).toMatchObject({ baseUrl: 'http://127.0.0.1:1235', apiKey: KEY, model: 'b' });
    await saveAgentSettings(state, { baseUrl: 'http://127.0.0.1:1235', apiKey: '', model: 'b' });
    expect(loadAgentConfig(state, {})?.apiKey).toBeUndefined();
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
