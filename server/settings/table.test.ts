import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isSettingSet, rawSetting, readSetting, SETTING_NAMES, SETTINGS } from './table.js';
import { PORT_FILE_NAME } from '../process/port-store.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('the settings table', () => {
  it('names each variable, stt.json key and flag once', () => {
    const column = (pick: (name: (typeof SETTING_NAMES)[number]) => string | undefined) =>
      SETTING_NAMES.map(pick).filter((value) => value !== undefined);
    for (const values of [
      column((n) => SETTINGS[n].env),
      column((n) => (SETTINGS[n] as { sttKey?: string }).sttKey),
      column((n) => (SETTINGS[n] as { flag?: string }).flag),
    ]) {
      expect(new Set(values).size).toBe(values.length);
    }
  });

  it('gives the port default both entry points use: the port remembered in the state folder, else a free one', () => {
    expect(SETTINGS.port.default).toContain(`\`<state>/${PORT_FILE_NAME}\``);
    expect(SETTINGS.port.default).toMatch(/else any free port$/);
    expect(SETTINGS.port.meaning).toMatch(/over the remembered one/);
  });

  it('is the only source file that spells a variable name', () => {
    const names = SETTING_NAMES.map((name) => SETTINGS[name].env);
    const table = path.join(ROOT, 'server', 'settings', 'table.ts');
    const spelled = [...sourceFiles(path.join(ROOT, 'server')), ...sourceFiles(path.join(ROOT, 'main'))]
      .filter((file) => file !== table)
      .flatMap((file) => {
        const code = fs.readFileSync(file, 'utf8');
        return names.filter((name) => new RegExp(`['"\`.]${name}\\b`).test(code)).map((name) => `${path.relative(ROOT, file)}: ${name}`);
      });
    expect(spelled).toEqual([]);
  });
});

describe('readSetting', () => {
  it('reads the environment at the moment of the call (per-request settings see a change at once)', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(readSetting('maxExtractedMb', env)).toBeUndefined();
    env.SATCHEL_WEBUI_MAX_EXTRACTED_MB = '2';
    expect(readSetting('maxExtractedMb', env)).toBe(2);
    env.SATCHEL_WEBUI_MAX_EXTRACTED_MB = '0.5';
    expect(readSetting('maxExtractedMb', env)).toBe(0.5);
  });

  it('treats a blank variable as unset and an unusable one as "use the default"', () => {
    expect(readSetting('port', { SATCHEL_WEBUI_PORT: '   ' })).toBeUndefined();
    expect(isSettingSet('port', { SATCHEL_WEBUI_PORT: '   ' })).toBe(false);
    expect(readSetting('port', { SATCHEL_WEBUI_PORT: '70000' })).toBeUndefined();
    expect(isSettingSet('port', { SATCHEL_WEBUI_PORT: '70000' })).toBe(true);
    expect(readSetting('maxExtractedMb', { SATCHEL_WEBUI_MAX_EXTRACTED_MB: '1e3' })).toBeUndefined();
    expect(readSetting('maxUploadMb', { SATCHEL_WEBUI_MAX_UPLOAD_MB: '1e3' })).toBe(1000);
  });

  it('parses with the row’s parser and reports through warn by the variable’s name', () => {
    const warnings: string[] = [];
    const warn = (key: string, why: string) => warnings.push(`${key}: ${why}`);
    expect(readSetting('attachmentDir', { SATCHEL_WEBUI_ATTACHMENT_DIR: ' ~/att ' })).toBe(path.join(os.homedir(), 'att'));
    expect(readSetting('sttProvider', { SATCHEL_STT_PROVIDER: ' Groq ' }, warn)).toEqual({ provider: 'groq' });
    expect(readSetting('sttTimeoutMs', { SATCHEL_STT_TIMEOUT_MS: 'soon' }, warn)).toBeUndefined();
    expect(readSetting('sttPreload', { SATCHEL_STT_PRELOAD: 'Off' })).toBe(false);
    expect(readSetting('sttPreload', { SATCHEL_STT_PRELOAD: 'maybe' })).toBe(true);
    expect(readSetting('logLevel', { SATCHEL_LOG_LEVEL: 'DEBUG' })).toBe('debug');
    expect(warnings).toEqual(['SATCHEL_STT_TIMEOUT_MS: expected whole milliseconds between 1 and 3600000']);
  });

  it('rawSetting gives the text as set, for readers that validate it themselves (the CSP extras)', () => {
    expect(rawSetting('cspFrameExtra', { SATCHEL_WEBUI_CSP_FRAME_EXTRA: ' https://a.example ' })).toBe(' https://a.example ');
  });
});
