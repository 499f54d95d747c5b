import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeEach, describe, expect, it } from 'vitest';

// The preload is loaded the way Electron's sandbox loads it: compiled to CommonJS with the project's compiler
// options, then run in a function wrapper whose require() knows only 'electron'. A preload that needs any
// other module (which a sandboxed renderer cannot load) fails here.
const exposed = { calls: [] as Array<[string, unknown]>, invoked: [] as unknown[][], reply: undefined as unknown };
const fakeElectron = {
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.calls.push([key, api]) },
  ipcRenderer: {
    invoke: async (...args: unknown[]) => {
      exposed.invoked.push(args);
      return exposed.reply;
    },
  },
};

interface PreloadModule {
  PICK_FOLDER_CHANNEL: string;
  VERSION_ARG_PREFIX: string;
  versionFromArgv(argv: readonly string[]): string;
  createApi(invoke: (channel: string, ...args: unknown[]) => Promise<unknown>, argv: readonly string[]): {
    version: string;
    pickFolder(): Promise<string | null>;
    showInFolder(path: unknown): Promise<boolean>;
    desktopSettings(...args: unknown[]): Promise<unknown>;
    screenSources(...args: unknown[]): Promise<unknown[]>;
    captureScreen(id: unknown, ...rest: unknown[]): Promise<Uint8Array | null>;
    regionOverlay(...args: unknown[]): Promise<boolean>;
  };
  SHOW_IN_FOLDER_CHANNEL: string;
  DESKTOP_SETTINGS_CHANNEL: string;
  UNREADABLE_SETTINGS: string;
  SCREEN_SOURCES_CHANNEL: string;
  CAPTURE_SCREEN_CHANNEL: string;
  REGION_OVERLAY_CHANNEL: string;
}

function loadPreload(argv: string[]): PreloadModule {
  const file = fileURLToPath(new URL('./index.cts', import.meta.url));
  const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true },
  });
  const module = { exports: {} as Record<string, unknown> };
  const sandboxRequire = (name: string) => {
    if (name === 'electron') return fakeElectron;
    throw new Error(`sandboxed preload cannot require ${name}`);
  };
  new Function('require', 'process', 'exports', 'module', outputText)(sandboxRequire, { argv }, module.exports, module);
  return module.exports as unknown as PreloadModule;
}

const preload = loadPreload(['/electron', '--type=renderer', '--satchel-version=0.1.0']);

describe('preload on load', () => {
  it('exposes exactly window.satchel = { version, pickFolder, showInFolder, desktopSettings, screenSources, captureScreen, regionOverlay }', () => {
    expect(exposed.calls).toHaveLength(1);
    const [key, api] = exposed.calls[0]!;
    expect(key).toBe('satchel');
    expect(Object.keys(api as object).sort()).toEqual(['captureScreen', 'desktopSettings', 'pickFolder', 'regionOverlay', 'screenSources', 'showInFolder', 'version']);
    expect(Object.isFrozen(api)).toBe(true);
    expect((api as { version: string }).version).toBe('0.1.0');
  });
});

