import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setLogSink } from '../core/log.js';
import {
  DEFAULT_GROQ_BASE_URL,
  DEFAULT_GROQ_MODEL,
  DEFAULT_OPENAI_BASE_URL,
  DEFAULT_OPENAI_MODEL,
  DEFAULT_TIMEOUT_MS,
  loadSttConfig,
  resetSttConfigWarnings,
  SETTINGS_FILE_NAME,
} from './config.js';
import { defaultModelDir } from './local.js';

const SECRET = 'sk-live-VERYSECRET-0123456789';

let stateDir: string;
let lines: string[];
let restoreLog: () => void;

function writeSettings(value: unknown): void {
  fs.writeFileSync(path.join(stateDir, SETTINGS_FILE_NAME), typeof value === 'string' ? value : JSON.stringify(value));
}

beforeEach(() => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-sttcfg-'));
  lines = [];
  restoreLog = setLogSink((line) => lines.push(line));
  resetSttConfigWarnings();
});
afterEach(() => {
  restoreLog();
  fs.rmSync(stateDir, { recursive: true, force: true });
});

describe('loadSttConfig', () => {
  it('has documented defaults with no file and an empty environment', () => {
    expect(loadSttConfig(stateDir, {})).toEqual({
      enabled: true,
      modelDir: defaultModelDir({}),
      openai: { baseUrl: DEFAULT_OPENAI_BASE_URL, model: DEFAULT_OPENAI_MODEL },
      groq: { baseUrl: DEFAULT_GROQ_BASE_URL, model: DEFAULT_GROQ_MODEL },
      timeoutMs: DEFAULT_TIMEOUT_MS,
    });
    expect(DEFAULT_OPENAI_BASE_URL).toBe('https://api.openai.com/v1');
    expect(DEFAULT_GROQ_BASE_URL).toBe('https://api.groq.com/openai/v1');
    expect(lines).toEqual([]);
  });

  it('reads every environment variable', () => {
    const cfg = loadSttConfig(stateDir, {
      SATCHEL_STT_ENABLED: 'yes',
      SATCHEL_STT_PROVIDER: ' Local_Command ',
      SATCHEL_STT_MODEL_DIR: path.join(stateDir, 'model'),
      SATCHEL_STT_LOCAL_COMMAND: '["pocketsphinx_continuous","-infile","{input}"]',
      SATCHEL_STT_COMMAND: '["/opt/stt/run","--file={input}"]',
      OPENAI_API_KEY: ` ${SECRET} `,
      GROQ_API_KEY: 'gsk_abc',
      SATCHEL_STT_OPENAI_BASE_URL: 'http://127.0.0.1:9999/v1/',
      SATCHEL_STT_GROQ_BASE_URL: 'https://proxy.example/groq/v1',
      SATCHEL_STT_OPENAI_MODEL: 'gpt-4o-mini-transcribe',
      SATCHEL_STT_GROQ_MODEL: 'whisper-large-v3',
      SATCHEL_STT_LANGUAGE: 'pt-BR',
      SATCHEL_STT_TIMEOUT_MS: '45000',
    });
    expect(cfg).toEqual({
      enabled: true,
      provider: 'local_command',
      language: 'pt-BR',
      modelDir: path.join(stateDir, 'model'),
      localCommand: ['pocketsphinx_continuous', '-infile', '{input}'],
      command: ['/opt/stt/run', '--file={input}'],
      openai: { apiKey: SECRET, baseUrl: 'http://127.0.0.1:9999/v1', model: 'gpt-4o-mini-transcribe' },
      groq: { apiKey: 'gsk_abc', baseUrl: 'https://proxy.example/groq/v1', model: 'whisper-large-v3' },
      timeoutMs: 45000,
    });
    expect(lines).toEqual([]);
  });

  it.each(['0', 'false', 'no', 'off', 'OFF', ' False '])('SATCHEL_STT_ENABLED=%j disables', (value) => {
    expect(loadSttConfig(stateDir, { SATCHEL_STT_ENABLED: value }).enabled).toBe(false);
  });

  it('reads the settings file and lets the environment override it key by key', () => {
    writeSettings({
      enabled: false,
      provider: 'groq',
      language: 'de',
      modelDir: path.join(stateDir, 'file-model'),
      command: ['stt-tool', '{input}'],
      openai: { apiKey: 'file-openai-key', model: 'file-model' },
      groq: { apiKey: 'file-groq-key', baseUrl: 'https://groq.internal/v1' },
      timeoutMs: 5000,
    });
    expect(loadSttConfig(stateDir, {})).toEqual({
      enabled: false,
      provider: 'groq',
      language: 'de',
      modelDir: path.join(stateDir, 'file-model'),
      command: ['stt-tool', '{input}'],
      openai: { apiKey: 'file-openai-key', baseUrl: DEFAULT_OPENAI_BASE_URL, model: 'file-model' },
      groq: { apiKey: 'file-groq-key', baseUrl: 'https://groq.internal/v1', model: DEFAULT_GROQ_MODEL },
      timeoutMs: 5000,
    });
    const cfg = loadSttConfig(stateDir, {
      SATCHEL_STT_ENABLED: 'on',
      SATCHEL_STT_PROVIDER: 'auto',
      OPENAI_API_KEY: 'env-openai-key',
      SATCHEL_STT_TIMEOUT_MS: '7000',
    });
    expect(cfg.enabled).toBe(true);
    expect(cfg.provider).toBeUndefined();
    expect(cfg.openai).toEqual({ apiKey: 'env-openai-key', baseUrl: DEFAULT_OPENAI_BASE_URL, model: 'file-model' });
    expect(cfg.groq.apiKey).toBe('file-groq-key');
    expect(cfg.timeoutMs).toBe(7000);
    expect(cfg.language).toBe('de');
    expect(lines).toEqual([]);
  });

  it('ignores bad values with a warning that names the key but never the value', () => {
    writeSettings({
      enabled: 'maybe',
      provider: 42,
      language: '../../etc',
      modelDir: '',
      localCommand: 'pocketsphinx {input}',
      command: [],
      openai: { apiKey: 12345, baseUrl: `ftp://${SECRET}@host/`, model: 'ok-model', organization: SECRET },
      groq: 'gsk_not_an_object',
      timeoutMs: -5,
      colour: 'blue',
    });
    const cfg = loadSttConfig(stateDir, {
      SATCHEL_STT_LOCAL_COMMAND: `[not json ${SECRET}`,
      SATCHEL_STT_TIMEOUT_MS: '1e99',
      SATCHEL_STT_OPENAI_BASE_URL: `not a url ${SECRET}`,
    });
    expect(cfg).toEqual({
      enabled: true,
      modelDir: defaultModelDir({}),
      openai: { baseUrl: DEFAULT_OPENAI_BASE_URL, model: 'ok-model' },
      groq: { baseUrl: DEFAULT_GROQ_BASE_URL, model: DEFAULT_GROQ_MODEL },
      timeoutMs: DEFAULT_TIMEOUT_MS,
    });
    const text = lines.join('\n');
    for (const key of [
      'stt.json: enabled',
      'stt.json: provider',
      'stt.json: language',
      'stt.json: localCommand',
      'stt.json: command',
      'stt.json: openai.apiKey',
      'stt.json: openai.baseUrl',
      'stt.json: openai.organization: unknown key',
      'stt.json: groq: expected an object',
      'stt.json: timeoutMs',
      'stt.json: colour: unknown key',
      'SATCHEL_STT_LOCAL_COMMAND',
      'SATCHEL_STT_TIMEOUT_MS',
      'SATCHEL_STT_OPENAI_BASE_URL',
    ]) {
      expect(text).toContain(`Speech-to-text setting ${key}`);
    }
    expect(lines.every((l) => l.includes(' WARN '))).toBe(true);
    expect(text).not.toContain('VERYSECRET');
    expect(text).not.toContain('gsk_not');
    expect(text).not.toContain('12345');
  });

  it('survives a settings file that is not JSON, not an object, a directory or huge', () => {
    writeSettings(`{"openai": {"apiKey": "${SECRET}"`);
    expect(loadSttConfig(stateDir, {}).openai.apiKey).toBeUndefined();
    expect(lines.join('\n')).toContain('Speech-to-text setting stt.json: not valid JSON; ignored');
    expect(lines.join('\n')).not.toContain('VERYSECRET');

    writeSettings('["local"]');
    expect(loadSttConfig(stateDir, {}).enabled).toBe(true);
    expect(lines.at(-1)).toContain('stt.json: expected a JSON object; ignored');

    writeSettings(JSON.stringify({ provider: 'openai', pad: 'x'.repeat(70 * 1024) }));
    expect(loadSttConfig(stateDir, {}).provider).toBeUndefined();
    expect(lines.at(-1)).toContain('not a regular file under 65536 bytes; ignored');

    fs.rmSync(path.join(stateDir, SETTINGS_FILE_NAME));
    fs.mkdirSync(path.join(stateDir, SETTINGS_FILE_NAME));
    expect(loadSttConfig(stateDir, {}).enabled).toBe(true);
    expect(lines.at(-1)).toContain('not a regular file');
  });

  it('keeps the file value when the environment value is invalid', () => {
    writeSettings({ command: ['from-file', '{input}'], timeoutMs: 9000 });
    const cfg = loadSttConfig(stateDir, { SATCHEL_STT_COMMAND: '{"not":"an array"}', SATCHEL_STT_TIMEOUT_MS: 'soon' });
    expect(cfg.command).toEqual(['from-file', '{input}']);
    expect(cfg.timeoutMs).toBe(9000);
    expect(lines).toHaveLength(2);
  });

  it('logs each distinct warning once, since the handlers load the settings per request', () => {
    writeSettings({ timeoutMs: 'soon' });
    for (let i = 0; i < 5; i++) loadSttConfig(stateDir, { SATCHEL_STT_ENABLED: 'perhaps' });
    expect(lines).toHaveLength(2);
    loadSttConfig(stateDir, { SATCHEL_STT_ENABLED: 'nah' });
    expect(lines).toHaveLength(2); // same key, same reason: already said
    resetSttConfigWarnings();
    loadSttConfig(stateDir, {});
    expect(lines).toHaveLength(3);
  });

  it('warns about a command without {input} but keeps it', () => {
    const cfg = loadSttConfig(stateDir, { SATCHEL_STT_COMMAND: '["stt-tool","--stdin"]' });
    expect(cfg.command).toEqual(['stt-tool', '--stdin']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Speech-to-text setting SATCHEL_STT_COMMAND: no argument contains {input}');
  });

  it('keeps an unknown provider name so the probe can report it', () => {
    const cfg = loadSttConfig(stateDir, { SATCHEL_STT_PROVIDER: 'Whisper' });
    expect(cfg.provider).toBeUndefined();
    expect(cfg.unknownProvider).toBe('whisper');
    expect(lines.join('\n')).toContain('SATCHEL_STT_PROVIDER: unknown provider');
    // An empty value means "not set", so a file's choice stays.
    writeSettings({ provider: 'openai' });
    expect(loadSttConfig(stateDir, { SATCHEL_STT_PROVIDER: '  ' }).provider).toBe('openai');
  });

  it('expands ~ in the model directory', () => {
    expect(loadSttConfig(stateDir, { SATCHEL_STT_MODEL_DIR: '~/models/x' }).modelDir).toBe(
      path.join(os.homedir(), 'models', 'x'),
    );
  });
});

describe('loadSttConfig on arbitrary input', () => {
  const ENV_NAMES = [
    'SATCHEL_STT_ENABLED',
    'SATCHEL_STT_PROVIDER',
    'SATCHEL_STT_MODEL_DIR',
    'SATCHEL_STT_LOCAL_COMMAND',
    'SATCHEL_STT_COMMAND',
    'SATCHEL_STT_OPENAI_BASE_URL',
    'SATCHEL_STT_GROQ_BASE_URL',
    'SATCHEL_STT_LANGUAGE',
    'SATCHEL_STT_TIMEOUT_MS',
  ];
  const MARK = 'Zq9SECRETMARK';

  it('never throws, always yields a usable config, and never logs a value', () => {
    const settingsValue = fc.oneof(
      fc.json(),
      fc.dictionary(
        fc.constantFrom('enabled', 'provider', 'language', 'modelDir', 'localCommand', 'command', 'openai', 'groq', 'timeoutMs', 'x'),
        fc.oneof(fc.jsonValue(), fc.constant(MARK), fc.dictionary(fc.constantFrom('apiKey', 'baseUrl', 'model', 'y'), fc.oneof(fc.jsonValue(), fc.constant(MARK)))),
      ).map((o) => JSON.stringify(o)),
    );
    const envValue = fc.oneof(fc.string(), fc.constant(MARK), fc.constant(`["${MARK}"`), fc.constant(`http://${MARK}`));
    fc.assert(
      fc.property(settingsValue, fc.dictionary(fc.constantFrom(...ENV_NAMES), envValue), (settings, env) => {
        fs.writeFileSync(path.join(stateDir, SETTINGS_FILE_NAME), settings);
        lines = [];
        resetSttConfigWarnings();
        const cfg = loadSttConfig(stateDir, env);
        expect(typeof cfg.enabled).toBe('boolean');
        expect(path.isAbsolute(cfg.modelDir)).toBe(true);
        expect(Number.isInteger(cfg.timeoutMs) && cfg.timeoutMs > 0).toBe(true);
        for (const hosted of [cfg.openai, cfg.groq]) {
          expect(['http:', 'https:']).toContain(new URL(hosted.baseUrl).protocol);
          expect(hosted.model.length).toBeGreaterThan(0);
        }
        for (const argv of [cfg.command, cfg.localCommand]) {
          if (argv) expect(argv.length > 0 && argv.every((a) => typeof a === 'string') && argv[0] !== '').toBe(true);
        }
        expect(lines.join('\n')).not.toContain(MARK);
      }),
      { numRuns: 300 },
    );
  });
});
