import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import {
  conversationUrl,
  settingsUrl,
  decideClose,
  defaultCloseToTray,
  MAX_TRAY_RECENT,
  recentConversations,
  replyNotification,
  shouldNotifyReply,
  trayMenuTemplate,
  type TrayState,
} from './tray-menu.js';

function actions() {
  const calls: string[] = [];
  return {
    calls,
    quickCapture: () => calls.push('capture'),
    dictate: () => calls.push('dictate'),
    openConversation: (id: string) => calls.push(`open ${id}`),
    openWindow: () => calls.push('window'),
    openSettings: () => calls.push('settings'),
    pauseWatching: () => calls.push('pause'),
    resumeWatching: () => calls.push('resume'),
    quit: () => calls.push('quit'),
  };
}
const labels = (items: MenuItemConstructorOptions[]) => items.map((i) => (i.type === 'separator' ? '---' : i.label));
const click = (items: MenuItemConstructorOptions[], id: string) => (items.find((i) => i.id === id)!.click as () => void)();

const STATE: TrayState = {
  recent: [{ session_id: 's1', title: 'Quarterly report & notes' }, { session_id: 's2', title: '' }],
  watching: 'watching',
  quickCaptureAccelerator: 'CommandOrControl+Shift+Space',
  dictateAccelerator: '',
};

describe('trayMenuTemplate', () => {
  it('lists capture, dictate, the recent conversations, open, pause watching, quit', () => {
    const items = trayMenuTemplate(STATE, actions());
    expect(labels(items)).toEqual([
      'Quick capture', 'Dictate', '---',
      'Recent conversations', 'Quarterly report && notes', 'Untitled conversation', '---',
      'Open Satchel', 'Settings…', 'Pause watching', '---', 'Quit Satchel',
    ]);
    expect(items[0]!.accelerator).toBe('CommandOrControl+Shift+Space');
    expect(items[1]!.accelerator).toBeUndefined();
  });
  it('each item calls its action; a recent one opens that conversation', () => {
    const a = actions();
    const items = trayMenuTemplate(STATE, a);
    for (const id of ['quick-capture', 'dictate', 'recent:s2', 'open', 'settings', 'pause-watching', 'quit']) click(items, id);
    expect(a.calls).toEqual(['capture', 'dictate', 'open s2', 'window', 'settings', 'pause', 'quit']);
  });
  it('paused shows Resume; no folders and no conversations show neither', () => {
    const a = actions();
    const paused = trayMenuTemplate({ ...STATE, watching: 'paused' }, a);
    click(paused, 'resume-watching');
    expect(a.calls).toEqual(['resume']);
    expect(labels(trayMenuTemplate({ ...STATE, watching: 'none', recent: [] }, a))).toEqual(['Quick capture', 'Dictate', '---', 'Open Satchel', 'Settings…', '---', 'Quit Satchel']);
  });
});

describe('recentConversations', () => {
  it(`keeps the newest ${MAX_TRAY_RECENT} that are not archived and have a proper id`, () => {
    const sessions = [
      { session_id: 'a', title: 'A', archived: true },
      { session_id: '../x', title: 'bad id' },
      null,
      ...Array.from({ length: 8 }, (_, i) => ({ session_id: `s${i}`, title: `T${i}`, archived: false })),
    ];
    expect(recentConversations({ sessions })).toEqual(Array.from({ length: MAX_TRAY_RECENT }, (_, i) => ({ session_id: `s${i}`, title: `T${i}` })));
    expect(recentConversations({ error: 'Unauthorized' })).toEqual([]);
    expect(recentConversations(null)).toEqual([]);
  });
  it('a long title is cut in the menu', () => {
    const items = trayMenuTemplate({ ...STATE, recent: [{ session_id: 'x', title: 'word '.repeat(30) }] }, actions());
    const label = items.find((i) => i.id === 'recent:x')!.label!;
    expect(label).toHaveLength(48);
    expect(label.endsWith('…')).toBe(true);
  });
});

describe('closing and notifying', () => {
  it('close keeps running in the tray by default on macOS and Windows, not on Linux', () => {
    expect([defaultCloseToTray('darwin'), defaultCloseToTray('win32'), defaultCloseToTray('linux')]).toEqual([true, true, false]);
  });
  it('the close handler hides only with the setting on, a tray to come back through, and no quit under way', () => {
    expect(decideClose({ closeToTray: true, quitting: false, hasTray: true })).toBe('hide');
    expect(decideClose({ closeToTray: true, quitting: true, hasTray: true })).toBe('close');
    expect(decideClose({ closeToTray: true, quitting: false, hasTray: false })).toBe('close');
    expect(decideClose({ closeToTray: false, quitting: false, hasTray: true })).toBe('close');
  });
  it('a finished reply notifies only when the person is not looking at the window', () => {
    const base = { supported: true, windowVisible: true, windowFocused: true, windowMinimized: false };
    expect(shouldNotifyReply(base)).toBe(false);
    expect(shouldNotifyReply({ ...base, windowVisible: false })).toBe(true);
    expect(shouldNotifyReply({ ...base, windowFocused: false })).toBe(true);
    expect(shouldNotifyReply({ ...base, windowMinimized: true })).toBe(true);
    expect(shouldNotifyReply({ ...base, windowVisible: false, supported: false })).toBe(false);
  });
  it('the notification names the conversation, never the reply; its click target is the #s= address', () => {
    expect(replyNotification('Tax & receipts')).toEqual({ title: 'Tax & receipts', body: 'The reply is ready. Click to open the conversation.' });
    expect(conversationUrl('http://127.0.0.1:4000', 'abc-123')).toBe('http://127.0.0.1:4000/#s=abc-123');
    expect(conversationUrl('http://127.0.0.1:4000', 'a/../b')).toBeUndefined();
    expect(settingsUrl('http://127.0.0.1:4000')).toBe('http://127.0.0.1:4000/#settings');
  });
});