describe('createApi', () => {
  beforeEach(() => {
    exposed.invoked.length = 0;
  });
  const invoke = async (channel: string) => {
    exposed.invoked.push([channel]);
    return exposed.reply;
  };

  it('pickFolder invokes the one channel with no arguments, even when the page passes some', async () => {
    exposed.reply = '/home/me/project';
    const api = preload.createApi(invoke, []);
    await expect((api.pickFolder as (...a: unknown[]) => Promise<unknown>)('/etc', { x: 1 })).resolves.toBe(
      '/home/me/project',
    );
    expect(exposed.invoked).toEqual([['satchel:pick-folder']]);
  });
  it('pickFolder turns anything but a non-empty string into null', async () => {
    const api = preload.createApi(invoke, []);
    for (const reply of [null, undefined, '', 42, { path: '/x' }, ['/x']]) {
      exposed.reply = reply;
      await expect(api.pickFolder(), JSON.stringify(reply)).resolves.toBeNull();
    }
  });
  it('showInFolder sends one string path and answers true only when main says true', async () => {
    const calls: unknown[][] = [];
    const api = preload.createApi(async (...args) => {
      calls.push(args);
      return exposed.reply;
    }, []);
    exposed.reply = true;
    await expect((api.showInFolder as (...a: unknown[]) => Promise<boolean>)('/w/a.bin', 'extra')).resolves.toBe(true);
    exposed.reply = 'yes';
    await expect(api.showInFolder('/w/a.bin')).resolves.toBe(false);
    await expect(api.showInFolder({ path: '/w' })).resolves.toBe(false);
    expect(calls).toEqual([
      ['satchel:show-in-folder', '/w/a.bin'],
      ['satchel:show-in-folder', '/w/a.bin'],
    ]);
  });
  it('screenSources sends no arguments and passes on only well-formed entries, as plain strings', async () => {
    const calls: unknown[][] = [];
    const api = preload.createApi(async (...args) => {
      calls.push(args);
      return exposed.reply;
    }, []);
    exposed.reply = [
      { id: 'screen:0:0', name: 'Entire screen', kind: 'screen', thumbnail: 'data:image/png;base64,AA==', extra: { secret: 1 } },
      { id: 'window:1:0', name: 'Bad kind', kind: 'tab', thumbnail: '' },
      { id: 42, name: 'x', kind: 'window', thumbnail: '' },
      null,
    ];
    await expect(api.screenSources('ignored')).resolves.toEqual([{ id: 'screen:0:0', name: 'Entire screen', kind: 'screen', thumbnail: 'data:image/png;base64,AA==' }]);
    exposed.reply = { sources: [] };
    await expect(api.screenSources()).resolves.toEqual([]);
    expect(calls).toEqual([['satchel:screen-sources'], ['satchel:screen-sources']]);
  });
  it('captureScreen sends only one well-formed id string and gives back only bytes or null', async () => {
    const calls: unknown[][] = [];
    const api = preload.createApi(async (...args) => {
      calls.push(args);
      return exposed.reply;
    }, []);
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47]);
    exposed.reply = png;
    await expect(api.captureScreen('screen:0:0', { extra: true })).resolves.toBe(png);
    for (const bad of [{ id: 'screen:0:0' }, 'screen:0', '../x', 7]) await expect(api.captureScreen(bad)).resolves.toBeNull();
    for (const reply of [null, 'PNG', [1, 2], { byteLength: 4 }, new Uint8Array(0)]) {
      exposed.reply = reply;
      await expect(api.captureScreen('window:12:0'), String(reply)).resolves.toBeNull();
    }
    expect(calls[0]).toEqual(['satchel:capture-screen', 'screen:0:0']);
    expect(calls.every((c) => c.length === 2 && typeof c[1] === 'string')).toBe(true);
    expect(calls).toHaveLength(6);
  });
  it('regionOverlay sends a fresh {on: true, sourceId} for a screen or {on: false}, nothing else, and answers true only when main does', async () => {
    const calls: unknown[][] = [];
    const api = preload.createApi(async (...args) => {
      calls.push(args);
      return exposed.reply;
    }, []);
    exposed.reply = true;
    let reads = 0;
    const tricky = {
      on: true,
      get sourceId() {
        reads++;
        return reads === 1 ? 'screen:1:0' : 'window:9:0';
      },
      bounds: { x: 0, y: 0, width: 99999, height: 99999 },
    };
    await expect(api.regionOverlay(tricky, 'extra')).resolves.toBe(true);
    await expect(api.regionOverlay({ on: false, sourceId: 'screen:1:0', bounds: {} })).resolves.toBe(true);
    expect(calls).toEqual([
      ['satchel:region-overlay', { on: true, sourceId: 'screen:1:0' }],
      ['satchel:region-overlay', { on: false }],
    ]);
    for (const bad of [{ on: true, sourceId: 'window:9:0' }, { on: true }, { on: 'true', sourceId: 'screen:1:0' }, { sourceId: 'screen:1:0' }, 'screen:1:0', null, [true]]) {
      await expect(api.regionOverlay(bad), JSON.stringify(bad)).resolves.toBe(false);
    }
    expect(calls, 'main was not asked').toHaveLength(2);
    for (const reply of [false, 'true', 1, { on: true }, null]) {
      exposed.reply = reply;
      await expect(api.regionOverlay({ on: false }), String(reply)).resolves.toBe(false);
    }
  });
  it('the exposed pickFolder goes through ipcRenderer.invoke', async () => {
    exposed.reply = '/chosen';
    const api = exposed.calls[0]![1] as { pickFolder(): Promise<string | null> };
    await expect(api.pickFolder()).resolves.toBe('/chosen');
    expect(exposed.invoked).toEqual([['satchel:pick-folder']]);
  });
});

