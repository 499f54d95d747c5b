// startElectron against a fake 'electron' module: the closest check of the glue this machine allows (the
// Electron binary is not installed here, and e2e/electron.spec.ts skips without it). The fake keeps the
// rules of Electron that the glue's order depends on: nothing window- or session-related before 'ready',
// a cookie counts once cookies.set has resolved, and 'web-contents-created' fires inside the BrowserWindow
// constructor, so listeners added after it miss that window.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { SecretStore } from '../server/agent/secret-store.js';
import { claimStateFolder, type StateLock } from '../server/process/state-lock.js';
import { OPENED_ELSEWHERE } from './running-instance.js';
import { defaultChildHost, setHostLauncher, startOffThread } from '../server/workspace/off-thread.js';

const APP_PORT = 41234;
const APP_ORIGIN = `http://127.0.0.1:${APP_PORT}`;
const TOKEN = 'fake-token-0123456789';
const EXTERNAL = 'https://example.com/docs';

const fake = vi.hoisted(() => {
  type Listener = (...args: any[]) => unknown;

  class Emitter {
    private listeners = new Map<string, Array<{ fn: Listener; once: boolean }>>();
    on(event: string, fn: Listener) {
      this.listeners.set(event, [...(this.listeners.get(event) ?? []), { fn, once: false }]);
      return this;
    }
    once(event: string, fn: Listener) {
      this.listeners.set(event, [...(this.listeners.get(event) ?? []), { fn, once: true }]);
      return this;
    }
    emit(event: string, ...args: unknown[]): boolean {
      const all = this.listeners.get(event) ?? [];
      this.listeners.set(event, all.filter((l) => !l.once));
      for (const l of all) l.fn(...args);
      return all.length > 0;
    }
    removeListener(event: string, fn: Listener) {
      this.listeners.set(event, (this.listeners.get(event) ?? []).filter((l) => l.fn !== fn));
      return this;
    }
    listenerCount(event: string): number {
      return this.listeners.get(event)?.length ?? 0;
    }
    removeAllListeners() {
      this.listeners.clear();
    }
  }

  function preventable(extra: object = {}) {
    const event = { defaultPrevented: false, preventDefault: () => (event.defaultPrevented = true), ...extra };
    return event;
  }

  interface StoredCookie {
    url: string;
    name: string;
    value: string;
    httpOnly?: boolean;
    sameSite?: string;
  }

  /** What the page would meet when the window loads a URL. */
  interface LoadSnapshot {
    url: string;
    cookies: StoredCookie[];
    requestHandler?: Listener;
    checkHandler?: Listener;
  }

  const state = {
    ready: false,
    gotLock: true,
    encryptionAvailable: true,
    userData: '',
    /** What the glue handed to startServer, each time. */
    serverConfigs: [] as Array<{ port: number; stateDir: string }>,
    /** The parts the glue swapped in (server/app.ts AppOptions), beside each config. */
    serverOptions: [] as Array<{ agentKeyStore?: SecretStore; mcpTokenStore?: SecretStore; agent?: { onReplyFinished?: (r: object) => void } }>,
    /** Everything the glue did, in order. */
    log: [] as string[],
    cookies: [] as StoredCookie[],
    requestHandler: undefined as Listener | undefined,
    checkHandler: undefined as Listener | undefined,
    windows: [] as FakeWindow[],
    contents: [] as FakeWebContents[],
    loads: [] as LoadSnapshot[],
    openedExternally: [] as string[],
    exitCode: undefined as number | undefined,
    quitted: false,
    resolveReady: (): void => {},
    /** Global shortcuts held by other applications: register answers false for these. */
    takenShortcuts: [] as string[],
    shortcuts: new Map<string, () => void>(),
    trays: [] as FakeTray[],
    appMenu: undefined as any[] | undefined,
    notifications: [] as FakeNotification[],
    loginItem: undefined as { openAtLogin: boolean } | undefined,
    displays: [{ id: 1, bounds: { x: 0, y: 0, width: 1920, height: 1080 }, workArea: { x: 0, y: 0, width: 1920, height: 1040 }, size: { width: 1920, height: 1080 }, scaleFactor: 2 }],
    iconMissing: false,
    /** What desktopCapturer.getSources was asked, and the screens and windows it has. */
    capturerCalls: [] as Array<{ types: string[]; thumbnailSize: { width: number; height: number } }>,
    capturerSources: [] as Array<{ id: string; name: string; display_id: string }>,
    /** The state folder's lock handed to each startServer (undefined: none). */
    locks: [] as Array<{ release(): Promise<void> } | undefined>,
  };
  let readyPromise = Promise.resolve();

  const app = Object.assign(new Emitter(), {
    isPackaged: false,
    commandLine: {
      appendSwitch(name: string, value?: string) {
        // Electron ignores switches appended after 'ready'; the log order shows whether that happened.
        state.log.push(value === undefined ? `switch ${name}` : `switch ${name}=${value}`);
      },
    },
    enableSandbox() {
      if (state.ready) throw new Error('app.enableSandbox() can only be called before app is ready');
      state.log.push('enableSandbox');
    },
    disableHardwareAcceleration() {
      if (state.ready) throw new Error('app.disableHardwareAcceleration() can only be called before app is ready');
      state.log.push('disableHardwareAcceleration');
    },
    whenReady: () => readyPromise,
    requestSingleInstanceLock() {
      state.log.push('requestSingleInstanceLock');
      return state.gotLock;
    },
    getPath(name: string) {
      if (name !== 'userData') throw new Error(`unexpected getPath(${name})`);
      return state.userData;
    },
    getAppPath: () => '/app',
    setLoginItemSettings(settings: { openAtLogin: boolean }) {
      state.loginItem = settings;
    },
    getVersion: () => '1.2.3',
    quit() {
      state.log.push('quit');
      // As in Electron: before-quit first (windows are then closed), will-quit after.
      app.emit('before-quit', preventable());
      const event = preventable();
      app.emit('will-quit', event);
      if (!event.defaultPrevented) state.quitted = true;
    },
    exit(code = 0) {
      state.log.push(`exit ${code}`);
      state.exitCode = code;
    },
  });

  class FakeWebContents extends Emitter {
    windowOpenHandler: ((details: { url: string }) => { action: string; overrideBrowserWindowOptions?: object }) | undefined;
    constructor() {
      super();
      state.contents.push(this);
      // As in Electron's WebContents._init: synchronously, while the owner is still being constructed.
      app.emit('web-contents-created', preventable(), this);
    }
    setWindowOpenHandler(handler: FakeWebContents['windowOpenHandler']) {
      this.windowOpenHandler = handler;
    }
    /** A page-initiated navigation; true when a listener prevented it. */
    navigate(url: string): boolean {
      const event = preventable({ url });
      this.emit('will-navigate', event, url);
      return event.defaultPrevented;
    }
    /** window.open from the page: without a handler Electron opens any URL in a new window. */
    open(url: string): FakeWindow | undefined {
      const response = this.windowOpenHandler?.({ url }) ?? { action: 'allow' };
      return response.action === 'allow' ? new FakeWindow(response.overrideBrowserWindowOptions ?? {}) : undefined;
    }
  }

  class FakeWindow extends Emitter {
    readonly webContents: FakeWebContents;
    minimized = false;
    destroyed = false;
    constructor(readonly options: object) {
      super();
      if (!state.ready) throw new Error('Cannot create BrowserWindow before app is ready');
      state.log.push('new BrowserWindow');
      state.windows.push(this);
      this.webContents = new FakeWebContents();
    }
    loadURL(url: string) {
      state.log.push('loadURL');
      state.loads.push({
        url,
        cookies: state.cookies.filter((c) => new URL(c.url).origin === new URL(url).origin),
        requestHandler: state.requestHandler,
        checkHandler: state.checkHandler,
      });
      return Promise.resolve();
    }
    visible = false;
    focused = false;
    maximized = false;
    isDestroyed = () => this.destroyed;
    isMinimized = () => this.minimized;
    isVisible = () => this.visible;
    isFocused = () => this.focused;
    isMaximized = () => this.maximized;
    maximize = () => {
      this.maximized = true;
      state.log.push('window.maximize');
    };
    getNormalBounds = () => ({ ...this.bounds });
    get bounds() {
      const o = this.options as { x?: number; y?: number; width?: number; height?: number };
      return this.moved ?? { x: o.x ?? 0, y: o.y ?? 0, width: o.width ?? 800, height: o.height ?? 600 };
    }
    moved: { x: number; y: number; width: number; height: number } | undefined;
    getBounds = () => ({ ...this.bounds });
    setBounds = (b: { x: number; y: number; width: number; height: number }) => {
      this.moved = { ...b };
      state.log.push(`window.setBounds ${b.x},${b.y} ${b.width}x${b.height}`);
    };
    /** The fake window has no frame: its content is its bounds. */
    setContentBounds = (b: { x: number; y: number; width: number; height: number }) => {
      this.moved = { ...b };
      state.log.push(`window.setContentBounds ${b.x},${b.y} ${b.width}x${b.height}`);
    };
    onTop: boolean | undefined;
    isAlwaysOnTop = () => this.onTop ?? (this.options as { alwaysOnTop?: boolean }).alwaysOnTop === true;
    setAlwaysOnTop = (flag: boolean, level?: string) => {
      this.onTop = flag;
      state.log.push(`window.setAlwaysOnTop ${flag}${level === undefined ? '' : ` ${level}`}`);
    };
    resizable = true;
    isResizable = () => this.resizable;
    setResizable = (value: boolean) => {
      this.resizable = value;
      state.log.push(`window.setResizable ${value}`);
    };
    movable = true;
    isMovable = () => this.movable;
    setMovable = (value: boolean) => {
      this.movable = value;
      state.log.push(`window.setMovable ${value}`);
    };
    restore = () => state.log.push('window.restore');
    show = () => {
      this.visible = true;
      state.log.push('window.show');
    };
    hide = () => {
      this.visible = false;
      state.log.push('window.hide');
      this.emit('hide');
    };
    focus = () => {
      this.focused = true;
      state.log.push('window.focus');
    };
    getMediaSourceId = () => `window:${1000 + state.windows.indexOf(this)}:0`;
    static getAllWindows = () => state.windows.filter((w) => !w.destroyed);
    static fromWebContents = (contents: unknown) => state.windows.find((w) => w.webContents === contents) ?? null;
    /** The person clicks the close button: 'close' (preventable), then 'closed' unless prevented. */
    close(): boolean {
      const event = preventable();
      this.emit('close', event);
      if (event.defaultPrevented) return false;
      this.destroyed = true;
      this.emit('closed');
      return true;
    }
  }

  class FakeTray extends Emitter {
    menu: any[] = [];
    tooltip = '';
    constructor(readonly image: unknown) {
      super();
      if (!state.ready) throw new Error('Cannot create Tray before app is ready');
      state.trays.push(this);
    }
    setToolTip(text: string) {
      this.tooltip = text;
    }
    setContextMenu(menu: { template: any[] }) {
      this.menu = menu.template;
    }
    /** A click on the tray menu's item with this id. */
    clickItem(id: string, checked?: boolean) {
      const item = this.menu.find((i) => i.id === id);
      if (!item) throw new Error(`no tray item ${id}: ${this.menu.map((i) => i.id).join(', ')}`);
      item.click({ checked });
    }
  }

  class FakeNotification extends Emitter {
    static isSupported = () => true;
    shown = false;
    constructor(readonly options: { title: string; body: string }) {
      super();
      state.notifications.push(this);
    }
    show() {
      this.shown = true;
    }
  }

  const defaultSession = {
    setPermissionRequestHandler(handler: Listener) {
      state.log.push('setPermissionRequestHandler');
      state.requestHandler = handler;
    },
    setPermissionCheckHandler(handler: Listener) {
      state.log.push('setPermissionCheckHandler');
      state.checkHandler = handler;
    },
    cookies: {
      set(details: StoredCookie) {
        state.log.push('cookies.set');
        // In the store only once the promise settles, as with Chromium's asynchronous cookie store.
        return new Promise<void>((resolve) =>
          setImmediate(() => {
            state.cookies.push(details);
            resolve();
          }),
        );
      },
    },
  };

  const electron = {
    app,
    // The workers' processes (main/worker-process.test.ts runs the launcher over a fake of its own).
    utilityProcess: {
      fork(modulePath: string) {
        state.log.push(`utilityProcess.fork ${modulePath}`);
        throw new Error('no utility processes in this fake');
      },
    },
    BrowserWindow: FakeWindow,
    Tray: FakeTray,
    Notification: FakeNotification,
    Menu: {
      buildFromTemplate: (template: any[]) => ({ template }),
      setApplicationMenu(menu: { template: any[] }) {
        state.appMenu = menu.template;
      },
    },
    nativeImage: {
      createFromPath: (p: string) => {
        const image = { path: p, size: 0, isEmpty: () => state.iconMissing, setTemplateImage: () => {}, resize: (o: { width: number }) => ({ ...image, size: o.width }) };
        return image;
      },
    },
    globalShortcut: {
      register(accelerator: string, callback: () => void) {
        if (!state.ready) throw new Error('globalShortcut cannot be used before the app is ready');
        if (state.takenShortcuts.includes(accelerator)) return false;
        state.shortcuts.set(accelerator, callback);
        return true;
      },
      unregister: (accelerator: string) => void state.shortcuts.delete(accelerator),
      unregisterAll: () => state.shortcuts.clear(),
    },
    // Its "thumbnail" is a PNG-ish marker naming the size it was asked for, as Electron scales a screen to it.
    desktopCapturer: {
      getSources(options: { types: string[]; thumbnailSize: { width: number; height: number } }) {
        state.log.push(`desktopCapturer.getSources ${options.thumbnailSize.width}x${options.thumbnailSize.height}`);
        state.capturerCalls.push(options);
        const { width, height } = options.thumbnailSize;
        return Promise.resolve(
          state.capturerSources
            .filter((s) => options.types.some((t) => s.id.startsWith(`${t}:`)))
            .map((s) => ({
              ...s,
              thumbnail: { isEmpty: () => false, getSize: () => ({ width, height }), toPNG: () => Buffer.from(`PNG ${width}x${height}`), toDataURL: () => `data:image/png;base64,${width}x${height}` },
            })),
        );
      },
    },
    screen: {
      getAllDisplays: () => state.displays,
      getPrimaryDisplay: () => state.displays[0],
    },
    session: {
      get defaultSession() {
        if (!state.ready) throw new Error('Session can only be received when app is ready');
        return defaultSession;
      },
    },
    ipcMain: {
      handlers: new Map<string, Listener>(),
      handle(channel: string, handler: Listener) {
        state.log.push(`ipcMain.handle ${channel}`);
        this.handlers.set(channel, handler);
      },
    },
    // Like Electron's: it answers only after 'ready'. The "encryption" reverses the bytes behind a marker,
    // enough to tell an encrypted file from the key (secret-file-store.test.ts checks real encryption).
    safeStorage: {
      isEncryptionAvailable: () => state.ready && state.encryptionAvailable,
      encryptString(plain: string) {
        if (!state.ready) throw new Error('safeStorage cannot be used before app is ready');
        state.log.push('safeStorage.encryptString');
        return Buffer.concat([Buffer.from('fake-enc:'), Buffer.from(plain, 'utf8').reverse()]);
      },
      decryptString(encrypted: Buffer) {
        if (!encrypted.subarray(0, 9).equals(Buffer.from('fake-enc:'))) throw new Error('Error while decrypting the ciphertext');
        return Buffer.from(encrypted.subarray(9)).reverse().toString('utf8');
      },
    },
    dialog: {
      showOpenDialog: () => Promise.resolve({ canceled: true, filePaths: [] }),
      showErrorBox: (title: string) => state.log.push(`showErrorBox ${title}`),
    },
    shell: {
      openExternal(url: string) {
        state.openedExternally.push(url);
        return Promise.resolve();
      },
    },
    systemPreferences: { askForMediaAccess: () => Promise.resolve(true) },
  };

  const server = {
    started: 0,
    fail: undefined as Error | undefined,
    closed: 0,
  };
  /** The glue claims the state folder (the real lock, server/process/state-lock.ts) and hands it over here. */
  async function startServer(config: (typeof state.serverConfigs)[number], options: (typeof state.serverOptions)[number] = {}, lock?: { release(): Promise<void> }) {
    state.log.push('startServer');
    state.locks.push(lock);
    state.serverConfigs.push(config);
    state.serverOptions.push(options);
    if (server.fail) throw server.fail;
    server.started++;
    const port = config.port || 41234;
    const origin = `http://127.0.0.1:${port}`;
    return {
      host: '127.0.0.1',
      port,
      origin,
      token: 'fake-token-0123456789',
      tokenUrl: `${origin}/?token=fake-token-0123456789`,
      stateDir: config.stateDir,
      // The server's own hooks for the shell (server/index.ts DesktopHooks), recorded.
      desktop: {
        addToInbox: async (paths: readonly string[], to?: string) => {
          state.log.push(`addToInbox:${paths.join('|')} to ${to}`);
          return { sessionId: 'inbox0000001', added: paths.map((p) => p.split('/').pop()!), skipped: [] };
        },
        watching: { state: () => 'none' as const, pause: () => state.log.push('inbox.pause'), resume: () => state.log.push('inbox.resume') },
      },
      close: async () => {
        state.log.push('server.close');
        server.closed++;
        await lock?.release();
      },
    };
  }

  function reset(userData: string) {
    app.removeAllListeners();
    Object.assign(state, {
      ready: false,
      gotLock: true,
      encryptionAvailable: true,
      userData,
      serverConfigs: [],
      serverOptions: [],
      log: [],
      cookies: [],
      requestHandler: undefined,
      checkHandler: undefined,
      windows: [],
      contents: [],
      loads: [],
      openedExternally: [],
      exitCode: undefined,
      quitted: false,
      takenShortcuts: [],
      shortcuts: new Map(),
      trays: [],
      appMenu: undefined,
      notifications: [],
      loginItem: undefined,
      displays: [{ id: 1, bounds: { x: 0, y: 0, width: 1920, height: 1080 }, workArea: { x: 0, y: 0, width: 1920, height: 1040 }, size: { width: 1920, height: 1080 }, scaleFactor: 2 }],
      iconMissing: false,
      capturerCalls: [],
      capturerSources: [],
      locks: [],
    });
    Object.assign(server, { started: 0, fail: undefined, closed: 0 });
    readyPromise = new Promise<void>((resolve) => (state.resolveReady = resolve));
  }

  function emitReady() {
    state.ready = true;
    state.log.push('ready');
    app.emit('ready');
    state.resolveReady();
  }

  return { electron, state, server, startServer, reset, emitReady, FakeWebContents, FakeWindow };
});

