// The native application menu: the standard roles (on macOS the app menu, and an Edit menu, without which
// Cmd+C / Cmd+V do nothing in the window), Satchel's own items with their global shortcuts shown, and the
// desktop settings that are switches: "Open at login" and "Keep running in the tray when closed".
import type { MenuItemConstructorOptions } from 'electron';

export interface AppMenuState {
  platform: NodeJS.Platform;
  /** Developer tools only in a development run (`electron .`), never in the packaged app. */
  isPackaged: boolean;
  quickCaptureAccelerator: string;
  dictateAccelerator: string;
  openAtLogin: boolean;
  closeToTray: boolean;
}

export interface AppMenuActions {
  quickCapture(): void;
  dictate(): void;
  setOpenAtLogin(on: boolean): void;
  setCloseToTray(on: boolean): void;
  /** The window's Settings dialog (opened through the address: tray-menu.ts settingsUrl). */
  openSettings(): void;
}

/** app.setLoginItemSettings works on macOS and Windows only (Electron's docs); elsewhere the item is not shown. */
export function loginItemSupported(platform: NodeJS.Platform): boolean {
  return platform === 'darwin' || platform === 'win32';
}

/**
 * A global shortcut shown beside a menu item. registerAccelerator false: the global registration already
 * handles the keys, and a second, window-only registration of the same keys would fire the action twice.
 */
function shown(accelerator: string): Pick<MenuItemConstructorOptions, 'accelerator' | 'registerAccelerator'> {
  return accelerator ? { accelerator, registerAccelerator: false } : {};
}

export function appMenuTemplate(state: AppMenuState, actions: AppMenuActions): MenuItemConstructorOptions[] {
  const mac = state.platform === 'darwin';
  const settings: MenuItemConstructorOptions[] = [
    ...(loginItemSupported(state.platform)
      ? [{ id: 'open-at-login', label: 'Open at Login', type: 'checkbox' as const, checked: state.openAtLogin, click: (item: { checked: boolean }) => actions.setOpenAtLogin(item.checked) }]
      : []),
    { id: 'close-to-tray', label: 'Keep Running in the Tray When Closed', type: 'checkbox', checked: state.closeToTray, click: (item: { checked: boolean }) => actions.setCloseToTray(item.checked) },
  ];
  const satchelItems: MenuItemConstructorOptions[] = [
    { id: 'quick-capture', label: 'Quick Capture', ...shown(state.quickCaptureAccelerator), click: () => actions.quickCapture() },
    { id: 'dictate', label: 'Dictate', ...shown(state.dictateAccelerator), click: () => actions.dictate() },
  ];
  return [
    ...(mac ? [{ role: 'appMenu' as const }] : []),
    {
      id: 'file',
      label: 'File',
      submenu: [
        ...satchelItems,
        { type: 'separator' },
        // The usual place and keys for an app's settings (macOS puts them under the app's name; File works too).
        { id: 'settings', label: 'Settings…', accelerator: 'CommandOrControl+,', click: () => actions.openSettings() },
        ...settings,
        { type: 'separator' },
        mac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    {
      id: 'edit',
      label: 'Edit',
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        ...(mac ? [{ role: 'pasteAndMatchStyle' as const }] : []),
        { role: 'delete' },
        { type: 'separator' },
        { role: 'selectAll' },
      ],
    },
    {
      id: 'view',
      label: 'View',
      submenu: [
        { role: 'reload' },
        ...(state.isPackaged ? [] : [{ role: 'toggleDevTools' as const }]),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
    { role: 'help', submenu: [{ role: 'about', label: 'About Satchel' }] },
  ];
}
