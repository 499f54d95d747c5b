import { describe, expect, it } from 'vitest';
import {
  CAPTURE_LEVEL,
  COVER_LEVEL,
  coverBounds,
  coverSteps,
  createRegionOverlayHandler,
  overlayRequest,
  restoreSteps,
  type Bounds,
  type CoverableWindow,
  type DisplayBounds,
} from './region-overlay.js';
import type { CapturerSource, GetSourcesOptions } from './screen-capture.js';

const APP = 'http://127.0.0.1:41234';
const capturePage = { senderFrame: { url: `${APP}/capture`, parent: null } };
const LEFT: DisplayBounds = { id: 7, bounds: { x: 0, y: 0, width: 1440, height: 900 } };
const RIGHT: DisplayBounds = { id: 9, bounds: { x: 1440, y: -200, width: 2560, height: 1440 } };

describe('coverBounds: the display a screen source names', () => {
  it('is the display whose id is the source\'s display_id', () => {
    expect(coverBounds('screen:9:0', '9', [LEFT, RIGHT])).toEqual(RIGHT.bounds);
    expect(coverBounds('screen:7:0', '7', [LEFT, RIGHT])).toEqual(LEFT.bounds);
  });
  it('without a display id, the only display; with several, none (the page then chooses in its window)', () => {
    expect(coverBounds('screen:0:0', '', [LEFT])).toEqual(LEFT.bounds);
    expect(coverBounds('screen:0:0', '', [LEFT, RIGHT])).toBeNull();
  });
  it('never for a window source, an unknown display, or bounds no display has', () => {
    expect(coverBounds('window:42:0', '7', [LEFT])).toBeNull();
    expect(coverBounds('screen:3:0', '3', [LEFT, RIGHT])).toBeNull();
    expect(coverBounds('screen:7:0', '7', [{ id: 7, bounds: { x: 0, y: 0, width: 0, height: 900 } }])).toBeNull();
    expect(coverBounds('screen:7:0', '7', [{ id: 7, bounds: { x: 0.5, y: 0, width: 10, height: 10 } }])).toBeNull();
    expect(coverBounds('screen:7:0', '7', [{ id: 7, bounds: { x: 0, y: 0, width: 1e9, height: 10 } }])).toBeNull();
  });
});

describe('coverSteps and restoreSteps', () => {
  it('covers on top of everything, fixed, at the display\'s bounds', () => {
    expect(coverSteps(RIGHT.bounds)).toEqual([
      { op: 'setAlwaysOnTop', flag: true, level: COVER_LEVEL },
      { op: 'setContentBounds', bounds: RIGHT.bounds },
      { op: 'setResizable', value: false },
      { op: 'setMovable', value: false },
    ]);
  });
  it('puts back the bounds, resizable, movable and level that were saved', () => {
    const bounds = { x: 680, y: 330, width: 560, height: 420 };
    expect(restoreSteps({ bounds, alwaysOnTop: true, resizable: true, movable: true })).toEqual([
      { op: 'setResizable', value: true },
      { op: 'setMovable', value: true },
      { op: 'setBounds', bounds },
      { op: 'setAlwaysOnTop', flag: true, level: CAPTURE_LEVEL },
    ]);
    expect(restoreSteps({ bounds, alwaysOnTop: false, resizable: false, movable: false })).toEqual([
      { op: 'setResizable', value: false },
      { op: 'setMovable', value: false },
      { op: 'setBounds', bounds },
      { op: 'setAlwaysOnTop', flag: false },
    ]);
  });
});

describe('overlayRequest: only the known shapes', () => {
  it('accepts {on: true, sourceId} for a screen and {on: false}', () => {
    expect(overlayRequest([{ on: true, sourceId: 'screen:1:0' }])).toEqual({ on: true, sourceId: 'screen:1:0' });
    expect(overlayRequest([{ on: false }])).toEqual({ on: false });
  });
  it('refuses bounds, extra keys, window ids, other types and extra arguments', () => {
    for (const args of [
      [],
      [{ on: true, sourceId: 'screen:1:0', bounds: { x: 0, y: 0, width: 9999, height: 9999 } }],
      [{ on: false, bounds: {} }],
      [{ on: true, sourceId: 'window:42:0' }],
      [{ on: true, sourceId: '../screen:1:0' }],
      [{ on: 'true', sourceId: 'screen:1:0' }],
      [{ on: true }],
      [null],
      [[true, 'screen:1:0']],
      [{ on: false }, { on: true }],
    ]) {
      expect(overlayRequest(args), JSON.stringify(args)).toBeNull();
    }
  });
});