vi.mock('electron', () => fake.electron);
vi.mock('../server/index.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../server/index.js')>()),
  startServer: fake.startServer,
}));

const { startElectron } = await import('./electron-main.js');

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
let userData: string;
let signalListenersBefore: Map<string, Function[]>;
let savedLogLevel: string | undefined;

beforeEach(() => {
  userData = mkdtempSync(path.join(os.tmpdir(), 'satchel-electron-main-'));
  fake.reset(userData);
  signalListenersBefore = new Map(SIGNALS.map((s) => [s, process.listeners(s)]));
  savedLogLevel = process.env.SATCHEL_LOG_LEVEL;
  process.env.SATCHEL_LOG_LEVEL = 'silent';
  // The tray reads the recent conversations from the server's GET /api/sessions; the fake server has no socket.
  vi.stubGlobal('fetch', sessionsFetch([]));
});

/** A fetch answering GET /api/sessions with these sessions (and recording the token it was sent). */
function sessionsFetch(sessions: Array<{ session_id: string; title: string; archived?: boolean }>) {
  return vi.fn(async (url: string, init?: { headers?: Record<string, string> }) => {
    if (url !== `${APP_ORIGIN}/api/sessions` || init?.headers?.Authorization !== `Bearer ${TOKEN}`) {
      return new Response(JSON.stringify({ error: 'Unauthorized' }), { status: 401 });
    }
    return new Response(JSON.stringify({ sessions }), { headers: { 'Content-Type': 'application/json' } });
  });
}

