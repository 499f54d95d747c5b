import { describe, expect, it } from 'vitest';
import {
  dataUrlBytes,
  deviceScale,
  dragRect,
  fitImage,
  initialRect,
  MAX_SOURCE_NAME_CHARS,
  MIN_REGION_PX,
  nudge,
  pickerSources,
  screenshotName,
  toBoxRect,
  toImagePoint,
  wholeImage,
} from './capture-region.js';

// A 2880×1800 Retina screen shown in a 560×420 capture window.
const RETINA = { width: 2880, height: 1800 };
const BOX = { width: 560, height: 420 };

describe('the image in the overlay', () => {
  it('is scaled to fit whole and centered, never enlarged', () => {
    const fit = fitImage(RETINA, BOX);
    expect(fit.scale).toBeCloseTo(560 / 2880);
    expect(fit.left).toBe(0);
    expect(fit.top).toBeCloseTo((420 - 1800 * (560 / 2880)) / 2);
    expect(fitImage({ width: 100, height: 50 }, BOX)).toEqual({ scale: 1, left: 230, top: 185 });
  });

  it('over the whole screen, one image pixel per device pixel: the shot lies exactly where the screen was', () => {
    // The window covers the 1440×900-point Retina display; the 2880×1800 shot is drawn 1440×900 CSS pixels at 0,0.
    const fit = fitImage(RETINA, { width: 1440, height: 900 }, deviceScale(2));
    expect(fit).toEqual({ scale: 0.5, left: 0, top: 0 });
    expect(toImagePoint({ x: 100, y: 50 }, fit, RETINA)).toEqual({ x: 200, y: 100 });
    // Still inside a smaller window (before it covers the screen, or once it is put back): fitted, not cut.
    expect(fitImage(RETINA, BOX, deviceScale(2)).scale).toBeCloseTo(560 / 2880);
    // A 125% Windows display: 1920 image pixels are 1536 CSS pixels.
    expect(fitImage({ width: 1920, height: 1080 }, { width: 1536, height: 864 }, deviceScale(1.25))).toEqual({ scale: 0.8, left: 0, top: 0 });
    expect([deviceScale(1), deviceScale(0), deviceScale(Number.NaN), deviceScale(-2)]).toEqual([1, 1, 1, 1]);
  });

  it('a point on the page is a point in image pixels, clamped to the image', () => {
    const fit = fitImage(RETINA, BOX);
    expect(toImagePoint({ x: 280, y: 210 }, fit, RETINA)).toEqual({ x: 1440, y: 900 });
    expect(toImagePoint({ x: -40, y: 1000 }, fit, RETINA)).toEqual({ x: 0, y: 1800 });
  });
});

describe('dragRect', () => {
  it('a drag in CSS pixels becomes the HiDPI image pixels it covers', () => {
    const fit = fitImage(RETINA, BOX);
    const a = toImagePoint({ x: 56, y: fit.top + 28 }, fit, RETINA);
    const b = toImagePoint({ x: 112, y: fit.top + 84 }, fit, RETINA);
    // 56 CSS px at 560/2880 is 288 image px.
    expect(dragRect(a, b, RETINA)).toEqual({ x: 288, y: 144, width: 288, height: 288 });
  });

  it('any direction gives the same rectangle; edges round outward; the image bounds clamp it', () => {
    expect(dragRect({ x: 50.6, y: 40.2 }, { x: 10.4, y: 10.9 }, { width: 100, height: 100 })).toEqual({ x: 10, y: 10, width: 41, height: 31 });
    expect(dragRect({ x: -20, y: 90 }, { x: 30, y: 140 }, { width: 100, height: 100 })).toEqual({ x: 0, y: 90, width: 30, height: 10 });
  });

  it('smaller than the minimum on a side is no rectangle (a click, not a region)', () => {
    expect(dragRect({ x: 10, y: 10 }, { x: 10 + MIN_REGION_PX - 1, y: 200 }, RETINA)).toBeNull();
    expect(dragRect({ x: 10, y: 10 }, { x: 10 + MIN_REGION_PX, y: 10 + MIN_REGION_PX }, RETINA)).toEqual({ x: 10, y: 10, width: MIN_REGION_PX, height: MIN_REGION_PX });
  });

  it('draws back onto the page where it was dragged', () => {
    const fit = fitImage(RETINA, BOX);
    const box = toBoxRect({ x: 288, y: 144, width: 288, height: 288 }, fit);
    expect(box.x).toBeCloseTo(56);
    expect(box.width).toBeCloseTo(56);
  });
});

