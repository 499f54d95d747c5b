/// <reference lib="dom" />
// Issue 26, quick capture's Screenshot, as a person uses it. In a plain browser (the headless server) the page
// takes one frame of getDisplayMedia: Chromium's fake display capture (--use-fake-device-for-media-stream with
// --use-fake-ui-for-media-stream, which answers the picker with its fake screen, as large as the headless
// window) gives it here. The
// region is dragged with the mouse or set with the keys; the stored file is a PNG of exactly the region's
// pixels (its IHDR is read). In the desktop shell the pixels come from the preload's screenSources() and
// captureScreen(id): a fake window.satchel stands in for it and hands a known PNG over.
import AxeBuilder from '@axe-core/playwright';
import { chromium, test, expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../playwright.config.js';
import { openApp } from './helpers/chat.js';
import { buildPng } from './helpers/png.js';
import { screenshotDir } from './helpers/screenshot-dir.js';
import { startServer, type RunningServer } from './helpers/server.js';

/** The quick-capture window's size as the shell opens it. */
const CAPTURE_VIEWPORT = { width: 560, height: 440 };
/** The desktop tests' display, in points (CSS pixels); its screenshot is twice that, a HiDPI screen. */
const DISPLAY = { width: 1280, height: 800 };
/** The page names it `Screenshot 2026-11-26 at 17.52.03.png`; the server stores it with the upload path's own
 * sanitizing (spec-notes 4.3: characters other than word characters, dots and dashes become `_`). */
/** More than capture.ts's CLOSE_FALLBACK_MS (500 ms), after which a window that asked to close says so. */
const CLOSE_FALLBACK_WAIT_MS = 800;
const SHOT_NAME = /^Screenshot_\d{4}-\d\d-\d\d_at_\d\d\.\d\d\.\d\d\.png$/;

let server: RunningServer;
let browser: Browser;

test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  server = await startServer();
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'],
  });
});
test.afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const policyErrors: string[] = [];
test.afterEach(() => {
  expect(policyErrors, 'the page needs nothing its policy refuses').toEqual([]);
});

/** A capture window with the app's cookie; `init` runs before the page's own script (a fake preload). */
async function openCapture(init?: { script: (arg: string) => void; arg: string }, deviceScaleFactor = 1): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: CAPTURE_VIEWPORT, deviceScaleFactor });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) policyErrors.push(m.text());
  });
  await openApp(page, server);
  if (init) await page.addInitScript(init.script, init.arg);
  await page.goto(`${server.base}/capture`);
  await expect(page.getByTestId('capture')).toHaveAttribute('data-ready', 'true');
  // The draft is kept on the server: the last test's chips come back. Each test starts from none.
  const chips = page.getByTestId('attachment-chip');
  while ((await chips.count()) > 0) {
    const before = await chips.count();
    await chips.first().getByRole('button', { name: /^Remove/ }).click();
    await expect(chips).toHaveCount(before - 1);
  }
  return { context, page };
}

/** The width and height a PNG's IHDR says. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The stored upload with this name, wherever its staging conversation is. */
function storedFile(name: string): Buffer {
  const root = path.join(server.stateDir, 'attachments');
  for (const session of fs.readdirSync(root)) {
    const file = path.join(root, session, name);
    if (fs.existsSync(file)) return fs.readFileSync(file);
  }
  throw new Error(`${name} is not stored under ${root}`);
}

/** The one screenshot chip, once stored: its name and its bytes on disk. */
async function storedShot(page: Page): Promise<{ name: string; bytes: Buffer }> {
  const chip = page.locator('[data-testid="attachment-chip"][data-filename^="Screenshot"]');
  await expect(chip).toHaveCount(1);
  await expect(chip).toHaveAttribute('data-status', 'done');
  // The agent-view summary, as for any image.
  await expect(chip.getByTestId('agent-view')).toContainText(/./);
  const name = (await chip.getAttribute('data-filename'))!;
  expect(name).toMatch(SHOT_NAME);
  return { name, bytes: storedFile(name) };
}

