import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HOST, DEFAULT_MAX_UPLOAD_MB, defaultStateDir, loadConfig } from './config.js';

const MIB = 1024 * 1024;

describe('loadConfig', () => {
  it('has the README’s defaults with an empty environment', () => {
    expect(loadConfig({}, {})).toEqual({
      host: DEFAULT_HOST,
      port: 0,
      stateDir: defaultStateDir({}),
      token: undefined,
      maxUploadBytes: DEFAULT_MAX_UPLOAD_MB * MIB,
      defaultWorkspace: undefined,
      preloadSpeech: true,
    });
    expect(DEFAULT_HOST).toBe('127.0.0.1');
  });

  it('reads each start-time variable, trimmed, with ~ expanded in folders', () => {
    const cfg = loadConfig({
      SATCHEL_WEBUI_HOST: ' 0.0.0.0 ',
      SATCHEL_WEBUI_PORT: '8123',
      SATCHEL_WEBUI_STATE_DIR: ' ~/satchel-state ',
      SATCHEL_WEBUI_TOKEN: ' tok ',
      SATCHEL_WEBUI_MAX_UPLOAD_MB: '0.5',
      SATCHEL_WEBUI_DEFAULT_WORKSPACE: '~/work',
      SATCHEL_STT_PRELOAD: 'off',
    });
    expect(cfg).toEqual({
      host: '0.0.0.0',
      port: 8123,
      stateDir: path.join(os.homedir(), 'satchel-state'),
      token: 'tok',
      maxUploadBytes: MIB / 2,
      defaultWorkspace: path.join(os.homedir(), 'work'),
      preloadSpeech: false,
    });
  });

  it('falls back to the default on an unusable value', () => {
    const cfg = loadConfig({ SATCHEL_WEBUI_PORT: '65536', SATCHEL_WEBUI_MAX_UPLOAD_MB: '-1', SATCHEL_WEBUI_TOKEN: '  ' });
    expect([cfg.port, cfg.maxUploadBytes, cfg.token]).toEqual([0, DEFAULT_MAX_UPLOAD_MB * MIB, undefined]);
  });

  it('lets flags win over the environment, and refuses an invalid --port', () => {
    const env = { SATCHEL_WEBUI_HOST: '0.0.0.0', SATCHEL_WEBUI_PORT: '8123', SATCHEL_WEBUI_STATE_DIR: '/env' };
    const cfg = loadConfig(env, { host: '::1', port: '9000', stateDir: '/flag' });
    expect([cfg.host, cfg.port, cfg.stateDir]).toEqual(['::1', 9000, path.resolve('/flag')]);
    expect(() => loadConfig(env, { port: 'x' })).toThrow('Invalid --port: x');
    expect(() => loadConfig({}, { port: '70000' })).toThrow('Invalid --port: 70000');
  });
});