afterEach(async () => {
  // startElectron hooks SIGINT/SIGTERM on this very process; take those hooks off again.
  for (const signal of SIGNALS) {
    for (const listener of addedSignalListeners(signal)) process.removeListener(signal, listener as () => void);
  }
  // The state folder's locks the fake servers were handed and no quit released.
  await Promise.all(fake.state.locks.map((lock) => lock?.release()));
  if (savedLogLevel === undefined) delete process.env.SATCHEL_LOG_LEVEL;
  else process.env.SATCHEL_LOG_LEVEL = savedLogLevel;
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  rmSync(userData, { recursive: true, force: true });
});

function addedSignalListeners(signal: (typeof SIGNALS)[number]): Function[] {
  const before = signalListenersBefore.get(signal) ?? [];
  return process.listeners(signal).filter((l) => !before.includes(l));
}

/** Start the window path, let 'ready' fire, and wait for the first page load. */
async function startWindowAndLoad(argv: string[] = ['.']) {
  startElectron(argv);
  fake.emitReady();
  await vi.waitFor(() => expect(fake.state.loads).toHaveLength(1));
  return { win: fake.state.windows[0]!, load: fake.state.loads[0]! };
}

function permissionRequest(handler: (...args: any[]) => unknown, requestingUrl: string): Promise<boolean> {
  return new Promise((resolve) =>
    handler({}, 'media', resolve, { isMainFrame: true, requestingUrl, mediaTypes: ['audio'] }),
  );
}