/** The size of the frame the browser's display capture shares, asked the way the page asks. */
async function sharedSize(page: Page): Promise<{ width: number; height: number }> {
  return page.evaluate(async () => {
    // Its frames' size, which is not always the track's settings (headless: 560×440 set, 560×420 framed).
    const stream = await navigator.mediaDevices.getDisplayMedia({ video: true, audio: false });
    const video = document.createElement('video');
    video.muted = true;
    video.srcObject = stream;
    await video.play();
    while (video.videoWidth === 0) await new Promise((r) => requestAnimationFrame(r));
    for (const t of stream.getTracks()) t.stop();
    return { width: video.videoWidth, height: video.videoHeight };
  });
}

/** Serious or critical accessibility problems axe finds on the page as it is now. */
async function axeProblems(page: Page): Promise<string[]> {
  const scan = await new AxeBuilder({ page }).analyze();
  return scan.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

async function dims(page: Page): Promise<{ width: number; height: number }> {
  const [width, height] = (await page.getByTestId('shot-dims').textContent())!.split(' × ').map(Number);
  return { width: width!, height: height! };
}

/** Drag from one fraction of the shown image to another, with the mouse. */
async function drag(page: Page, from: [number, number], to: [number, number]): Promise<void> {
  const box = (await page.getByTestId('shot-image').boundingBox())!;
  await page.mouse.move(box.x + box.width * from[0], box.y + box.height * from[1]);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * ((from[0] + to[0]) / 2), box.y + box.height * ((from[1] + to[1]) / 2), { steps: 4 });
  await page.mouse.move(box.x + box.width * to[0], box.y + box.height * to[1], { steps: 4 });
  await page.mouse.up();
}

test('Screenshot in a browser: a frame of the shared screen, a dragged region stored as a PNG of its pixels', async () => {
  const { context, page } = await openCapture();
  await expect(page.getByTestId('capture-hint')).toHaveText('Hold F8 to talk · Ctrl+Shift+S screenshot · Enter sends · Esc closes');
  const screen = await sharedSize(page);
  await page.getByTestId('screenshot-button').click();
  const overlay = page.getByTestId('shot-overlay');
  await expect(overlay).toBeVisible();
  // The whole frame at its own pixels.
  expect(await dims(page)).toEqual(screen);
  await expect(page.getByTestId('shot-take')).toBeDisabled();
  await drag(page, [0.25, 0.25], [0.75, 0.75]);
  const region = await dims(page);
  // Half the frame each way, in image pixels, give or take the rounding out.
  expect(Math.abs(region.width - screen.width / 2)).toBeLessThanOrEqual(4);
  expect(Math.abs(region.height - screen.height / 2)).toBeLessThanOrEqual(4);
  await page.getByTestId('shot-take').click();
  await expect(overlay).toHaveCount(0);
  const shot = await storedShot(page);
  expect(pngSize(shot.bytes)).toEqual(region);
  await context.close();
});

test('Esc in the overlay cancels only the screenshot: the window stays and the draft is as it was; the keys take a region', async () => {
  const { context, page } = await openCapture();
  const screen = await sharedSize(page);
  await page.getByTestId('capture-input').fill('Keep this thought');
  // The page asks the shell to close it with this event (capture.ts CLOSE_EVENT); it must not, here.
  await page.evaluate(() => window.addEventListener('satchel:capture-close', () => ((window as unknown as { closeAsked: boolean }).closeAsked = true)));
  await page.keyboard.press('Control+Shift+S');
  await expect(page.getByTestId('shot-overlay')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('shot-overlay')).toHaveCount(0);
  // Longer than the page waits before saying a window that asked to close is still open (CLOSE_FALLBACK_MS).
  await page.waitForTimeout(CLOSE_FALLBACK_WAIT_MS);
  expect(await page.evaluate(() => (window as unknown as { closeAsked?: boolean }).closeAsked ?? false), 'Esc closed the overlay, not the window').toBe(false);
  await expect(page.getByTestId('capture-input')).toHaveValue('Keep this thought');
  await expect(page.getByTestId('capture-input')).toBeFocused();
  await expect(page.getByTestId('attachment-chip')).toHaveCount(0);
  expect(page.isClosed()).toBe(false);
  await expect(page.getByTestId('capture-notice')).toHaveText('');

  // Keyboard only: an arrow puts the middle half up, Alt+Shift+Right widens it by 10, Right moves it by 1, Enter takes it.
  await page.getByTestId('screenshot-button').click();
  await expect(page.getByTestId('shot-overlay')).toBeFocused();
  await page.keyboard.press('ArrowDown');
  const half = { width: Math.round(screen.width / 2), height: Math.round(screen.height / 2) };
  expect(await dims(page)).toEqual(half);
  await page.keyboard.press('Alt+Shift+ArrowRight');
  await page.keyboard.press('ArrowRight');
  expect(await dims(page)).toEqual({ width: half.width + 10, height: half.height });
  await page.keyboard.press('Enter');
  const shot = await storedShot(page);
  expect(pngSize(shot.bytes)).toEqual({ width: half.width + 10, height: half.height });
  await expect(page.getByTestId('capture-input')).toHaveValue('Keep this thought');
  await context.close();
});

