// One desktop window per user: a second launch hands over to the first, which comes to the front.

export interface FocusableWindow {
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  show(): void;
  focus(): void;
}

export interface SingleInstanceApp {
  requestSingleInstanceLock(): boolean;
  on(event: 'second-instance', listener: () => void): unknown;
}

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
