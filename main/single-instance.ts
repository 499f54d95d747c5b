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

/** What a second launch asked for: its arguments and the folder it was started in (open-paths.ts reads them). */
export type SecondInstanceListener = (argv: string[], workingDirectory: string) => void;

/**
 * Take the lock. False means another instance holds it (and has been told to focus): quit now. A second
 * launch brings the window forward, then hands its arguments on (the files "Open with" names on Windows
 * and Linux arrive this way).
 */
export function claimSingleInstance(
  app: SingleInstanceApp,
  currentWindow: () => FocusableWindow | undefined,
  onSecondInstance?: SecondInstanceListener,
): boolean {
  if (!app.requestSingleInstanceLock()) return false;
  app.on('second-instance', (_event, argv, workingDirectory) => {
    focusWindow(currentWindow());
    onSecondInstance?.(Array.isArray(argv) ? argv : [], typeof workingDirectory === 'string' ? workingDirectory : '');
  });
  return true;
}
