import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../server/core/config.js';
import { defaultDesktopSettings, guiServerPlan, loadDesktopSettings, parseDesktopSettings, saveDesktopSettings } from './gui-config.js';

const USER_DATA = '/home/u/.config/Satchel';

describe('guiServerPlan', () => {
  it('defaults: loopback, state in userData, remembered port', () => {
    const plan = guiServerPlan(loadConfig({}, {}), {}, {}, USER_DATA);
    expect(plan.config.host).toBe('127.0.0.1');
    expect(plan.config.stateDir).toBe(USER_DATA);
    expect(plan.rememberPort).toBe(true);
  });
  it('a host setting never moves the window off 127.0.0.1', () => {
    const env = { SATCHEL_WEBUI_HOST: '0.0.0.0' };
    expect(guiServerPlan(loadConfig(env, { host: '::' }), { host: '::' }, env, USER_DATA).config.host).toBe('127.0.0.1');
  });
  it('keeps a state directory the user chose', () => {
    const env = { SATCHEL_WEBUI_STATE_DIR: '/data/satchel' };
    expect(guiServerPlan(loadConfig(env), {}, env, USER_DATA).config.stateDir).toBe('/data/satchel');
    expect(guiServerPlan(loadConfig({}, { stateDir: '/flag' }), { stateDir: '/flag' }, {}, USER_DATA).config.stateDir).toBe(
      '/flag',
    );
  });
  it('a fixed port is used as given, without remembering', () => {
    const env = { SATCHEL_WEBUI_PORT: '8123' };
    const plan = guiServerPlan(loadConfig(env), {}, env, USER_DATA);
    expect(plan.config.port).toBe(8123);
    expect(plan.rememberPort).toBe(false);
    const flagged = guiServerPlan(loadConfig({}, { port: '9000' }), { port: '9000' }, {}, USER_DATA);
    expect(flagged.config.port).toBe(9000);
    expect(flagged.rememberPort).toBe(false);
  });
  it('an explicit port 0 still means "any port", so the remembered one is tried', () => {
    expect(guiServerPlan(loadConfig({}, { port: '0' }), { port: '0' }, {}, USER_DATA).rememberPort).toBe(true);
  });
  it('keeps the other settings (upload cap, token)', () => {
    const env = { SATCHEL_WEBUI_MAX_UPLOAD_MB: '5', SATCHEL_WEBUI_TOKEN: 'fixed' };
    const plan = guiServerPlan(loadConfig(env), {}, env, USER_DATA);
    expect(plan.config.maxUploadBytes).toBe(5 * 1024 * 1024);
    expect(plan.config.token).toBe('fixed');
  });
});

describe('desktop settings (desktop-settings.json)', () => {
  it('defaults: the tray on macOS and Windows, not Linux; the default shortcuts; not at login', () => {
    expect(defaultDesktopSettings('darwin')).toEqual({
      closeToTray: true,
      openAtLogin: false,
      shortcuts: { quickCapture: 'CommandOrControl+Shift+Space', pushToTalk: 'CommandOrControl+Shift+D' },
      pushToTalkTo: 'capture',
      openWithTo: 'inbox',
    });
    expect(defaultDesktopSettings('linux').closeToTray).toBe(false);
  });
  it('keeps each well-typed field; a wrong one falls back alone', () => {
    expect(parseDesktopSettings({ closeToTray: 'yes', openAtLogin: true, shortcuts: { quickCapture: 'Alt+K', pushToTalk: 7 } }, 'win32')).toEqual({
      closeToTray: true,
      openAtLogin: true,
      shortcuts: { quickCapture: 'Alt+K', pushToTalk: 'CommandOrControl+Shift+D' },
      pushToTalkTo: 'capture',
      openWithTo: 'inbox',
    });
    expect(parseDesktopSettings({ pushToTalkTo: 'clipboard', openWithTo: 'current' }, 'linux')).toMatchObject({ pushToTalkTo: 'clipboard', openWithTo: 'current' });
    expect(parseDesktopSettings({ pushToTalkTo: 'mail', openWithTo: 7 }, 'linux')).toMatchObject({ pushToTalkTo: 'capture', openWithTo: 'inbox' });
    expect(parseDesktopSettings({ shortcuts: { quickCapture: '' } }, 'linux').shortcuts.quickCapture).toBe('');
  });
  it('is saved and read back; a damaged file gives the defaults', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'satchel-desktop-settings-'));
    try {
      const settings = { ...defaultDesktopSettings('linux'), closeToTray: true };
      await saveDesktopSettings(dir, settings);
      expect(JSON.parse(readFileSync(path.join(dir, 'desktop-settings.json'), 'utf8'))).toEqual(settings);
      expect(await loadDesktopSettings(dir, 'linux')).toEqual(settings);
      writeFileSync(path.join(dir, 'desktop-settings.json'), '[');
      expect(await loadDesktopSettings(dir, 'linux')).toEqual(defaultDesktopSettings('linux'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
