// The desktop app end to end: Playwright drives the real Electron binary running the built app
// (npm run build first). Where the Electron binary is not installed (it cannot be downloaded in this
// environment), every test is reported as skipped with the reason; the same decisions are unit-tested in
// main/*.test.ts without Electron.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { _electron as electron, type ElectronApplication, type Page } from 'playwright';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = path.join(ROOT, 'dist', 'main', 'index.js');
const PRELOAD = path.join(ROOT, 'dist', 'preload', 'index.cjs');
const LAUNCH_TIMEOUT_MS = 45_000;
const EXIT_TIMEOUT_MS = 15_000;
const require = createRequire(import.meta.url);

/** The Electron binary, or why there is none. node_modules/electron/index.js downloads the binary when its
 * install did not finish (no path.txt), so it is only asked once the install is known to be complete. */
function findElectron(): { binary?: string; reason?: string } {
  const pkgDir = path.dirname(require.resolve('electron/package.json'));
  if (!existsSync(path.join(pkgDir, 'path.txt')) && !process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    return { reason: `Electron binary not installed (${path.join(pkgDir, 'path.txt')} missing; it cannot be downloaded here)` };
  }
  const binary = require('electron') as unknown as string;
  if (typeof binary !== 'string' || !existsSync(binary)) {
    return { reason: `Electron binary not found at ${String(binary)}` };
  }
  return { binary };
}

const found = findElectron();
// The list reporter shows a skipped test without its reason; say it once, plainly.
if (!found.binary) console.log(`electron.spec.ts: skipping every test: ${found.reason}`);
const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Chromium refuses to start as root without --no-sandbox (CI containers); the page's renderer sandbox
 * (webPreferences.sandbox) is a separate setting and is still asserted below. */
const chromiumArgs = process.getuid?.() === 0 ? ['--no-sandbox'] : [];

interface Launched {
  app: ElectronApplication;
  page: Page;
  origin: string;
}

