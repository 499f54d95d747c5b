// currentSttConfig (speech/config.ts): the settings the capability probe and transcription use are built once and
// again only on a change — a speech variable at once, `<state>/stt.json` within SETTINGS_FILE_CHECK_MS.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { currentSttConfig, loadSttConfig, resetSttConfigWarnings, SETTINGS_FILE_CHECK_MS, SETTINGS_FILE_NAME } from './config.js';

let stateDir: string;
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, ...extra });
const writeSettings = (value: unknown) => fs.writeFileSync(path.join(stateDir, SETTINGS_FILE_NAME), JSON.stringify(value));

beforeEach(() => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-stt-current-'));
  resetSttConfigWarnings();
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(stateDir, { recursive: true, force: true });
});

describe('currentSttConfig', () => {
  it('answers as loadSttConfig does, and does not read the file again while nothing changed', () => {
    writeSettings({ language: 'pt-BR', provider: 'groq' });
    const first = currentSttConfig(stateDir, env());
    expect(first).toEqual(loadSttConfig(stateDir, env()));
    const reads = vi.spyOn(fs, 'readFileSync');
    const stats = vi.spyOn(fs, 'statSync');
    expect(currentSttConfig(stateDir, env())).toBe(first);
    expect(reads).not.toHaveBeenCalled();
    expect(stats).not.toHaveBeenCalled();
  });

  it('takes a changed variable at once', () => {
    writeSettings({ language: 'pt-BR' });
    expect(currentSttConfig(stateDir, env()).language).toBe('pt-BR');
    expect(currentSttConfig(stateDir, env({ SATCHEL_STT_LANGUAGE: 'en' })).language).toBe('en');
    expect(currentSttConfig(stateDir, env({ SATCHEL_STT_ENABLED: 'off', SATCHEL_STT_LANGUAGE: 'en' })).enabled).toBe(false);
    expect(currentSttConfig(stateDir, env()).language).toBe('pt-BR');
  });

  it('takes stt.json edited behind its back once the check interval has passed, and a removed one too', () => {
    let now = 1_000_000;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    writeSettings({ language: 'pt-BR' });
    expect(currentSttConfig(stateDir, env()).language).toBe('pt-BR');
    writeSettings({ language: 'de', timeoutMs: 1234 });
    now += SETTINGS_FILE_CHECK_MS - 1;
    expect(currentSttConfig(stateDir, env()).language).toBe('pt-BR');
    now += 1;
    const edited = currentSttConfig(stateDir, env());
    expect(edited.language).toBe('de');
    expect(edited.timeoutMs).toBe(1234);
    fs.rmSync(path.join(stateDir, SETTINGS_FILE_NAME));
    now += SETTINGS_FILE_CHECK_MS;
    expect(currentSttConfig(stateDir, env()).language).toBeUndefined();
  });

  it('keeps each state folder apart', () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-stt-current-'));
    try {
      writeSettings({ language: 'pt-BR' });
      fs.writeFileSync(path.join(other, SETTINGS_FILE_NAME), JSON.stringify({ language: 'fr' }));
      expect(currentSttConfig(stateDir, env()).language).toBe('pt-BR');
      expect(currentSttConfig(other, env()).language).toBe('fr');
      expect(currentSttConfig(stateDir, env()).language).toBe('pt-BR');
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
