import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { appMenuTemplate, loginItemSupported, type AppMenuState } from './app-menu.js';

const STATE: AppMenuState = {
  platform: 'darwin',
  isPackaged: true,
  quickCaptureAccelerator: 'CommandOrControl+Shift+Space',
  dictateAccelerator: 'CommandOrControl+Shift+D',
  openAtLogin: false,
  closeToTray: true,
};
function actions() {
  const calls: string[] = [];
  return {
    calls,
    quickCapture: () => calls.push('capture'),
    dictate: () => calls.push('dictate'),
    setOpenAtLogin: (on: boolean) => calls.push(`login ${on}`),
    setCloseToTray: (on: boolean) => calls.push(`tray ${on}`),
    openSettings: () => calls.push('settings'),
  };
}
const submenu = (items: MenuItemConstructorOptions[], id: string) => items.find((i) => i.id === id)!.submenu as MenuItemConstructorOptions[];
const roles = (items: MenuItemConstructorOptions[]) => items.map((i) => i.role ?? i.id ?? i.type);

describe('appMenuTemplate', () => {
  it('macOS: the app menu first, and an Edit menu with the clipboard roles so Cmd+C / Cmd+V work', () => {
    const menu = appMenuTemplate(STATE, actions());
    expect(roles(menu)).toEqual(['appMenu', 'file', 'edit', 'view', 'windowMenu', 'help']);
    expect(roles(submenu(menu, 'edit'))).toEqual(['undo', 'redo', 'separator', 'cut', 'copy', 'paste', 'pasteAndMatchStyle', 'delete', 'separator', 'selectAll']);
  });
  it('Linux: no app menu, Quit in File, no Open at Login (Electron cannot set it there)', () => {
    const menu = appMenuTemplate({ ...STATE, platform: 'linux' }, actions());
    expect(roles(menu)).toEqual(['file', 'edit', 'view', 'windowMenu', 'help']);
    expect(roles(submenu(menu, 'file'))).toEqual(['quick-capture', 'dictate', 'separator', 'settings', 'close-to-tray', 'separator', 'quit']);
    expect(loginItemSupported('linux')).toBe(false);
  });
  it('Satchel items show their global shortcuts without registering them a second time', () => {
    const file = submenu(appMenuTemplate(STATE, actions()), 'file');
    expect(file[0]).toMatchObject({ label: 'Quick Capture', accelerator: 'CommandOrControl+Shift+Space', registerAccelerator: false });
    expect(file[1]).toMatchObject({ label: 'Dictate', accelerator: 'CommandOrControl+Shift+D', registerAccelerator: false });
    const off = submenu(appMenuTemplate({ ...STATE, dictateAccelerator: '' }, actions()), 'file');
    expect(off[1]!.accelerator).toBeUndefined();
  });
  it('the switches call their setters with the new state', () => {
    const a = actions();
    const file = submenu(appMenuTemplate(STATE, a), 'file');
    const item = (id: string) => file.find((i) => i.id === id)!;
    expect(item('open-at-login')).toMatchObject({ type: 'checkbox', checked: false });
    (item('open-at-login').click as (i: { checked: boolean }) => void)({ checked: true });
    (item('close-to-tray').click as (i: { checked: boolean }) => void)({ checked: false });
    (item('quick-capture').click as () => void)();
    expect(item('settings')).toMatchObject({ label: 'Settings…', accelerator: 'CommandOrControl+,' });
    (item('settings').click as () => void)();
    expect(a.calls).toEqual(['login true', 'tray false', 'capture', 'settings']);
  });
  it('developer tools only outside the packaged app', () => {
    expect(roles(submenu(appMenuTemplate(STATE, actions()), 'view'))).not.toContain('toggleDevTools');
    expect(roles(submenu(appMenuTemplate({ ...STATE, isPackaged: false }, actions()), 'view'))).toContain('toggleDevTools');
  });
});
