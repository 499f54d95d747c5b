import { describe, expect, it } from 'vitest';
import { createDesktopSettingsHandler, parseSettingsChange } from './desktop-settings-ipc.js';
import { defaultDesktopSettings, type DesktopSettings } from './gui-config.js';
import { registerShortcuts, type ShortcutStatus } from './shortcuts.js';

const ORIGIN = 'http://127.0.0.1:4100';
const fromApp = { senderFrame: { url: `${ORIGIN}/`, parent: null } };

function setup(taken: string[] = []) {
  let settings: DesktopSettings = defaultDesktopSettings('linux');
  const registry = { register: (a: string) => !taken.includes(a), unregister: () => {} };
  const handlers = { quickCapture: () => {}, pushToTalk: () => {} };
  let statuses: ShortcutStatus[] = registerShortcuts(registry, settings.shortcuts, 'linux', handlers);
  const handler = createDesktopSettingsHandler({
    appOrigin: ORIGIN,
    platform: 'linux',
    current: () => settings,
    statuses: () => statuses,
    update: async (change) => {
      settings = { ...settings, ...change };
      statuses = registerShortcuts(registry, settings.shortcuts, 'linux', handlers, statuses);
    },
  });
  return { handler, settings: () => settings };
}

describe('the desktop settings IPC', () => {
  it('shows the settings, the defaults, and the sentence for a shortcut another application holds', async () => {
    const { handler } = setup(['CommandOrControl+Shift+Space']);
    expect(await handler(fromApp)).toEqual({
      settings: defaultDesktopSettings('linux'),
      defaults: { quickCapture: 'CommandOrControl+Shift+Space', pushToTalk: 'CommandOrControl+Shift+D' },
      problems: ['Quick capture: CommandOrControl+Shift+Space is in use by another application; choose another shortcut in Settings'],
      openAtLoginSupported: false,
    });
  });
  it('a changed shortcut is applied and its problem goes away', async () => {
    const { handler, settings } = setup(['CommandOrControl+Shift+Space']);
    const view = await handler(fromApp, { shortcuts: { quickCapture: 'Alt+Shift+Space' } });
    expect(view).toMatchObject({ problems: [], settings: { shortcuts: { quickCapture: 'Alt+Shift+Space', pushToTalk: 'CommandOrControl+Shift+D' } } });
    expect(settings().shortcuts.quickCapture).toBe('Alt+Shift+Space');
  });
  it('refuses another page, and a malformed change without saving anything', async () => {
    const { handler, settings } = setup();
    await expect(handler({ senderFrame: { url: 'https://example.com/', parent: null } })).rejects.toThrow('untrusted sender');
    await expect(handler({ senderFrame: { url: `${ORIGIN}/`, parent: {} } })).rejects.toThrow('untrusted sender');
    expect(await handler(fromApp, { closeToTray: 'yes' })).toEqual({ error: 'closeToTray must be true or false' });
    expect(await handler(fromApp, { shortcuts: { evil: 'Alt+K' } })).toEqual({ error: 'Unknown shortcut: evil' });
    expect(await handler(fromApp, { theme: 'dark' })).toEqual({ error: 'Unknown setting: theme' });
    expect(await handler(fromApp, [])).toEqual({ error: 'Settings must be an object' });
    expect(settings()).toEqual(defaultDesktopSettings('linux'));
  });
  it('parseSettingsChange keeps the other shortcut as it is', () => {
    expect(parseSettingsChange({ shortcuts: { pushToTalk: '' } }, defaultDesktopSettings('darwin'))).toEqual({
      change: { shortcuts: { quickCapture: 'CommandOrControl+Shift+Space', pushToTalk: '' } },
    });
  });
  it('parseSettingsChange takes the destinations by name and refuses any other', () => {
    const current = defaultDesktopSettings('linux');
    expect(parseSettingsChange({ pushToTalkTo: 'message', openWithTo: 'current' }, current)).toEqual({ change: { pushToTalkTo: 'message', openWithTo: 'current' } });
    expect(parseSettingsChange({ pushToTalkTo: 'email' }, current)).toEqual({ error: 'pushToTalkTo must be one of capture, clipboard, message' });
    expect(parseSettingsChange({ openWithTo: true }, current)).toEqual({ error: 'openWithTo must be one of inbox, current' });
  });
});