test('a browser that refuses display capture, or has none, gets a sentence, not an exception', async () => {
  const pageErrors: string[] = [];
  const refuse = await openCapture({
    script: () => {
      navigator.mediaDevices.getDisplayMedia = () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError'));
    },
    arg: '',
  });
  refuse.page.on('pageerror', (e) => pageErrors.push(e.message));
  await refuse.page.getByTestId('screenshot-button').click();
  await expect(refuse.page.getByTestId('capture-notice')).toHaveText('Screen sharing was refused, so no screenshot was taken.');
  await refuse.context.close();

  const none = await openCapture({
    script: () => {
      Object.defineProperty(MediaDevices.prototype, 'getDisplayMedia', { value: undefined });
    },
    arg: '',
  });
  none.page.on('pageerror', (e) => pageErrors.push(e.message));
  await none.page.getByTestId('screenshot-button').click();
  await expect(none.page.getByTestId('capture-notice')).toHaveText('This browser cannot take screenshots. Take one with your system and paste it here.');
  expect(pageErrors).toEqual([]);
  await none.context.close();
});

/** A fake preload: screenSources() lists a screen and a window; captureScreen(id) hands over known PNGs. With
 * `overlay`, regionOverlay(request) too, which has the test resize the viewport as main resizes the window. */
function fakePreload(arg: string): void {
  const { screen, window: win, thumb, overlay } = JSON.parse(arg) as { screen: string; window: string; thumb: string; overlay?: boolean };
  const bytes = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const calls: unknown[][] = [];
  (window as unknown as { satchelCalls: unknown[][] }).satchelCalls = calls;
  (window as unknown as { satchel: object }).satchel = Object.freeze({
    version: '0.0.0-test',
    screenSources: async (...args: unknown[]) => {
      calls.push(['screenSources', ...args]);
      return [
        { id: 'window:9:0', name: 'Editor', kind: 'window', thumbnail: `data:image/png;base64,${thumb}` },
        { id: 'screen:0:0', name: 'Entire screen', kind: 'screen', thumbnail: `data:image/png;base64,${thumb}` },
      ];
    },
    captureScreen: async (...args: unknown[]) => {
      calls.push(['captureScreen', ...args]);
      return args[0] === 'screen:0:0' ? bytes(screen) : args[0] === 'window:9:0' ? bytes(win) : null;
    },
    ...(overlay
      ? {
          regionOverlay: async (...args: unknown[]) => {
            calls.push(['regionOverlay', ...args]);
            const cover = (window as unknown as { satchelTestCover?: (on: boolean) => Promise<void> }).satchelTestCover;
            await cover?.((args[0] as { on: boolean }).on);
            return true;
          },
        }
      : {}),
  });
}

/** The "screen" of the desktop tests: a real picture of Satchel's main window at twice its CSS size (a HiDPI
 * display of 1280×800 points), as a PNG, with the preload's other images. */