describe('startElectron: the window', () => {
  it('has the access cookie and both permission handlers in place before its first load', async () => {
    const { load } = await startWindowAndLoad();

    // The page URL never carries the token: the cookie does.
    expect(load.url).toBe(`${APP_ORIGIN}/`);
    expect(load.cookies).toHaveLength(1);
    expect(load.cookies[0]).toMatchObject({ name: 'satchel_access', value: TOKEN, httpOnly: true, sameSite: 'strict' });

    // Installed, and for the page's own origin: the microphone is grantable there and nowhere else.
    expect(load.requestHandler).toBeDefined();
    expect(load.checkHandler).toBeDefined();
    expect(await permissionRequest(load.requestHandler!, `${APP_ORIGIN}/`)).toBe(true);
    expect(await permissionRequest(load.requestHandler!, 'https://example.com/')).toBe(false);
    expect(load.checkHandler!({}, 'media', `${APP_ORIGIN}/`, { isMainFrame: true, mediaType: 'audio' })).toBe(true);
    expect(load.checkHandler!({}, 'geolocation', `${APP_ORIGIN}/`, { isMainFrame: true })).toBe(false);
  });

  it("hands the server Electron's utilityProcess for its OCR and PDF workers, from the unpacked host", async () => {
    setHostLauncher(undefined);
    startElectron(['.']);
    expect(defaultChildHost()).toBe(path.resolve('server/workspace/off-thread-host.js'));
    // A worker's process goes through utilityProcess.fork (the fake refuses it: no process starts here).
    expect(() => startOffThread({ script: { source: '' }, maxHeapMb: 16, memory: { budgetBytes: 1 << 20, sampleMs: 10 }, childHost: defaultChildHost() })).toThrow('no utility processes in this fake');
    expect(fake.state.log).toContain(`utilityProcess.fork ${path.resolve('server/workspace/off-thread-host.js')}`);
    setHostLauncher(undefined);
  });

  it('sandboxes every renderer before ready and shows the window only when it is ready to show', async () => {
    startElectron(['.']);
    // The fake, like Electron, refuses enableSandbox after 'ready'.
    expect(fake.state.log).toContain('enableSandbox');
    fake.emitReady();
    await vi.waitFor(() => expect(fake.state.loads).toHaveLength(1));
    const win = fake.state.windows[0]!;
    expect(win.options).toMatchObject({ show: false, webPreferences: { sandbox: true, contextIsolation: true } });
    expect(fake.state.log).not.toContain('window.show');
    win.emit('ready-to-show');
    expect(fake.state.log).toContain('window.show');
  });

  it('guards navigation in every web contents: the window, its popups, and any created later', async () => {
    const { win } = await startWindowAndLoad();
    const popup = win.webContents.open(`${APP_ORIGIN}/preview`);
    expect(popup, 'an app-origin popup opens').toBeDefined();
    expect(popup!.options).toMatchObject({ show: true, webPreferences: { sandbox: true } });
    const later = new fake.FakeWebContents();
    expect(fake.state.contents).toEqual([win.webContents, popup!.webContents, later]);

    for (const [i, contents] of fake.state.contents.entries()) {
      expect(contents.navigate(`${APP_ORIGIN}/settings`), `in-app navigation in contents ${i}`).toBe(false);
      expect(contents.navigate(EXTERNAL), `external navigation in contents ${i}`).toBe(true);
      expect(contents.navigate('file:///etc/passwd'), `file: navigation in contents ${i}`).toBe(true);
      expect(contents.open('https://example.com/popup'), `external popup from contents ${i}`).toBeUndefined();
    }
    expect(fake.state.openedExternally).toEqual([
      ...fake.state.contents.flatMap(() => [EXTERNAL, 'https://example.com/popup']),
    ]);
  });

  it('a second launch brings the existing window to the front, restoring it when minimized', async () => {
    const { win } = await startWindowAndLoad();
    win.minimized = true;
    fake.state.log.length = 0;
    fake.electron.app.emit('second-instance', {}, ['satchel'], '/', {});
    expect(fake.state.log).toEqual(['window.restore', 'window.show', 'window.focus']);
  });

  it('a second instance quits at once: no server, no window', async () => {
    fake.state.gotLock = false;
    startElectron(['.']);
    expect(fake.state.log).toContain('quit');
    fake.emitReady();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fake.server.started).toBe(0);
    expect(fake.state.windows).toEqual([]);
  });

  it('with a server already running on its state folder, opens that one: no second server, its cookie, its page', async () => {
    // Another Satchel (`npm run serve`, `--server-only`) owns the folder: the real lock, and its address beside it.
    const running = { url: 'http://127.0.0.1:45111/', token: 'running-token-0123456789' };
    const owner = await claimStateFolder(userData);
    try {
      await owner.announce(running);
      const { load } = await startWindowAndLoad();
      expect(fake.server.started).toBe(0);
      expect(fake.state.log).not.toContain('startServer');
      expect(load.url).toBe(running.url);
      expect(load.cookies).toEqual([expect.objectContaining({ url: running.url, name: 'satchel_access', value: running.token, httpOnly: true })]);
      // Its permission handlers are for that origin.
      expect(await permissionRequest(load.requestHandler!, running.url)).toBe(true);
      expect(await permissionRequest(load.requestHandler!, `${APP_ORIGIN}/`)).toBe(false);
      // Quitting closes no server of its own and lets the owner run on.
      fake.electron.app.quit();
      await vi.waitFor(() => expect(fake.state.quitted).toBe(true));
      expect(fake.server.closed).toBe(0);
      await expect(claimStateFolder(userData, { addressWaitMs: 0 })).rejects.toThrow(`Satchel is already running on this state folder (${userData}): ${running.url}`);
    } finally {
      await owner.release();
    }
  });

  it('a file opened with Satchel while the window shows another process\'s server is refused with a reason, not lost silently', async () => {
    const owner = await claimStateFolder(userData);
    try {
      await owner.announce({ url: 'http://127.0.0.1:45111/', token: 'running-token-0123456789' });
      const info = vi.fn();
      const { log } = await import('../server/core/log.js');
      vi.spyOn(log, 'info').mockImplementation(info);
      const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'satchel-electron-opened-'));
      const file = path.join(elsewhere, 'notes.txt');
      writeFileSync(file, 'notes');
      onTestFinished(() => rmSync(elsewhere, { recursive: true, force: true }));
      await startWindowAndLoad(['.', file]);
      await vi.waitFor(() => expect(info.mock.calls.flat().join(' ')).toContain(`Not added to the Inbox: ${file} (${OPENED_ELSEWHERE})`));
    } finally {
      await owner.release();
    }
  });

  it('takes the state folder\'s lock before the server starts and lets it go when it quits', async () => {
    await startWindowAndLoad();
    expect(fake.state.locks).toHaveLength(1);
    await expect(claimStateFolder(userData, { addressWaitMs: 0 })).rejects.toThrow(`Satchel is already running on this state folder (${userData})`);
    fake.electron.app.quit();
    await vi.waitFor(() => expect(fake.state.quitted).toBe(true));
    const next: StateLock = await claimStateFolder(userData, { addressWaitMs: 0 });
    await next.release();
  });

  it('quitting waits for the server to close, then quits', async () => {
    await startWindowAndLoad();
    fake.electron.app.quit();
    expect(fake.state.quitted, 'the first quit waits for the server').toBe(false);
    await vi.waitFor(() => expect(fake.state.quitted).toBe(true));
    expect(fake.server.closed).toBe(1);
    expect(fake.state.log.filter((entry) => entry === 'quit')).toHaveLength(2);
  });

  it('a server that cannot start is reported in a dialog and exits 1, with no window', async () => {
    fake.server.fail = new Error('listen EACCES');
    startElectron(['.']);
    fake.emitReady();
    await vi.waitFor(() => expect(fake.state.exitCode).toBe(1));
    expect(fake.state.log).toContain('showErrorBox Satchel could not start');
    expect(fake.state.windows).toEqual([]);
  });

  it('hands startServer the safeStorage key store, having moved a key out of agent.json first', async () => {
    const key = 'sk-electron-main-key-do-not-leak-0123';
    writeFileSync(path.join(userData, 'agent.json'), JSON.stringify({ baseUrl: 'http://127.0.0.1:8642', apiKey: key }), { mode: 0o600 });
    await startWindowAndLoad();

    const keys = fake.state.serverOptions[0]!.agentKeyStore;
    expect(keys, 'a key store reaches the server').toBeDefined();
    expect(fake.state.log.indexOf('safeStorage.encryptString')).toBeLessThan(fake.state.log.indexOf('startServer'));
    expect(JSON.parse(readFileSync(path.join(userData, 'agent.json'), 'utf8'))).toEqual({ baseUrl: 'http://127.0.0.1:8642' });
    expect(readFileSync(path.join(userData, 'agent-key.bin')).includes(Buffer.from(key))).toBe(false);
    expect(keys!.get()).toBe(key);
    await keys!.set(undefined);
    expect(existsSync(path.join(userData, 'agent-key.bin'))).toBe(false);
  });

  it('hands startServer the safeStorage MCP token store: a token saved there is encrypted in mcp-token.bin', async () => {
    await startWindowAndLoad();
    const tokens = fake.state.serverOptions[0]!.mcpTokenStore!;
    const token = 'mcp-token-electron-main-do-not-leak-42';
    await tokens.set(token);
    expect(readFileSync(path.join(userData, 'mcp-token.bin')).includes(Buffer.from(token))).toBe(false);
    expect(existsSync(path.join(userData, 'mcp-token'))).toBe(false);
    expect(tokens.get()).toBe(token);
  });

  it('without encryption the store keeps the key in agent.json', async () => {
    fake.state.encryptionAvailable = false;
    const key = 'sk-electron-main-key-no-keyring-4567';
    await startWindowAndLoad();
    const keys = fake.state.serverOptions[0]!.agentKeyStore!;
    await keys.set(key);
    expect(JSON.parse(readFileSync(path.join(userData, 'agent.json'), 'utf8'))).toEqual({ apiKey: key });
    expect(existsSync(path.join(userData, 'agent-key.bin'))).toBe(false);
    expect(fake.state.log).not.toContain('safeStorage.encryptString');
  });
});