describe('desktopSettings', () => {
  const view = {
    settings: { closeToTray: true, openAtLogin: false, shortcuts: { quickCapture: 'Alt+Space', pushToTalk: '' }, pushToTalkTo: 'clipboard', openWithTo: 'inbox' },
    defaults: { quickCapture: 'CommandOrControl+Shift+Space', pushToTalk: 'CommandOrControl+Shift+D' },
    problems: ['Quick capture: Alt+Space is in use by another application; choose another shortcut in Settings'],
    openAtLoginSupported: false,
  };
  function recording(reply: unknown) {
    const calls: unknown[][] = [];
    const api = preload.createApi(async (...args) => {
      calls.push(args);
      return reply;
    }, []);
    return { calls, api };
  }

  it('with no argument reads: the channel alone, and the view comes back', async () => {
    const { calls, api } = recording(view);
    await expect(api.desktopSettings()).resolves.toEqual(view);
    expect(calls).toEqual([['satchel:desktop-settings']]);
  });
  it('sends one plain object of the known fields only; extra arguments, keys, wrong types and getters stay behind', async () => {
    const { calls, api } = recording(view);
    let getterRead = 0;
    const change = {
      shortcuts: { quickCapture: 'Alt+Space', evil: 'x', pushToTalk: 42 },
      closeToTray: false,
      openAtLogin: 'yes',
      pushToTalkTo: 'message',
      __proto__: { openWithTo: 'current' },
      get openWithTo() {
        getterRead += 1;
        return 'current';
      },
      extra: { deep: true },
    };
    await api.desktopSettings(change, 'second', { third: true });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toEqual(['satchel:desktop-settings', { shortcuts: { quickCapture: 'Alt+Space' }, closeToTray: false, pushToTalkTo: 'message', openWithTo: 'current' }]);
    const sent = calls[0]![1] as object;
    expect(Object.getPrototypeOf(sent)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(sent, 'openWithTo')).toHaveProperty('value', 'current');
    expect(getterRead).toBe(1);
  });
  it('does not call main for a change that is not an object', async () => {
    const { calls, api } = recording(view);
    for (const bad of [null, 'closeToTray', 42, ['x'], true]) {
      await expect(api.desktopSettings(bad), JSON.stringify(bad)).resolves.toEqual({ error: 'Settings must be an object' });
    }
    expect(calls).toEqual([]);
  });
  it("passes main's {error} sentence on, and nothing else with it", async () => {
    const { api } = recording({ error: 'pushToTalkTo must be one of capture, clipboard, message', stack: 'secret' });
    await expect(api.desktopSettings({ pushToTalkTo: 'fax' })).resolves.toEqual({ error: 'pushToTalkTo must be one of capture, clipboard, message' });
  });
  it('rebuilds the view field by field: extra fields are dropped', async () => {
    const { api } = recording({ ...view, settings: { ...view.settings, token: 'x' }, extra: 1 });
    await expect(api.desktopSettings()).resolves.toEqual(view);
  });
  it('turns a malformed answer into the one error sentence', async () => {
    const bad = [
      null,
      'view',
      { ...view, problems: 'none' },
      { ...view, problems: [1] },
      { ...view, openAtLoginSupported: 'no' },
      { ...view, defaults: { quickCapture: 'A' } },
      { ...view, settings: { ...view.settings, shortcuts: { quickCapture: 'A' } } },
      { ...view, settings: { ...view.settings, closeToTray: 1 } },
      { ...view, settings: { ...view.settings, openWithTo: null } },
    ];
    for (const reply of bad) {
      const { api } = recording(reply);
      await expect(api.desktopSettings(), JSON.stringify(reply)).resolves.toEqual({ error: preload.UNREADABLE_SETTINGS });
    }
  });
});