async function desktopImages(): Promise<{ arg: (overlay: boolean) => string }> {
  const shooter = await browser.newContext({ viewport: DISPLAY, deviceScaleFactor: 2 });
  const appPage = await shooter.newPage();
  await openApp(appPage, server);
  const screenPng = await appPage.screenshot();
  await shooter.close();
  expect(pngSize(screenPng)).toEqual({ width: 2560, height: 1600 });
  const windowPng = buildPng(300, 200, (x, y) => [x % 256, y, 120]);
  const thumb = buildPng(32, 20, () => [90, 90, 200]);
  const images = { screen: screenPng.toString('base64'), window: windowPng.toString('base64'), thumb: thumb.toString('base64') };
  return { arg: (overlay) => JSON.stringify({ ...images, overlay }) };
}

test('in the desktop shell: the picker offers screens and windows; a screen is cropped at its own pixels, a window taken whole', async ({}, info) => {
  const { arg } = await desktopImages();
  const { context, page } = await openCapture({ script: fakePreload, arg: arg(false) });

  await page.getByTestId('screenshot-button').click();
  const sources = page.getByTestId('shot-source');
  await expect(sources).toHaveText(['Entire screen', 'Editor']);
  await expect(sources.first().locator('img')).toHaveJSProperty('naturalWidth', 32);
  await expect(sources.first()).toBeFocused();
  expect(await axeProblems(page), 'the picker').toEqual([]);
  await page.screenshot({ path: path.join(screenshotDir(info), 'capture-picker.png') });
  await sources.first().click();
  await expect(page.getByTestId('shot-overlay')).toBeVisible();
  expect(await axeProblems(page), 'the region overlay').toEqual([]);
  expect(await dims(page)).toEqual({ width: 2560, height: 1600 });
  await drag(page, [0.1, 0.2], [0.6, 0.7]);
  const region = await dims(page);
  expect(Math.abs(region.width - 1280)).toBeLessThanOrEqual(8);
  expect(Math.abs(region.height - 800)).toBeLessThanOrEqual(8);
  await page.screenshot({ path: path.join(screenshotDir(info), 'capture-region.png') });
  await page.getByTestId('shot-take').click();
  const screenShot = await storedShot(page);
  expect(pngSize(screenShot.bytes)).toEqual(region);

  // A window: taken whole, no region to choose.
  await page.getByTestId('attachment-chip').getByRole('button', { name: /^Remove/ }).click();
  await expect(page.getByTestId('attachment-chip')).toHaveCount(0);
  await page.getByTestId('screenshot-button').click();
  await page.getByTestId('shot-source').filter({ hasText: 'Editor' }).click();
  const windowShot = await storedShot(page);
  expect(pngSize(windowShot.bytes)).toEqual({ width: 300, height: 200 });
  // Only an id string ever went to captureScreen; screenSources was asked with nothing.
  expect(await page.evaluate(() => (window as unknown as { satchelCalls: unknown[][] }).satchelCalls)).toEqual([
    ['screenSources'],
    ['captureScreen', 'screen:0:0'],
    ['screenSources'],
    ['captureScreen', 'window:9:0'],
  ]);
  await context.close();
});