describe('startElectron: the desktop companion', () => {
  const tray = () => fake.state.trays[0]!;
  const itemIds = (menu: any[]) => menu.map((i) => i.id ?? i.role ?? i.type);

  it('puts a tray icon up with capture, dictate, the recent conversations from the server, open and quit', async () => {
    vi.stubGlobal('fetch', sessionsFetch([{ session_id: 's-new', title: 'Invoices' }, { session_id: 's-old', title: 'Old', archived: true }]));
    await startWindowAndLoad();
    expect(fake.state.trays).toHaveLength(1);
    expect(tray().tooltip).toBe('Satchel');
    expect(tray().image).toMatchObject({ path: path.join('/app', 'build', 'icon.png'), size: 16 });
    await vi.waitFor(() => expect(itemIds(tray().menu)).toContain('recent:s-new'));
    expect(tray().menu.map((i) => i.label ?? '---')).toEqual([
      'Quick capture', 'Dictate', '---', 'Recent conversations', 'Invoices', '---', 'Open Satchel', 'Settings…', '---', 'Quit Satchel',
    ]);
    // Settings… shows the window at its Settings dialog (the page reads #settings).
    tray().clickItem('settings');
    expect(fake.state.loads.at(-1)!.url).toBe(`${APP_ORIGIN}/#settings`);
  });

  it('tray clicks: a recent conversation opens in the window, Quick capture opens the capture window, Quit quits', async () => {
    vi.stubGlobal('fetch', sessionsFetch([{ session_id: 's-new', title: 'Invoices' }]));
    const { win } = await startWindowAndLoad();
    await vi.waitFor(() => expect(itemIds(tray().menu)).toContain('recent:s-new'));
    win.hide();
    tray().clickItem('recent:s-new');
    expect(fake.state.loads.at(-1)!.url).toBe(`${APP_ORIGIN}/#s=s-new`);
    expect(win.isVisible()).toBe(true);

    tray().clickItem('quick-capture');
    const capture = fake.state.windows[1]!;
    expect(capture.options).toMatchObject({ alwaysOnTop: true, width: 560, webPreferences: { sandbox: true, contextIsolation: true } });
    expect(fake.state.loads.at(-1)!.url).toBe(`${APP_ORIGIN}/capture`);
    // The capture page is in the app's origin: the same cookie, the same permission handlers, guarded navigation.
    expect(fake.state.loads.at(-1)!.cookies[0]).toMatchObject({ name: 'satchel_access' });
    expect(capture.webContents.navigate(EXTERNAL)).toBe(true);
    tray().clickItem('quick-capture');
    expect(fake.state.windows, 'one capture window at a time').toHaveLength(2);

    tray().clickItem('quit');
    await vi.waitFor(() => expect(fake.state.quitted).toBe(true));
  });

  it('global shortcuts: the defaults are registered, a press opens capture or dictation', async () => {
    await startWindowAndLoad();
    expect([...fake.state.shortcuts.keys()]).toEqual(['CommandOrControl+Shift+Space', 'CommandOrControl+Shift+D']);
    fake.state.shortcuts.get('CommandOrControl+Shift+D')!();
    expect(fake.state.loads.at(-1)!.url).toBe(`${APP_ORIGIN}/capture?dictate=1`);
    // Pressed again: the open page is told through its fragment (press to toggle), no second window.
    fake.state.shortcuts.get('CommandOrControl+Shift+D')!();
    expect(fake.state.loads.at(-1)!.url).toBe(`${APP_ORIGIN}/capture?dictate=1#ptt=1`);
    expect(fake.state.windows).toHaveLength(2);
    // The menu shows them beside Quick capture and Dictate.
    expect(tray().menu[0]).toMatchObject({ accelerator: 'CommandOrControl+Shift+Space' });
    const file = fake.state.appMenu!.find((m) => m.id === 'file').submenu;
    expect(file[1]).toMatchObject({ label: 'Dictate', accelerator: 'CommandOrControl+Shift+D', registerAccelerator: false });
    fake.electron.app.quit();
    expect(fake.state.shortcuts.size, 'released at quit').toBe(0);
  });

  it('push-to-talk set to the clipboard or a message: the capture page is opened saying so, press after press', async () => {
    writeFileSync(path.join(userData, 'desktop-settings.json'), JSON.stringify({ pushToTalkTo: 'clipboard' }));
    await startWindowAndLoad();
    fake.state.shortcuts.get('CommandOrControl+Shift+D')!();
    expect(fake.state.loads.at(-1)!.url).toBe(`${APP_ORIGIN}/capture?dictate=1&then=clipboard`);
    fake.state.shortcuts.get('CommandOrControl+Shift+D')!();
    expect(fake.state.loads.at(-1)!.url).toBe(`${APP_ORIGIN}/capture?dictate=1&then=clipboard#ptt=1`);
    // Quick capture's own shortcut still opens the page to type in.
    fake.state.windows[1]!.close();
    fake.state.shortcuts.get('CommandOrControl+Shift+Space')!();
    expect(fake.state.loads.at(-1)!.url).toBe(`${APP_ORIGIN}/capture`);
  });

  it('a shortcut another application holds is reported in a notification, not silently lost', async () => {
    fake.state.takenShortcuts = ['CommandOrControl+Shift+Space'];
    await startWindowAndLoad();
    expect([...fake.state.shortcuts.keys()]).toEqual(['CommandOrControl+Shift+D']);
    expect(fake.state.notifications.map((n) => [n.options.title, n.options.body, n.shown])).toEqual([
      ['A Satchel shortcut does not work', 'Quick capture: CommandOrControl+Shift+Space is in use by another application; choose another shortcut in Settings', true],
    ]);
    expect(tray().menu[0].accelerator, 'not shown as if it worked').toBeUndefined();
  });

  it('shortcuts come from desktop-settings.json; a conflict between two is reported', async () => {
    writeFileSync(path.join(userData, 'desktop-settings.json'), JSON.stringify({ shortcuts: { quickCapture: 'Alt+Shift+K', pushToTalk: 'alt+shift+k' } }));
    await startWindowAndLoad();
    expect([...fake.state.shortcuts.keys()]).toEqual(['Alt+Shift+K']);
    expect(fake.state.notifications[0]!.options.body).toBe("Push-to-talk: alt+shift+k is already Quick capture's shortcut");
  });

  it('closing the window keeps Satchel in the tray when the setting is on; Quit still quits', async () => {
    writeFileSync(path.join(userData, 'desktop-settings.json'), JSON.stringify({ closeToTray: true }));
    const { win } = await startWindowAndLoad();
    win.emit('ready-to-show');
    expect(win.close(), 'the close was turned into a hide').toBe(false);
    expect(win.isVisible()).toBe(false);
    expect(fake.state.quitted).toBe(false);
    tray().clickItem('open');
    expect(win.isVisible()).toBe(true);
    fake.electron.app.quit();
    expect(win.close(), 'quitting closes for real').toBe(true);
  });

  it('with the setting off (the Linux default) the window closes', async () => {
    const { win } = await startWindowAndLoad();
    expect(win.close()).toBe(process.platform === 'linux' ? true : false);
  });

  it('the menu switch turns close-to-tray on and saves it', async () => {
    await startWindowAndLoad();
    const file = fake.state.appMenu!.find((m) => m.id === 'file').submenu;
    file.find((i: any) => i.id === 'close-to-tray').click({ checked: true });
    await vi.waitFor(() => expect(JSON.parse(readFileSync(path.join(userData, 'desktop-settings.json'), 'utf8')).closeToTray).toBe(true));
  });

  it('a finished reply raises a notification while the window is hidden, whose click opens the conversation', async () => {
    const { win } = await startWindowAndLoad();
    const onReplyFinished = fake.state.serverOptions[0]!.agent!.onReplyFinished!;
    win.show();
    win.focus();
    onReplyFinished({ session_id: 's1', profile: 'default', title: 'Looked at' });
    expect(fake.state.notifications, 'not for the window the person is looking at').toEqual([]);
    win.hide();
    onReplyFinished({ session_id: 's2', profile: 'default', title: 'Tax return' });
    expect(fake.state.notifications.map((n) => n.options)).toMatchObject([{ title: 'Tax return', body: 'The reply is ready. Click to open the conversation.' }]);
    fake.state.notifications[0]!.emit('click');
    expect(fake.state.loads.at(-1)!.url).toBe(`${APP_ORIGIN}/#s=s2`);
    expect(win.isVisible()).toBe(true);
  });

  it('quick capture\'s Screenshot: the sources without Satchel\'s own windows, then a screen at its HiDPI size with the capture window hidden meanwhile', async () => {
    fake.state.capturerSources = [
      { id: 'screen:0:0', name: 'Entire screen', display_id: '1' },
      { id: 'window:77:0', name: 'Terminal', display_id: '' },
      { id: 'window:1001:0', name: 'Quick capture', display_id: '' },
    ];
    await startWindowAndLoad();
    tray().clickItem('quick-capture');
    const capture = fake.state.windows[1]!;
    capture.emit('ready-to-show');
    const asking = { senderFrame: { url: `${APP_ORIGIN}/capture`, parent: null }, sender: capture.webContents };
    const sources = fake.electron.ipcMain.handlers.get('satchel:screen-sources')! as (...args: unknown[]) => Promise<any[]>;
    const take = fake.electron.ipcMain.handlers.get('satchel:capture-screen')! as (...args: unknown[]) => Promise<Uint8Array | null>;
    expect((await sources(asking)).map((s) => [s.id, s.kind, s.thumbnail])).toEqual([
      ['screen:0:0', 'screen', 'data:image/png;base64,320x200'],
      ['window:77:0', 'window', 'data:image/png;base64,320x200'],
    ]);
    fake.state.log.length = 0;
    const png = await take(asking, 'screen:0:0');
    // The 1920×1080 display at scale factor 2: 3840×2160 pixels.
    expect(Buffer.from(png!).toString()).toBe('PNG 3840x2160');
    expect(fake.state.log).toEqual(['window.hide', 'desktopCapturer.getSources 1x1', 'desktopCapturer.getSources 3840x2160', 'window.show']);
    expect(capture.isVisible()).toBe(true);
    expect(await take(asking, 'window:1001:0'), 'never its own window').toBeNull();
    await expect(take({ senderFrame: { url: 'https://example.com/', parent: null }, sender: capture.webContents }, 'screen:0:0')).rejects.toThrow('untrusted sender');
  });

  it('quick capture\'s region step: the capture window covers the taken screen\'s display and is put back on request, blur, close and error', async () => {
    fake.state.capturerSources = [{ id: 'screen:0:0', name: 'Entire screen', display_id: '1' }];
    await startWindowAndLoad();
    tray().clickItem('quick-capture');
    const capture = fake.state.windows[1]!;
    capture.emit('ready-to-show');
    const asking = { senderFrame: { url: `${APP_ORIGIN}/capture`, parent: null }, sender: capture.webContents };
    const overlay = fake.electron.ipcMain.handlers.get('satchel:region-overlay')! as (...args: unknown[]) => Promise<boolean>;
    const COVER = ['desktopCapturer.getSources 1x1', 'window.setAlwaysOnTop true screen-saver', 'window.setContentBounds 0,0 1920x1080', 'window.setResizable false', 'window.setMovable false'];
    const PUT_BACK = ['window.setResizable true', 'window.setMovable true', 'window.setBounds 0,0 560x420', 'window.setAlwaysOnTop true floating'];
    const steps = async (act: () => unknown) => {
      fake.state.log.length = 0;
      await act();
      return fake.state.log.filter((l) => !l.startsWith('window.show') && !l.startsWith('window.focus'));
    };

    // Enter or Esc in the overlay: the page asks to be put back.
    expect(await steps(async () => expect(await overlay(asking, { on: true, sourceId: 'screen:0:0' })).toBe(true))).toEqual(COVER);
    expect(capture.getBounds()).toEqual({ x: 0, y: 0, width: 1920, height: 1080 });
    expect(await steps(async () => expect(await overlay(asking, { on: false })).toBe(true))).toEqual(PUT_BACK);
    expect(capture.getBounds()).toEqual({ x: 0, y: 0, width: 560, height: 420 });
    expect([capture.isAlwaysOnTop(), capture.isResizable(), capture.isMovable()]).toEqual([true, true, true]);

    // The person switches to another application: put back at once.
    await overlay(asking, { on: true, sourceId: 'screen:0:0' });
    expect(await steps(() => capture.emit('blur'))).toEqual(PUT_BACK);
    expect(await steps(() => overlay(asking, { on: false })), 'already put back').toEqual([]);

    // Covering the display fails: the rest is put back and the page is told no.
    await overlay(asking, { on: true, sourceId: 'screen:0:0' });
    await overlay(asking, { on: false });
    const setContentBounds = capture.setContentBounds;
    capture.setContentBounds = () => {
      throw new Error('no such display');
    };
    expect(await steps(async () => expect(await overlay(asking, { on: true, sourceId: 'screen:0:0' })).toBe(false))).toEqual([
      'desktopCapturer.getSources 1x1',
      'window.setAlwaysOnTop true screen-saver',
      ...PUT_BACK,
    ]);
    capture.setContentBounds = setContentBounds;

    // The window is closed while covering: put back before it goes (a hidden-not-closed window keeps its size).
    await overlay(asking, { on: true, sourceId: 'screen:0:0' });
    expect(await steps(() => capture.close())).toEqual(PUT_BACK);
    expect(await overlay(asking, { on: true, sourceId: 'screen:0:0' }), 'no window any more').toBe(false);

    const main = { senderFrame: { url: `${APP_ORIGIN}/`, parent: null }, sender: fake.state.windows[0]!.webContents };
    await expect(overlay(main, { on: true, sourceId: 'screen:0:0' }), 'only the capture page').rejects.toThrow('untrusted sender');
  });

  it('the settings page can read and change the desktop settings over IPC (desktop-settings-ipc.ts)', async () => {
    fake.state.takenShortcuts = ['CommandOrControl+Shift+Space'];
    await startWindowAndLoad();
    const handler = fake.electron.ipcMain.handlers.get('satchel:desktop-settings')! as (...args: unknown[]) => Promise<any>;
    const page = { senderFrame: { url: `${APP_ORIGIN}/`, parent: null } };
    expect((await handler(page)).problems).toEqual([
      'Quick capture: CommandOrControl+Shift+Space is in use by another application; choose another shortcut in Settings',
    ]);
    const changed = await handler(page, { shortcuts: { quickCapture: 'Alt+Shift+Space' } });
    expect(changed.problems).toEqual([]);
    expect([...fake.state.shortcuts.keys()].sort()).toEqual(['Alt+Shift+Space', 'CommandOrControl+Shift+D']);
    expect(JSON.parse(readFileSync(path.join(userData, 'desktop-settings.json'), 'utf8')).shortcuts.quickCapture).toBe('Alt+Shift+Space');
    await expect(handler({ senderFrame: { url: 'https://example.com/', parent: null } })).rejects.toThrow('untrusted sender');
  });

  it('the application menu has the standard Edit roles, so copy and paste work on macOS', async () => {
    await startWindowAndLoad();
    const edit = fake.state.appMenu!.find((m) => m.id === 'edit').submenu.map((i: any) => i.role ?? i.type);
    expect(edit).toEqual(expect.arrayContaining(['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll']));
  });

  it('the window opens where it was left, and its place is saved after it moves', async () => {
    writeFileSync(
      path.join(userData, 'window-state.json'),
      JSON.stringify({ displays: { '0,0,1920x1080': { bounds: { x: 1500, y: 100, width: 1000, height: 700 }, maximized: true } }, last: '0,0,1920x1080' }),
    );
    const { win } = await startWindowAndLoad();
    // Clamped into the 1920-wide work area, and maximized again.
    expect(win.options).toMatchObject({ x: 920, y: 100, width: 1000, height: 700 });
    expect(win.isMaximized()).toBe(true);
    win.maximized = false;
    win.moved = { x: 40, y: 50, width: 900, height: 600 };
    win.emit('move');
    win.emit('close', { preventDefault: () => {} });
    await vi.waitFor(() =>
      expect(JSON.parse(readFileSync(path.join(userData, 'window-state.json'), 'utf8')).displays['0,0,1920x1080']).toEqual({
        bounds: { x: 40, y: 50, width: 900, height: 600 },
        maximized: false,
      }),
    );
  });

  it('open-file before ready and a second instance\'s arguments reach the Inbox through the injected delivery', async () => {
    const file = path.join(userData, 'scan.pdf');
    writeFileSync(file, '%PDF-1.4');
    const delivered: string[][] = [];
    startElectron(['.'], {
      deliverOpenPaths: async (_server, paths) => {
        delivered.push(paths);
        return { sessionId: 'inbox-1' };
      },
    });
    // macOS: the file the app was launched with comes as open-file before 'ready'.
    const early = { defaultPrevented: false, preventDefault() { this.defaultPrevented = true; } };
    fake.electron.app.emit('open-file', early, file);
    expect(early.defaultPrevented).toBe(true);
    fake.emitReady();
    await vi.waitFor(() => expect(delivered).toEqual([[file]]));
    await vi.waitFor(() => expect(fake.state.loads.at(-1)!.url).toBe(`${APP_ORIGIN}/#s=inbox-1`));

    // Windows/Linux: "Open with" starts a second instance; its argv and folder come here. Flags, URLs and
    // missing files are not handed on.
    fake.electron.app.emit('second-instance', {}, ['/usr/bin/electron', '.', '--flag', 'scan.pdf', 'https://example.com/a.pdf', 'gone.txt'], userData, {});
    await vi.waitFor(() => expect(delivered).toEqual([[file], [file]]));
  });

  it('with nothing injected, a file opened with Satchel goes to the server\'s own Inbox and the window opens it', async () => {
    const file = path.join(userData, 'receipt.txt');
    writeFileSync(file, 'paid');
    startElectron(['.']);
    fake.emitReady();
    fake.electron.app.emit('second-instance', {}, ['/usr/bin/electron', '.', 'receipt.txt'], userData, {});
    await vi.waitFor(() => expect(fake.state.log).toContain(`addToInbox:${file} to inbox`));
    await vi.waitFor(() => expect(fake.state.loads.at(-1)!.url).toBe(`${APP_ORIGIN}/#s=inbox0000001`));
  });

  it('files dropped on the tray icon (macOS drop-files) arrive like files opened with Satchel', async () => {
    const file = path.join(userData, 'dropped.txt');
    writeFileSync(file, 'dropped');
    startElectron(['.']);
    fake.emitReady();
    await vi.waitFor(() => expect(fake.state.trays).toHaveLength(1));
    fake.state.trays[0]!.emit('drop-files', {}, [file, 'relative.txt', 42]);
    await vi.waitFor(() => expect(fake.state.log).toContain(`addToInbox:${file} to inbox`));
  });

  it('with openWithTo "current" in desktop-settings.json, opened files go to the conversation in use', async () => {
    const file = path.join(userData, 'receipt.txt');
    writeFileSync(file, 'paid');
    writeFileSync(path.join(userData, 'desktop-settings.json'), JSON.stringify({ openWithTo: 'current' }));
    startElectron(['.']);
    fake.emitReady();
    fake.electron.app.emit('second-instance', {}, ['/usr/bin/electron', '.', 'receipt.txt'], userData, {});
    await vi.waitFor(() => expect(fake.state.log).toContain(`addToInbox:${file} to current`));
  });

  it('files passed on the first launch (the .desktop entry\'s %F) are delivered once the server is up', async () => {
    const file = path.join(userData, 'photo.png');
    writeFileSync(file, 'png');
    const delivered: string[][] = [];
    startElectron(['.', file], { deliverOpenPaths: async (_server, paths) => void delivered.push(paths) });
    await new Promise((r) => setTimeout(r, 20));
    expect(delivered, 'nothing before the server').toEqual([]);
    fake.emitReady();
    await vi.waitFor(() => expect(delivered).toEqual([[file]]));
  });
});