class Win implements CoverableWindow {
  log: string[] = [];
  bounds: Bounds = { x: 680, y: 330, width: 560, height: 420 };
  top = true;
  resizable = true;
  movable = true;
  destroyed = false;
  failOn = '';
  listeners = new Map<string, Set<() => void>>();
  contentsListeners = new Map<string, Set<() => void>>();
  getBounds = () => ({ ...this.bounds });
  setBounds = (b: Bounds) => {
    if (this.failOn === 'setBounds') throw new Error('setBounds failed');
    this.log.push(`setBounds ${b.x},${b.y} ${b.width}x${b.height}`);
    this.bounds = { ...b };
  };
  setContentBounds = (b: Bounds) => {
    if (this.failOn === 'setContentBounds') throw new Error('setContentBounds failed');
    this.log.push(`setContentBounds ${b.x},${b.y} ${b.width}x${b.height}`);
    this.bounds = { ...b };
  };
  isAlwaysOnTop = () => this.top;
  setAlwaysOnTop = (flag: boolean, level?: string) => {
    this.log.push(`setAlwaysOnTop ${flag}${level ? ` ${level}` : ''}`);
    this.top = flag;
  };
  isResizable = () => this.resizable;
  setResizable = (v: boolean) => {
    this.log.push(`setResizable ${v}`);
    this.resizable = v;
  };
  isMovable = () => this.movable;
  setMovable = (v: boolean) => {
    this.log.push(`setMovable ${v}`);
    this.movable = v;
  };
  isDestroyed = () => this.destroyed;
  private static add(map: Map<string, Set<() => void>>, e: string, fn: () => void) {
    map.set(e, (map.get(e) ?? new Set()).add(fn));
  }
  on = (e: string, fn: () => void) => Win.add(this.listeners, e, fn);
  removeListener = (e: string, fn: () => void) => this.listeners.get(e)?.delete(fn);
  webContents = {
    on: (e: string, fn: () => void) => Win.add(this.contentsListeners, e, fn),
    removeListener: (e: string, fn: () => void) => this.contentsListeners.get(e)?.delete(fn),
  };
  emit(e: string) {
    for (const fn of [...(this.listeners.get(e) ?? [])]) fn();
  }
  emitContents(e: string) {
    for (const fn of [...(this.contentsListeners.get(e) ?? [])]) fn();
  }
  listening(): number {
    return [...this.listeners.values(), ...this.contentsListeners.values()].reduce((n, s) => n + s.size, 0);
  }
}

function source(id: string, displayId: string): CapturerSource {
  return { id, name: id, display_id: displayId, thumbnail: { isEmpty: () => false, toPNG: () => new Uint8Array(1), toDataURL: () => '', getSize: () => ({ width: 1, height: 1 }) } };
}

function harness(win: Win | null = new Win()) {
  const errors: unknown[] = [];
  const asked: GetSourcesOptions[] = [];
  let release: (() => void) | undefined;
  const state = { hold: false };
  const handler = createRegionOverlayHandler({
    appOrigin: APP,
    getSources: async (o) => {
      asked.push(o);
      if (state.hold) await new Promise<void>((r) => (release = r));
      return [source('screen:7:0', '7'), source('screen:9:0', '9')];
    },
    displays: () => [LEFT, RIGHT],
    windowOf: () => win ?? undefined,
    onError: (e) => errors.push(e),
  });
  return { handler, win: win!, errors, asked, state, release: () => release?.() };
}

const COVERED_RIGHT = ['setAlwaysOnTop true screen-saver', 'setContentBounds 1440,-200 2560x1440', 'setResizable false', 'setMovable false'];
const PUT_BACK = ['setResizable true', 'setMovable true', 'setBounds 680,330 560x420', 'setAlwaysOnTop true floating'];

