// startElectron against a fake 'electron' module: the closest check of the glue this machine allows (the
// Electron binary is not installed here, and e2e/electron.spec.ts skips without it). The fake keeps the
// rules of Electron that the glue's order depends on: nothing window- or session-related before 'ready',
// a cookie counts once cookies.set has resolved, and 'web-contents-created' fires inside the BrowserWindow
// constructor, so listeners added after it miss that window.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SecretStore } from '../server/agent/secret-store.js';

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
    serverConfigs: [] as Array<{ port: number; stateDir: string; agentKeyStore?: SecretStore; mcpTokenStore?: SecretStore }>,
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
    getVersion: () => '1.2.3',
    quit() {
      state.log.push('quit');
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
    isDestroyed = () => this.destroyed;
    isMinimized = () => this.minimized;
    restore = () => state.log.push('window.restore');
    show = () => state.log.push('window.show');
    focus = () => state.log.push('window.focus');
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
    BrowserWindow: FakeWindow,
    session: {
      get defaultSession() {
        if (!state.ready) throw new Error('Session can only be received when app is ready');
        return defaultSession;
      },
    },
    ipcMain: { handle: (channel: string) => state.log.push(`ipcMain.handle ${channel}`) },
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
  async function startServer(config: (typeof state.serverConfigs)[number]) {
    state.log.push('startServer');
    state.serverConfigs.push(config);
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
      close: async () => {
        state.log.push('server.close');
        server.closed++;
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

  return { electron, state, server, startServer, reset, emitReady, FakeWebContents };
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
});

afterEach(() => {
  // startElectron hooks SIGINT/SIGTERM on this very process; take those hooks off again.
  for (const signal of SIGNALS) {
    for (const listener of addedSignalListeners(signal)) process.removeListener(signal, listener as () => void);
  }
  if (savedLogLevel === undefined) delete process.env.SATCHEL_LOG_LEVEL;
  else process.env.SATCHEL_LOG_LEVEL = savedLogLevel;
  vi.restoreAllMocks();
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

    const keys = fake.state.serverConfigs[0]!.agentKeyStore;
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
    const tokens = fake.state.serverConfigs[0]!.mcpTokenStore!;
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
    const keys = fake.state.serverConfigs[0]!.agentKeyStore!;
    await keys.set(key);
    expect(JSON.parse(readFileSync(path.join(userData, 'agent.json'), 'utf8'))).toEqual({ apiKey: key });
    expect(existsSync(path.join(userData, 'agent-key.bin'))).toBe(false);
    expect(fake.state.log).not.toContain('safeStorage.encryptString');
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

  it('hands startServer the safeStorage key store for its state folder', async () => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const key = 'sk-electron-server-only-key-8901';
    writeFileSync(path.join(userData, 'agent.json'), JSON.stringify({ apiKey: key }), { mode: 0o600 });
    startElectron(['.', '--server-only', '--state-dir', userData]);
    fake.emitReady();
    await vi.waitFor(() => expect(fake.state.serverConfigs).toHaveLength(1));
    expect(fake.state.serverConfigs[0]!.stateDir).toBe(userData);
    expect(fake.state.serverConfigs[0]!.agentKeyStore!.get()).toBe(key);
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
    await vi.waitFor(() => expect(printed).toHaveLength(1));
    return printed[0]!;
  }

  it('remembers its port in its state folder, as the headless CLI does, and starts there next time', async () => {
    expect(await serverOnlyUrl()).toContain(`${APP_ORIGIN}/`);
    expect(JSON.parse(readFileSync(path.join(userData, 'last-port.json'), 'utf8'))).toEqual({ port: APP_PORT });

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