describe('startElectron --server-only', () => {
  it('creates no window and takes no lock, prints the URL, and exits 0 on SIGTERM', async () => {
    const printed: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
    // Its own state folder: the store reads agent.json there, and the user's real one is not the test's.
    startElectron(['.', '--server-only', '--state-dir', userData]);
    // Chromium switches only count before 'ready'.
    expect(fake.state.log).toContain('switch disable-gpu');
    expect(fake.state.log).toContain('disableHardwareAcceleration');
    fake.emitReady();
    await vi.waitFor(() => expect(printed).toEqual([`Satchel is running at ${APP_ORIGIN}/?token=${TOKEN}\n`]));

    expect(fake.state.windows).toEqual([]);
    expect(fake.state.contents).toEqual([]);
    expect(fake.state.log).not.toContain('requestSingleInstanceLock');

    const onTerm = addedSignalListeners('SIGTERM');
    expect(onTerm).toHaveLength(1);
    (onTerm[0] as () => void)();
    await vi.waitFor(() => expect(fake.state.exitCode).toBe(0));
    expect(fake.server.closed).toBe(1);
  });

  it('refuses in one sentence naming the folder and the running server, exit 3, when another Satchel owns the folder', async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const owner = await claimStateFolder(userData);
    try {
      await owner.announce({ url: 'http://127.0.0.1:45222/', token: 'running-token-0123456789' });
      startElectron(['.', '--server-only', '--state-dir', userData]);
      fake.emitReady();
      await vi.waitFor(() => expect(fake.state.exitCode).toBe(3));
      expect(written).toEqual([`Satchel is already running on this state folder (${userData}): http://127.0.0.1:45222/\n`]);
      expect(fake.server.started).toBe(0);
    } finally {
      await owner.release();
    }
  });

  it('hands startServer the safeStorage key store for its state folder', async () => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const key = 'sk-electron-server-only-key-8901';
    writeFileSync(path.join(userData, 'agent.json'), JSON.stringify({ apiKey: key }), { mode: 0o600 });
    startElectron(['.', '--server-only', '--state-dir', userData]);
    fake.emitReady();
    await vi.waitFor(() => expect(fake.state.serverConfigs).toHaveLength(1));
    expect(fake.state.serverConfigs[0]!.stateDir).toBe(userData);
    expect(fake.state.serverOptions[0]!.agentKeyStore!.get()).toBe(key);
    expect(existsSync(path.join(userData, 'agent-key.bin'))).toBe(true);
  });

  /** Start --server-only with these arguments; the URL it printed. */
  async function serverOnlyUrl(...extra: string[]): Promise<string> {
    const printed: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
    startElectron(['.', '--server-only', '--state-dir', userData, ...extra]);
    fake.emitReady();
    await vi.waitFor(() => expect(printed, JSON.stringify(printed)).toHaveLength(1));
    return printed[0]!;
  }

  it('remembers its port in its state folder, as the headless CLI does, and starts there next time', async () => {
    expect(await serverOnlyUrl()).toContain(`${APP_ORIGIN}/`);
    expect(JSON.parse(readFileSync(path.join(userData, 'last-port.json'), 'utf8'))).toEqual({ port: APP_PORT });

    // The first server gone (its process would have exited, and the state folder's lock with it).
    await Promise.all(fake.state.locks.map((lock) => lock?.release()));
    fake.reset(userData);
    writeFileSync(path.join(userData, 'last-port.json'), JSON.stringify({ port: 45678 }));
    expect(await serverOnlyUrl()).toContain('http://127.0.0.1:45678/?token=');
    expect(fake.state.serverConfigs.map((c) => c.port)).toEqual([45678]);
  });

  it('takes --port over the remembered port, and does not remember it', async () => {
    writeFileSync(path.join(userData, 'last-port.json'), JSON.stringify({ port: 45678 }));
    expect(await serverOnlyUrl('--port', '45999')).toContain('http://127.0.0.1:45999/?token=');
    expect(fake.state.serverConfigs.map((c) => c.port)).toEqual([45999]);
    expect(JSON.parse(readFileSync(path.join(userData, 'last-port.json'), 'utf8'))).toEqual({ port: 45678 });
  });
});