describe('keyboard', () => {
  const image = { width: 200, height: 100 };
  const none = { shift: false, alt: false };

  it('starts from the middle half, or the whole of a tiny image', () => {
    expect(initialRect(image)).toEqual({ x: 50, y: 25, width: 100, height: 50 });
    expect(initialRect({ width: 4, height: 4 })).toEqual({ x: 0, y: 0, width: 4, height: 4 });
    expect(wholeImage(image)).toEqual({ x: 0, y: 0, width: 200, height: 100 });
  });

  it('arrows move by one pixel, Shift by ten, and stop at the image edge', () => {
    const r = { x: 50, y: 25, width: 100, height: 50 };
    expect(nudge(r, 'ArrowRight', none, image)).toEqual({ ...r, x: 51 });
    expect(nudge(r, 'ArrowUp', { shift: true, alt: false }, image)).toEqual({ ...r, y: 15 });
    expect(nudge({ ...r, x: 95 }, 'ArrowRight', { shift: true, alt: false }, image)).toEqual({ ...r, x: 100 });
    expect(nudge({ ...r, x: 0 }, 'ArrowLeft', none, image)).toEqual({ ...r, x: 0 });
  });

  it('Alt+arrows resize, never below the minimum nor past the image', () => {
    const r = { x: 50, y: 25, width: 100, height: 50 };
    expect(nudge(r, 'ArrowRight', { shift: false, alt: true }, image)).toEqual({ ...r, width: 101 });
    expect(nudge(r, 'ArrowDown', { shift: true, alt: true }, image)).toEqual({ ...r, height: 60 });
    expect(nudge({ ...r, width: MIN_REGION_PX }, 'ArrowLeft', { shift: true, alt: true }, image)).toEqual({ ...r, width: MIN_REGION_PX });
    expect(nudge({ ...r, height: 74 }, 'ArrowDown', { shift: true, alt: true }, image)).toEqual({ ...r, height: 75 });
  });

  it('other keys are not its business', () => {
    expect(nudge({ x: 0, y: 0, width: 10, height: 10 }, 'Enter', none, image)).toBeNull();
  });
});

describe('screenshotName', () => {
  it('is named like a macOS screenshot, in local time, with dots for the time', () => {
    expect(screenshotName(new Date(2026, 10, 26, 17, 52, 3))).toBe('Screenshot 2026-11-26 at 17.52.03.png');
    expect(screenshotName(new Date(2027, 0, 2, 4, 5, 6))).toBe('Screenshot 2027-01-02 at 04.05.06.png');
  });
});

describe('pickerSources', () => {
  const png = 'data:image/png;base64,iVBORw0KGgo=';

  it('keeps well-formed sources, screens first, windows by name', () => {
    expect(
      pickerSources([
        { id: 'window:42:0', name: 'Terminal', kind: 'window', thumbnail: png },
        { id: 'screen:1:0', name: 'Screen 2', kind: 'screen', thumbnail: png },
        { id: 'window:7:0', name: 'Browser', kind: 'window', thumbnail: '' },
        { id: 'screen:0:0', name: 'Entire screen', kind: 'screen', thumbnail: png },
      ]).map((s) => s.name),
    ).toEqual(['Screen 2', 'Entire screen', 'Browser', 'Terminal']);
  });

  it('drops malformed entries, an id of the wrong kind, and thumbnails that are not PNG data URLs', () => {
    const list = pickerSources([
      null,
      'screen:0:0',
      { id: '../../etc', name: 'x', kind: 'screen' },
      { id: 'window:1:0', name: 'says screen', kind: 'screen' },
      { id: 'screen:0:0', name: ' ', kind: 'screen', thumbnail: 'https://example.com/x.png' },
      { id: 'window:3:0', name: 'T'.repeat(500), kind: 'window', thumbnail: 'data:image/svg+xml;base64,PHN2Zz4=' },
    ]);
    expect(list).toEqual([
      { id: 'screen:0:0', name: 'Screen', kind: 'screen', thumbnail: '' },
      { id: 'window:3:0', name: 'T'.repeat(MAX_SOURCE_NAME_CHARS), kind: 'window', thumbnail: '' },
    ]);
    expect(pickerSources({ id: 'screen:0:0' })).toEqual([]);
  });

  it('decodes a thumbnail to bytes for a blob: URL', () => {
    expect(Array.from(dataUrlBytes(png)!.slice(0, 4))).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(dataUrlBytes('data:image/png,raw')).toBeNull();
    expect(dataUrlBytes('data:image/png;base64,@@@')).toBeNull();
  });
});
