import { describe, expect, it } from 'vitest';
import { captureUrl, captureWindowOptions, VERSION_ARG_PREFIX, windowOptions } from './window-options.js';

describe('windowOptions', () => {
  const options = windowOptions({ preloadPath: '/app/dist/preload/index.cjs', version: '0.1.0' });
  const prefs = options.webPreferences!;

  it('isolates and sandboxes the page, with no Node anywhere', () => {
    expect(prefs.contextIsolation).toBe(true);
    expect(prefs.sandbox).toBe(true);
    expect(prefs.nodeIntegration).toBe(false);
    expect(prefs.nodeIntegrationInWorker).toBe(false);
    expect(prefs.nodeIntegrationInSubFrames).toBe(false);
  });
  it('keeps web security on and the risky extras off', () => {
    expect(prefs.webSecurity).toBe(true);
    expect(prefs.allowRunningInsecureContent).toBe(false);
    expect(prefs.webviewTag).toBe(false);
    expect(prefs.experimentalFeatures).toBe(false);
    expect(prefs.navigateOnDragDrop).toBe(false);
    expect(prefs).not.toHaveProperty('enableBlinkFeatures');
  });
  it('loads the given preload and passes the version as an argument', () => {
    expect(prefs.preload).toBe('/app/dist/preload/index.cjs');
    expect(prefs.additionalArguments).toEqual([`${VERSION_ARG_PREFIX}0.1.0`]);
    expect(options.show).toBe(false);
    expect(options.title).toBe('Satchel');
  });
  it('drops a version that is not version-shaped rather than passing odd text to the renderer', () => {
    const odd = windowOptions({ preloadPath: '/p.cjs', version: '1.0 --inspect' }).webPreferences!;
    expect(odd.additionalArguments).toEqual([]);
    const pre = windowOptions({ preloadPath: '/p.cjs', version: '1.2.3-beta.1+build.5' }).webPreferences!;
    expect(pre.additionalArguments).toEqual([`${VERSION_ARG_PREFIX}1.2.3-beta.1+build.5`]);
  });
  it('returns a fresh object each time (callers may adjust it)', () => {
    const a = windowOptions({ preloadPath: '/p.cjs', version: '1' });
    const b = windowOptions({ preloadPath: '/p.cjs', version: '1' });
    expect(a).not.toBe(b);
    expect(a.webPreferences).not.toBe(b.webPreferences);
  });
});

describe('captureWindowOptions', () => {
  const input = { preloadPath: '/app/dist/preload/index.cjs', version: '0.1.0' };
  it('is small, always on top and out of the taskbar, shown only when ready', () => {
    expect(captureWindowOptions(input)).toMatchObject({ width: 560, height: 420, alwaysOnTop: true, skipTaskbar: true, show: false, title: 'Quick capture' });
  });
  it("has exactly the main window's web preferences (sandbox, isolation, preload, no Node)", () => {
    expect(captureWindowOptions(input).webPreferences).toEqual(windowOptions(input).webPreferences);
  });
});

describe('captureUrl', () => {
  it('quick capture, dictation, and a later push-to-talk press as a fragment only (no reload)', () => {
    expect(captureUrl('http://127.0.0.1:4000', false)).toBe('http://127.0.0.1:4000/capture');
    expect(captureUrl('http://127.0.0.1:4000', true)).toBe('http://127.0.0.1:4000/capture?dictate=1');
    expect(captureUrl('http://127.0.0.1:4000', true, 3)).toBe('http://127.0.0.1:4000/capture?dictate=1#ptt=3');
  });
  it('dictation carries where its text goes (pushToTalkTo); into the field is the default and adds nothing', () => {
    expect(captureUrl('http://127.0.0.1:4000', true, 0, 'capture')).toBe('http://127.0.0.1:4000/capture?dictate=1');
    expect(captureUrl('http://127.0.0.1:4000', true, 0, 'clipboard')).toBe('http://127.0.0.1:4000/capture?dictate=1&then=clipboard');
    expect(captureUrl('http://127.0.0.1:4000', true, 2, 'message')).toBe('http://127.0.0.1:4000/capture?dictate=1&then=message#ptt=2');
    // Quick capture by its own shortcut is the page to type in, whatever push-to-talk is set to.
    expect(captureUrl('http://127.0.0.1:4000', false, 0, 'clipboard')).toBe('http://127.0.0.1:4000/capture');
  });
});