test.describe('Satchel desktop app', () => {
  test.skip(!found.binary, found.reason ?? '');

  let configHome: string;
  let userData: string;
  let launched: Launched | undefined;

  async function launch(extraArgs: string[] = []): Promise<Launched> {
    const app = await electron.launch({
      executablePath: found.binary!,
      args: [...chromiumArgs, '--use-fake-device-for-media-stream', ROOT, ...extraArgs],
      cwd: ROOT,
      // userData (and with it the server's state folder) lives in a fresh folder per test.
      env: { ...process.env, XDG_CONFIG_HOME: configHome, SATCHEL_LOG_LEVEL: 'warn', SATCHEL_WEBUI_STATE_DIR: '', SATCHEL_WEBUI_PORT: '' },
      timeout: LAUNCH_TIMEOUT_MS,
    });
    const page = await app.firstWindow({ timeout: LAUNCH_TIMEOUT_MS });
    await page.waitForLoadState('domcontentloaded');
    const origin = new URL(page.url()).origin;
    return { app, page, origin };
  }

  test.beforeAll(() => {
    expect(existsSync(ENTRY), 'dist/main/index.js exists (run npm run build first)').toBe(true);
    expect(existsSync(PRELOAD), 'dist/preload/index.cjs exists (run npm run build first)').toBe(true);
  });

  test.beforeEach(() => {
    configHome = mkdtempSync(path.join(os.tmpdir(), 'satchel-electron-'));
    userData = path.join(configHome, 'Satchel');
  });

  test.afterEach(async () => {
    await launched?.app.close().catch(() => {});
    launched = undefined;
    rmSync(configHome, { recursive: true, force: true });
  });

  test('loads the app from 127.0.0.1 with the access cookie, never a token in the URL', async () => {
    launched = await launch();
    const { page, origin } = launched;
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(page.url()).toBe(`${origin}/`);
    const cookies = await launched.app.evaluate(async ({ session }) => session.defaultSession.cookies.get({ name: 'satchel_access' }));
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'strict', path: '/', domain: '127.0.0.1' });
    // HttpOnly: the page's scripts cannot read it.
    expect(await page.evaluate(() => document.cookie)).not.toContain('satchel_access');
    const status = await page.evaluate(async () => (await fetch('/api/sessions')).status);
    expect(status).toBe(200);
  });

  test('window runs isolated and sandboxed, without Node', async () => {
    launched = await launch();
    const prefs = await launched.app.evaluate(({ BrowserWindow }) => {
      const [win] = BrowserWindow.getAllWindows();
      // Not in electron.d.ts, but it is how Electron's own tests read back the effective preferences.
      const contents = win!.webContents as unknown as { getLastWebPreferences(): Electron.WebPreferences };
      const p = contents.getLastWebPreferences();
      return { contextIsolation: p.contextIsolation, sandbox: p.sandbox, nodeIntegration: p.nodeIntegration, webSecurity: p.webSecurity };
    });
    expect(prefs).toEqual({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    const page = launched.page;
    expect(await page.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
    expect(await page.evaluate(() => typeof (globalThis as { process?: unknown }).process)).toBe('undefined');
    const api = await page.evaluate(() => {
      const satchel = (window as unknown as { satchel: Record<string, unknown> }).satchel;
      return { keys: Object.keys(satchel).sort(), version: satchel.version, pick: typeof satchel.pickFolder };
    });
    expect(api).toEqual({ keys: ['pickFolder', 'version'], version, pick: 'function' });
  });

  test('microphone is granted to the app; camera, geolocation and notifications are denied', async () => {
    launched = await launch();
    const page = launched.page;
    const query = (name: string) =>
      page.evaluate(async (n) => (await navigator.permissions.query({ name: n as PermissionName })).state, name);
    expect(await query('microphone')).toBe('granted');
    expect(await query('camera')).toBe('denied');
    expect(await query('geolocation')).toBe('denied');

    const audio = await page.evaluate(async () => {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const kinds = stream.getTracks().map((t) => t.kind);
      stream.getTracks().forEach((t) => t.stop());
      return kinds;
    });
    expect(audio).toEqual(['audio']);
    const video = await page.evaluate(() =>
      navigator.mediaDevices.getUserMedia({ video: true }).then(
        () => 'granted',
        (err: Error) => err.name,
      ),
    );
    expect(video).toBe('NotAllowedError');
    const geo = await page.evaluate(
      () =>
        new Promise<number>((resolve) =>
          navigator.geolocation.getCurrentPosition(
            () => resolve(0),
            (err) => resolve(err.code),
            { timeout: 5_000 },
          ),
        ),
    );
    expect(geo).toBe(1); // PERMISSION_DENIED
    expect(await page.evaluate(() => Notification.requestPermission())).toBe('denied');
  });

  test('an upload through the page lands on disk byte for byte', async () => {
    launched = await launch();
    const payload = 'hello from the desktop window\n\u00e9\u00e8';
    const result = await launched.page.evaluate(async (text) => {
      const created = await fetch('/api/session/new', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      const { session } = (await created.json()) as { session: { session_id: string } };
      const form = new FormData();
      form.append('session_id', session.session_id);
      form.append('file', new Blob([text], { type: 'text/plain' }), 'note from window.txt');
      const response = await fetch('/api/upload', { method: 'POST', body: form });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }, payload);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ filename: 'note_from_window.txt', size: Buffer.byteLength(payload), is_image: false });
    const saved = String(result.body.path);
    expect(path.isAbsolute(saved)).toBe(true);
    expect(saved.startsWith(userData + path.sep)).toBe(true);
    expect(readFileSync(saved, 'utf8')).toBe(payload);
  });

  test('navigation and popups stay on the app origin', async () => {
    launched = await launch();
    const { app, page, origin } = launched;
    await page.evaluate(() => {
      window.location.href = 'file:///etc/passwd';
    });
    await page.waitForTimeout(500);
    expect(page.url().startsWith(origin)).toBe(true);
    const opened = await page.evaluate(() => window.open('about:blank') === null);
    expect(opened).toBe(true);
    expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
  });

  test('remembers its port, so the next launch has the same origin', async () => {
    launched = await launch();
    const first = launched.origin;
    const stored = JSON.parse(readFileSync(path.join(userData, 'last-port.json'), 'utf8')) as { port: number };
    expect(`http://127.0.0.1:${stored.port}`).toBe(first);
    await launched.app.close();
    launched = await launch();
    expect(launched.origin).toBe(first);
  });

  test('a second launch hands over to the first and exits', async () => {
    launched = await launch();
    const second = spawn(found.binary!, [...chromiumArgs, ROOT], {
      cwd: ROOT,
      env: { ...process.env, XDG_CONFIG_HOME: configHome, SATCHEL_LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        second.kill('SIGKILL');
        reject(new Error(`second instance still running after ${EXIT_TIMEOUT_MS} ms`));
      }, EXIT_TIMEOUT_MS);
      second.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code).toBe(0);
    expect(await launched.app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
  });

  test('--server-only runs without a window or a display and stops cleanly on SIGTERM', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: configHome, SATCHEL_LOG_LEVEL: 'warn' };
    delete env.DISPLAY;
    delete env.WAYLAND_DISPLAY;
    const child = spawn(found.binary!, [...chromiumArgs, ROOT, '--server-only', '--port', '0', '--state-dir', path.join(configHome, 'state')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      const url = await new Promise<URL>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no ready line in ${LAUNCH_TIMEOUT_MS} ms`)), LAUNCH_TIMEOUT_MS);
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /^Satchel is running at (\S+)$/m.exec(out);
          if (match) {
            clearTimeout(timer);
            resolve(new URL(match[1]!));
          }
        });
        void exited.then(({ code }) => reject(new Error(`exited with ${code} before ready`)));
      });
      expect(url.hostname).toBe('127.0.0.1');
      expect(url.searchParams.get('token')).toBeTruthy();
      const health = await fetch(new URL('/health', url));
      expect(health.status).toBe(200);
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`still running ${EXIT_TIMEOUT_MS} ms after SIGTERM`)), EXIT_TIMEOUT_MS);
      });
      try {
        expect(await Promise.race([exited, timeout])).toEqual({ code: 0, signal: null });
      } finally {
        clearTimeout(timer);
      }
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
