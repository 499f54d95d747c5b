import { describe, expect, it } from 'vitest';
import {
  boundedSize,
  captureSize,
  createCaptureScreenHandler,
  createScreenSourcesHandler,
  HIDE_SETTLE_MS,
  listedSources,
  MAX_CAPTURE_EDGE_PX,
  MAX_CAPTURE_PNG_BYTES,
  MAX_LISTED_SOURCES,
  THUMBNAIL_SIZE,
  type CapturerSource,
  type DisplayInfo,
  type GetSourcesOptions,
} from './screen-capture.js';

const APP = 'http://127.0.0.1:41234';
const page = { senderFrame: { url: `${APP}/capture`, parent: null }, sender: 'capture-contents' };
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

/** A desktopCapturer source whose "thumbnail" is the size it was asked for (as Electron scales a screen). */
function source(id: string, name: string, displayId = '', png: Uint8Array = PNG, empty = false): (size: { width: number; height: number }) => CapturerSource {
  return (size) => ({
    id,
    name,
    display_id: displayId,
    thumbnail: { isEmpty: () => empty, toPNG: () => png, toDataURL: () => `data:image/png;base64,${size.width}x${size.height}`, getSize: () => size },
  });
}

const RETINA: DisplayInfo = { id: 7, size: { width: 1440, height: 900 }, scaleFactor: 2 };
const WIDE: DisplayInfo = { id: 9, size: { width: 2560, height: 1440 }, scaleFactor: 1 };

function harness(sources = [source('screen:7:0', 'Built-in', '7'), source('screen:9:0', 'External', '9'), source('window:42:0', 'Terminal'), source('window:5:0', 'Quick capture')]) {
  const calls: GetSourcesOptions[] = [];
  const log: string[] = [];
  const deps = {
    appOrigin: APP,
    getSources: async (o: GetSourcesOptions) => {
      calls.push(o);
      log.push(`getSources ${o.thumbnailSize.width}x${o.thumbnailSize.height}`);
      return sources.map((s) => s(o.thumbnailSize)).filter((s) => o.types.some((t) => s.id.startsWith(t)));
    },
    displays: () => [RETINA, WIDE],
    ownSourceIds: () => ['window:5:0'],
    hideSender: (e: { sender?: unknown }) => {
      log.push(`hide ${String(e.sender)}`);
      return () => log.push('show');
    },
    wait: async (ms: number) => void log.push(`wait ${ms}`),
  };
  return { deps, calls, log };
}

describe('sizes', () => {
  it('a screen is asked at its own display pixels (points × scale factor)', () => {
    expect(captureSize('screen:7:0', '7', [WIDE, RETINA])).toEqual({ width: 2880, height: 1800 });
    expect(captureSize('screen:9:0', '9', [WIDE, RETINA])).toEqual({ width: 2560, height: 1440 });
  });

  it('a window, or a screen of an unknown display, at the largest display', () => {
    expect(captureSize('window:42:0', '', [WIDE, RETINA])).toEqual({ width: 2880, height: 1800 });
    expect(captureSize('screen:3:0', '3', [WIDE])).toEqual({ width: 2560, height: 1440 });
    expect(captureSize('screen:3:0', '3', [])).toEqual({ width: 1920, height: 1080 });
  });

  it('never more than the bound a side, proportions kept; nonsense is one pixel, not NaN', () => {
    expect(boundedSize({ width: 100_000, height: 50_000 })).toEqual({ width: MAX_CAPTURE_EDGE_PX, height: MAX_CAPTURE_EDGE_PX / 2 });
    expect(boundedSize({ width: Number.NaN, height: -5 })).toEqual({ width: 1, height: 1 });
    expect(captureSize('screen:1:0', '1', [{ id: 1, size: { width: 1000, height: 500 }, scaleFactor: Number.NaN }])).toEqual({ width: 1000, height: 500 });
  });
});

describe('listedSources', () => {
  it('leaves out Satchel\'s own windows and malformed ids, and caps the list', () => {
    const make = (id: string) => source(id, id)(THUMBNAIL_SIZE);
    const list = listedSources([make('screen:0:0'), make('window:5:0'), make('bogus'), make('window:6:0')], ['window:5:0']);
    expect(list).toEqual([
      { id: 'screen:0:0', name: 'screen:0:0', kind: 'screen', thumbnail: 'data:image/png;base64,320x200' },
      { id: 'window:6:0', name: 'window:6:0', kind: 'window', thumbnail: 'data:image/png;base64,320x200' },
    ]);
    const many = Array.from({ length: 80 }, (_, i) => make(`window:${i + 10}:0`));
    expect(listedSources(many, [])).toHaveLength(MAX_LISTED_SOURCES);
    expect(listedSources([source('window:1:0', 'x', '', PNG, true)(THUMBNAIL_SIZE)], [])[0]!.thumbnail).toBe('');
  });
});