describe('versionFromArgv', () => {
  it('reads the version main passed through additionalArguments', () => {
    expect(preload.versionFromArgv(['/electron', '--type=renderer', '--satchel-version=0.1.0'])).toBe('0.1.0');
    expect(preload.createApi(async () => null, ['--satchel-version=1.2.3-rc.1']).version).toBe('1.2.3-rc.1');
  });
  it('is empty when absent or malformed', () => {
    expect(preload.versionFromArgv([])).toBe('');
    expect(preload.versionFromArgv(['--satchel-version='])).toBe('');
    expect(preload.versionFromArgv(['--satchel-version=<script>'])).toBe('');
  });
});

describe('constants shared with main (the sandboxed preload cannot import them)', () => {
  it('match main/pick-folder.ts and main/window-options.ts', async () => {
    const { PICK_FOLDER_CHANNEL } = await import('../main/pick-folder.js');
    const { SHOW_IN_FOLDER_CHANNEL } = await import('../main/show-in-folder.js');
    expect(preload.SHOW_IN_FOLDER_CHANNEL).toBe(SHOW_IN_FOLDER_CHANNEL);
    const { DESKTOP_SETTINGS_CHANNEL } = await import('../main/desktop-settings-ipc.js');
    expect(preload.DESKTOP_SETTINGS_CHANNEL).toBe(DESKTOP_SETTINGS_CHANNEL);
    // The fields the preload copies are the ones main accepts: a full change of them passes main's check.
    const { parseSettingsChange } = await import('../main/desktop-settings-ipc.js');
    const { defaultDesktopSettings } = await import('../main/gui-config.js');
    const { calls, api } = { calls: [] as unknown[][], api: preload.createApi(async (...a) => (calls.push(a), null), []) };
    const full = { closeToTray: true, openAtLogin: true, pushToTalkTo: 'message', openWithTo: 'current', shortcuts: { quickCapture: 'Alt+Q', pushToTalk: 'Alt+W' } };
    await api.desktopSettings(full);
    expect(calls[0]![1]).toEqual(full);
    expect(parseSettingsChange(calls[0]![1], defaultDesktopSettings('linux'))).toEqual({ change: full });
    const screen = await import('../main/screen-capture.js');
    expect([preload.SCREEN_SOURCES_CHANNEL, preload.CAPTURE_SCREEN_CHANNEL]).toEqual([screen.SCREEN_SOURCES_CHANNEL, screen.CAPTURE_SCREEN_CHANNEL]);
    const { REGION_OVERLAY_CHANNEL, overlayRequest } = await import('../main/region-overlay.js');
    expect(preload.REGION_OVERLAY_CHANNEL).toBe(REGION_OVERLAY_CHANNEL);
    // What the preload sends is what main accepts.
    const sent: unknown[][] = [];
    const overlayApi = preload.createApi(async (...a) => (sent.push(a), true), []);
    await overlayApi.regionOverlay({ on: true, sourceId: 'screen:3:0' });
    await overlayApi.regionOverlay({ on: false });
    expect(sent.map((c) => overlayRequest(c.slice(1)))).toEqual([{ on: true, sourceId: 'screen:3:0' }, { on: false }]);
    const { VERSION_ARG_PREFIX, VERSION_PATTERN } = await import('../main/window-options.js');
    expect(preload.PICK_FOLDER_CHANNEL).toBe(PICK_FOLDER_CHANNEL);
    expect(preload.VERSION_ARG_PREFIX).toBe(VERSION_ARG_PREFIX);
    expect(preload.versionFromArgv([`${VERSION_ARG_PREFIX}9.9.9`])).toBe('9.9.9');
    expect(VERSION_PATTERN.test('9.9.9')).toBe(true);
  });
});