describe('createRegionOverlayHandler', () => {
  it('covers the source\'s display, and puts the window back as it was when the page asks', async () => {
    const { handler, win, asked } = harness();
    expect(await handler(capturePage, { on: true, sourceId: 'screen:9:0' })).toBe(true);
    expect(asked).toEqual([{ types: ['screen'], thumbnailSize: { width: 1, height: 1 }, fetchWindowIcons: false }]);
    expect(win.log).toEqual(COVERED_RIGHT);
    expect(win.listening()).toBe(5);
    win.log = [];
    expect(await handler(capturePage, { on: false })).toBe(true);
    expect(win.log).toEqual(PUT_BACK);
    expect(win.bounds).toEqual({ x: 680, y: 330, width: 560, height: 420 });
    expect(win.listening(), 'no listener left behind').toBe(0);
    win.log = [];
    expect(await handler(capturePage, { on: false }), 'putting back twice changes nothing').toBe(true);
    expect(win.log).toEqual([]);
  });

  for (const event of ['blur', 'hide', 'close']) {
    it(`puts the window back on its own on ${event}`, async () => {
      const { handler, win } = harness();
      await handler(capturePage, { on: true, sourceId: 'screen:9:0' });
      win.log = [];
      win.emit(event);
      expect(win.log).toEqual(PUT_BACK);
      expect(win.listening()).toBe(0);
      win.log = [];
      await handler(capturePage, { on: false });
      expect(win.log).toEqual([]);
    });
  }

  for (const event of ['did-navigate', 'render-process-gone']) {
    it(`puts the window back when its page is gone (${event})`, async () => {
      const { handler, win } = harness();
      await handler(capturePage, { on: true, sourceId: 'screen:7:0' });
      win.log = [];
      win.emitContents(event);
      expect(win.log).toEqual(PUT_BACK);
    });
  }

  it('a window closed for good is not touched, and forgotten', async () => {
    const { handler, win } = harness();
    await handler(capturePage, { on: true, sourceId: 'screen:9:0' });
    win.log = [];
    win.destroyed = true;
    win.emit('close');
    expect(win.log).toEqual([]);
    expect(win.listening()).toBe(0);
  });

  it('a failure while covering puts back what it can, step by step, and answers false', async () => {
    const { handler, win, errors } = harness();
    win.failOn = 'setContentBounds';
    expect(await handler(capturePage, { on: true, sourceId: 'screen:9:0' })).toBe(false);
    expect(win.log).toEqual(['setAlwaysOnTop true screen-saver', ...PUT_BACK]);
    expect(errors.map(String)).toEqual(['Error: setContentBounds failed']);
    expect(win.listening()).toBe(0);
  });

  it('a step that fails while putting back does not keep the others from being put back', async () => {
    const { handler, win, errors } = harness();
    await handler(capturePage, { on: true, sourceId: 'screen:9:0' });
    win.log = [];
    win.failOn = 'setBounds';
    win.emit('blur');
    expect(win.log).toEqual(['setResizable true', 'setMovable true', 'setAlwaysOnTop true floating']);
    expect(errors.map(String)).toEqual(['Error: setBounds failed']);
    expect(win.listening()).toBe(0);
  });

  it('covering for a new shot puts the window back first, so the saved look is the window\'s own', async () => {
    const { handler, win } = harness();
    await handler(capturePage, { on: true, sourceId: 'screen:9:0' });
    await handler(capturePage, { on: true, sourceId: 'screen:7:0' });
    win.log = [];
    await handler(capturePage, { on: false });
    expect(win.log).toEqual(PUT_BACK);
  });

  it('a put-back asked while the sources are listed wins: the window is not covered after it', async () => {
    const { handler, win, state, release } = harness();
    state.hold = true;
    const covering = handler(capturePage, { on: true, sourceId: 'screen:9:0' });
    await Promise.resolve();
    state.hold = false;
    expect(await handler(capturePage, { on: false })).toBe(true);
    release();
    expect(await covering).toBe(false);
    expect(win.log).toEqual([]);
  });

  it('answers false, changing nothing, for a source that is gone, a bad request, or no window', async () => {
    const { handler, win } = harness();
    expect(await handler(capturePage, { on: true, sourceId: 'screen:3:0' })).toBe(false);
    expect(await handler(capturePage, { on: true, sourceId: 'screen:9:0', bounds: { x: 0, y: 0, width: 1, height: 1 } })).toBe(false);
    expect(await handler(capturePage, 'screen:9:0')).toBe(false);
    expect(win.log).toEqual([]);
    expect(await harness(null).handler(capturePage, { on: true, sourceId: 'screen:9:0' })).toBe(false);
  });

  it('only the app\'s own quick-capture page may ask', async () => {
    const { handler, win } = harness();
    for (const frame of [
      { url: 'https://example.com/capture', parent: null },
      { url: `${APP}/`, parent: null },
      { url: `${APP}/capture`, parent: {} },
      null,
    ]) {
      await expect(handler({ senderFrame: frame }, { on: true, sourceId: 'screen:9:0' })).rejects.toThrow('regionOverlay: untrusted sender');
    }
    expect(win.log).toEqual([]);
  });
});