describe('the screen-sources handler', () => {
  it('answers the app\'s page with small thumbnails of screens and windows', async () => {
    const { deps, calls } = harness();
    const list = await createScreenSourcesHandler(deps)(page);
    expect(list.map((s) => s.id)).toEqual(['screen:7:0', 'screen:9:0', 'window:42:0']);
    expect(calls).toEqual([{ types: ['screen', 'window'], thumbnailSize: THUMBNAIL_SIZE, fetchWindowIcons: false }]);
  });

  it('refuses another origin, a sub-frame, and arguments', async () => {
    const handler = createScreenSourcesHandler(harness().deps);
    await expect(handler({ senderFrame: { url: 'https://example.com/', parent: null } })).rejects.toThrow('untrusted sender');
    await expect(handler({ senderFrame: { url: `${APP}/capture`, parent: {} } })).rejects.toThrow('untrusted sender');
    await expect(handler(page, 'screen:7:0')).rejects.toThrow('no arguments');
  });
});

describe('the capture-screen handler', () => {
  it('hides the capture window, waits, takes the screen at its HiDPI pixels, shows the window again', async () => {
    const { deps, log } = harness();
    const png = await createCaptureScreenHandler(deps)(page, 'screen:7:0');
    expect(Array.from(png!)).toEqual(Array.from(PNG));
    expect(png).toBeInstanceOf(Uint8Array);
    expect(log).toEqual(['hide capture-contents', `wait ${HIDE_SETTLE_MS}`, 'getSources 1x1', 'getSources 2880x1800', 'show']);
  });

  it('a window is taken at the largest display\'s size', async () => {
    const { deps, log } = harness();
    expect(await createCaptureScreenHandler(deps)(page, 'window:42:0')).not.toBeNull();
    expect(log).toContain('getSources 2880x1800');
  });

  it('answers null, never bytes, for a bad id, one of Satchel\'s own windows, a gone source, an empty or huge image', async () => {
    const huge = new Uint8Array(MAX_CAPTURE_PNG_BYTES + 1);
    const { deps, log } = harness([source('screen:7:0', 'x', '7', PNG, true), source('window:8:0', 'big', '', huge), source('window:5:0', 'Quick capture')]);
    const handler = createCaptureScreenHandler(deps);
    for (const bad of [['../screen'], ['screen:1'], [42], [], ['screen:7:0', 'extra'], ['window:5:0']]) {
      expect(await handler(page, ...bad), JSON.stringify(bad)).toBeNull();
    }
    expect(log, 'nothing hidden or taken for a refused id').toEqual([]);
    expect(await handler(page, 'window:99:0'), 'gone').toBeNull();
    expect(await handler(page, 'screen:7:0'), 'empty').toBeNull();
    expect(await handler(page, 'window:8:0'), 'too large').toBeNull();
    expect(log.filter((l) => l === 'show'), 'shown again every time').toHaveLength(3);
  });

  it('shows the window again when the capturer fails, and takes one shot at a time', async () => {
    const { deps, log } = harness();
    let release: () => void = () => {};
    const slow = { ...deps, wait: () => new Promise<void>((r) => (release = r)) };
    const handler = createCaptureScreenHandler(slow);
    const first = handler(page, 'screen:7:0');
    expect(await handler(page, 'screen:9:0'), 'a second press while the first is taken').toBeNull();
    release();
    expect(await first).not.toBeNull();

    const failing = createCaptureScreenHandler({ ...deps, getSources: () => Promise.reject(new Error('no permission')) });
    log.length = 0;
    await expect(failing(page, 'screen:7:0')).rejects.toThrow('no permission');
    expect(log).toEqual(['hide capture-contents', 'wait 150', 'show']);
  });

  it('refuses another origin before hiding anything', async () => {
    const { deps, log } = harness();
    await expect(createCaptureScreenHandler(deps)({ senderFrame: { url: 'https://example.com/', parent: null } }, 'screen:7:0')).rejects.toThrow('untrusted sender');
    expect(log).toEqual([]);
  });
});
