// One desktop window per user: a second launch hands over to the first, which comes to the front.
import type { App, BrowserWindow } from 'electron';

// Electron's own signatures, so the compiler checks the glue against them.
export type FocusableWindow = Pick<BrowserWindow, 'isDestroyed' | 'isMinimized' | 'restore' | 'show' | 'focus'>;
export type SingleInstanceApp = Pick<App, 'requestSingleInstanceLock' | 'on'>;

export function focusWindow(window: FocusableWindow | undefined): void {
  if (!window || window.isDestroyed()) return;
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}

/** Take the lock. False means another instance holds it (and has been told to focus): quit now. */
export function claimSingleInstance(app: SingleInstanceApp, currentWindow: () => FocusableWindow | undefined): boolean {
  if (!app.requestSingleInstanceLock()) return false;
  app.on('second-instance', () => focusWindow(currentWindow()));
  return true;
}