test('in the desktop shell with regionOverlay: the window covers the screen, the shot lies where the screen was at 1 image pixel per device pixel, and the window is put back after', async ({}, info) => {
  const { arg } = await desktopImages();
  // The capture window on the same HiDPI display (devicePixelRatio 2).
  const { context, page } = await openCapture({ script: fakePreload, arg: arg(true) }, 2);
  // What main does for regionOverlay: the window covers the display (here the viewport becomes the display's size).
  await page.exposeFunction('satchelTestCover', (on: boolean) => page.setViewportSize(on ? DISPLAY : CAPTURE_VIEWPORT));
  const calls = () => page.evaluate(() => (window as unknown as { satchelCalls: unknown[][] }).satchelCalls.filter((c) => c[0] === 'regionOverlay'));

  await page.getByTestId('screenshot-button').click();
  await page.getByTestId('shot-source').filter({ hasText: 'Entire screen' }).click();
  await expect(page.getByTestId('shot-overlay')).toBeVisible();
  await expect.poll(calls).toEqual([['regionOverlay', { on: true, sourceId: 'screen:0:0' }]]);
  expect(await page.evaluate(() => [window.innerWidth, window.innerHeight, window.devicePixelRatio])).toEqual([1280, 800, 2]);
  // The 2560×1600 shot drawn 1280×800 CSS pixels at the window's corner: exactly over the screen it was taken of.
  await expect.poll(async () => page.getByTestId('shot-image').boundingBox()).toEqual({ x: 0, y: 0, width: 1280, height: 800 });
  expect(await dims(page)).toEqual({ width: 2560, height: 1600 });
  expect(await axeProblems(page), 'the region overlay over the screen').toEqual([]);
  // A drag from screen point (100, 60) to (740, 460) is the image's pixels (200, 120)–(1480, 920).
  await page.mouse.move(100, 60);
  await page.mouse.down();
  await page.mouse.move(400, 260, { steps: 4 });
  await page.mouse.move(740, 460, { steps: 4 });
  await page.mouse.up();
  expect(await dims(page)).toEqual({ width: 1280, height: 800 });
  expect(await page.getByTestId('shot-selection').boundingBox()).toEqual({ x: 100, y: 60, width: 640, height: 400 });
  await page.screenshot({ path: path.join(screenshotDir(info), 'capture-region-over-screen.png') });
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('shot-overlay')).toHaveCount(0);
  await expect.poll(calls).toEqual([
    ['regionOverlay', { on: true, sourceId: 'screen:0:0' }],
    ['regionOverlay', { on: false }],
  ]);
  expect(await page.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([CAPTURE_VIEWPORT.width, CAPTURE_VIEWPORT.height]);
  const shot = await storedShot(page);
  expect(pngSize(shot.bytes)).toEqual({ width: 1280, height: 800 });

  // Esc: covered, then put back, nothing taken; a window source is never covered.
  await page.getByTestId('attachment-chip').getByRole('button', { name: /^Remove/ }).click();
  await expect(page.getByTestId('attachment-chip')).toHaveCount(0);
  await page.getByTestId('screenshot-button').click();
  await page.getByTestId('shot-source').filter({ hasText: 'Entire screen' }).click();
  await expect.poll(async () => (await calls()).length).toBe(3);
  await expect.poll(async () => page.getByTestId('shot-image').boundingBox()).toEqual({ x: 0, y: 0, width: 1280, height: 800 });
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('shot-overlay')).toHaveCount(0);
  await expect.poll(async () => (await calls()).slice(2)).toEqual([
    ['regionOverlay', { on: true, sourceId: 'screen:0:0' }],
    ['regionOverlay', { on: false }],
  ]);

  // The person switches to another application: main puts the window back, and the page fits the shot to it again
  // with its bar in place; the overlay still works there.
  await page.getByTestId('screenshot-button').click();
  await page.getByTestId('shot-source').filter({ hasText: 'Entire screen' }).click();
  await expect.poll(async () => page.getByTestId('shot-image').boundingBox()).toEqual({ x: 0, y: 0, width: 1280, height: 800 });
  await page.setViewportSize(CAPTURE_VIEWPORT);
  await page.evaluate(() => window.dispatchEvent(new Event('blur')));
  await expect(page.getByTestId('shot-overlay')).not.toHaveClass(/shot-cover/);
  const bar = (await page.locator('.shot-overlay .shot-bar').boundingBox())!;
  const fitted = (await page.getByTestId('shot-image').boundingBox())!;
  expect(fitted.y, 'the shot is below the bar').toBeGreaterThanOrEqual(bar.y + bar.height - 1);
  expect(fitted.width).toBeLessThanOrEqual(CAPTURE_VIEWPORT.width);
  expect(fitted.width / fitted.height).toBeCloseTo(2560 / 1600, 2);
  await page.getByTestId('shot-whole').click();
  expect(pngSize((await storedShot(page)).bytes)).toEqual({ width: 2560, height: 1600 });
  await page.getByTestId('attachment-chip').getByRole('button', { name: /^Remove/ }).click();
  await expect(page.getByTestId('attachment-chip')).toHaveCount(0);

  await page.getByTestId('screenshot-button').click();
  await page.getByTestId('shot-source').filter({ hasText: 'Editor' }).click();
  expect(pngSize((await storedShot(page)).bytes)).toEqual({ width: 300, height: 200 });
  expect(await calls(), 'a window is not covered').toHaveLength(6);
  await expect(page.getByTestId('attachment-chip')).toHaveCount(1);
  await context.close();
});
