import { describe, expect, it } from 'vitest';
import { claimSingleInstance, focusWindow, type FocusableWindow, type SingleInstanceApp } from './single-instance.js';

function fakeWindow(state: { minimized?: boolean; destroyed?: boolean } = {}) {
  const calls: string[] = [];
  const win: FocusableWindow = {
    isDestroyed: () => state.destroyed === true,
    isMinimized: () => state.minimized === true,
    restore: () => calls.push('restore'),
    show: () => calls.push('show'),
    focus: () => calls.push('focus'),
  };
  return { win, calls };
}

function fakeApp(gotLock: boolean) {
  const listeners: Array<(...args: unknown[]) => void> = [];
  const app = {
    requestSingleInstanceLock: () => gotLock,
    on(event: string, listener: (...args: unknown[]) => void) {
      if (event === 'second-instance') listeners.push(listener);
      return app;
    },
  };
  // Electron's App.on returns the App itself, which a fake cannot be.
  return { listeners, app: app as unknown as SingleInstanceApp };
}

describe('focusWindow', () => {
  it('restores a minimized window, then shows and focuses it', () => {
    const { win, calls } = fakeWindow({ minimized: true });
    focusWindow(win);
    expect(calls).toEqual(['restore', 'show', 'focus']);
  });
  it('does nothing without a live window', () => {
    const { win, calls } = fakeWindow({ destroyed: true });
    focusWindow(win);
    focusWindow(undefined);
    expect(calls).toEqual([]);
  });
});

describe('claimSingleInstance', () => {
  it('the first instance keeps running and focuses its window on a second launch', () => {
    const { app, listeners } = fakeApp(true);
    const { win, calls } = fakeWindow();
    expect(claimSingleInstance(app, () => win)).toBe(true);
    expect(listeners).toHaveLength(1);
    listeners[0]!();
    expect(calls).toEqual(['show', 'focus']);
  });
  it("a second launch's arguments and folder are handed on after the window is focused", () => {
    const { app, listeners } = fakeApp(true);
    const { win, calls } = fakeWindow();
    const asked: unknown[] = [];
    claimSingleInstance(app, () => win, (argv, cwd) => asked.push([calls.length, argv, cwd]));
    listeners[0]!({}, ['/opt/Satchel/satchel', 'notes.md'], '/home/u');
    expect(asked).toEqual([[2, ['/opt/Satchel/satchel', 'notes.md'], '/home/u']]);
  });
  it('a second instance is told to quit and registers nothing', () => {
    const { app, listeners } = fakeApp(false);
    expect(claimSingleInstance(app, () => undefined)).toBe(false);
    expect(listeners).toHaveLength(0);
  });
});
