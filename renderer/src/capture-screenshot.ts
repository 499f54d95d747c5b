// Quick capture's Screenshot: where the pixels come from, and the overlay where a region of them is chosen.
// In the desktop shell the preload offers window.satchel.screenSources() (a picker of screens and windows) and
// captureScreen(id) (its full-resolution PNG, taken by main with the capture window hidden). In a plain browser
// (the headless server) the page asks getDisplayMedia for one frame. A screen is then shown in an overlay over
// the page where a rectangle is dragged (or moved with the keyboard); the crop is made at the image's own pixels.
// A window is taken whole. When the preload also offers regionOverlay (preload/index.cts), a screen's region is
// chosen over the screen itself: main makes the capture window cover that display (main/region-overlay.ts) and
// the shot is drawn at one image pixel per device pixel, so it lies exactly where the screen was (the screen
// "freezes", as with macOS's Cmd+Shift+4); the window is put back when the overlay closes. The result is a PNG
// File for the capture's upload queue, or null when cancelled.
import {
  dataUrlBytes,
  deviceScale,
  dragRect,
  fitImage,
  initialRect,
  nudge,
  pickerSources,
  screenshotName,
  toBoxRect,
  toImagePoint,
  wholeImage,
  type Fit,
  type Point,
  type Rect,
  type ScreenSource,
} from './capture-region.js';
import { h } from './dom.js';

/** The preload's calls (preload/index.cts), when the page runs in the desktop shell. regionOverlay is optional:
 * without it the region is chosen inside the capture window. */
interface ScreenApi {
  screenSources(): Promise<unknown>;
  captureScreen(id: string): Promise<Uint8Array | null>;
  regionOverlay?(request: { on: true; sourceId: string } | { on: false }): Promise<boolean>;
}

/** Covering the screen for the region step: `on` resolves true when the window now covers the shot's display. */
interface Cover {
  on(): Promise<boolean>;
  off(): void;
}

/** How long a display-capture stream may take to show its first frame before the page gives up. */
export const FIRST_FRAME_TIMEOUT_MS = 5_000;

/** Why a screenshot could not be taken, in words for the capture page's notice. */
export class ScreenshotError extends Error {}

export const NO_DISPLAY_CAPTURE = 'This browser cannot take screenshots. Take one with your system and paste it here.';
export const DISPLAY_CAPTURE_REFUSED = 'Screen sharing was refused, so no screenshot was taken.';
export const SHOT_FAILED = 'The screenshot could not be taken. On macOS, allow Satchel under Privacy & Security → Screen Recording.';

function screenApi(): ScreenApi | null {
  const api = (window as unknown as { satchel?: Partial<ScreenApi> }).satchel;
  return api && typeof api.screenSources === 'function' && typeof api.captureScreen === 'function' ? (api as ScreenApi) : null;
}

/** Take a screenshot: a File (PNG) to add to the capture, or null when the person cancelled. Throws
 * ScreenshotError with a sentence for the page when it cannot be taken. */
export async function takeScreenshot(): Promise<File | null> {
  const api = screenApi();
  const taken = api ? await fromDesktop(api) : await fromDisplayMedia();
  if (!taken) return null;
  try {
    const rect = taken.whole ? wholeImage(taken.image) : await chooseRegion(taken.image, taken.cover);
    return rect ? await crop(taken.image, rect) : null;
  } finally {
    taken.image.close();
  }
}

interface Taken {
  image: ImageBitmap;
  /** A window is taken whole: no region to choose. */
  whole: boolean;
  /** A screen in the desktop shell: how to cover its display for the region step. */
  cover?: Cover;
}

function coverFor(api: ScreenApi, source: ScreenSource): Cover | undefined {
  const regionOverlay = api.regionOverlay;
  if (source.kind !== 'screen' || typeof regionOverlay !== 'function') return undefined;
  return {
    on: () => regionOverlay({ on: true, sourceId: source.id }).then((covered) => covered === true, () => false),
    // Nothing waits for it: the crop goes on whether or not main answers (it also puts the window back itself
    // when the window loses focus or closes).
    off: () => void regionOverlay({ on: false }).catch(() => false),
  };
}

async function fromDesktop(api: ScreenApi): Promise<Taken | null> {
  const sources = pickerSources(await api.screenSources().catch(() => []));
  if (sources.length === 0) throw new ScreenshotError(SHOT_FAILED);
  const source = await pickSource(sources);
  if (!source) return null;
  const png = await api.captureScreen(source.id).catch(() => null);
  if (!png) throw new ScreenshotError(SHOT_FAILED);
  const image = await createImageBitmap(new Blob([png as BlobPart], { type: 'image/png' })).catch(() => null);
  if (!image) throw new ScreenshotError(SHOT_FAILED);
  return { image, whole: source.kind === 'window', cover: coverFor(api, source) };
}

/** One frame of a getDisplayMedia stream (the browser's own picker chooses the screen, window or tab). */
async function fromDisplayMedia(): Promise<Taken | null> {
  if (typeof navigator.mediaDevices?.getDisplayMedia !== 'function') throw new ScreenshotError(NO_DISPLAY_CAPTURE);
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getDisplayMedia({ video: true, audio: false });
  } catch (err) {
    // NotAllowedError: the person (or the browser's policy) said no; AbortError: the picker was closed.
    if (err instanceof DOMException && err.name === 'AbortError') return null;
    throw new ScreenshotError(err instanceof DOMException && err.name === 'NotAllowedError' ? DISPLAY_CAPTURE_REFUSED : NO_DISPLAY_CAPTURE);
  }
  try {
    const video = h('video', { playsinline: true });
    video.muted = true; // the property, not the attribute, is what lets play() start without a gesture
    video.srcObject = stream;
    await video.play();
    await firstFrame(video);
    const canvas = h('canvas', { width: video.videoWidth, height: video.videoHeight });
    canvas.getContext('2d')!.drawImage(video, 0, 0);
    return { image: await createImageBitmap(canvas), whole: false };
  } catch {
    throw new ScreenshotError(SHOT_FAILED);
  } finally {
    for (const track of stream.getTracks()) track.stop();
  }
}

function firstFrame(video: HTMLVideoElement): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no frame')), FIRST_FRAME_TIMEOUT_MS);
    const check = () => {
      if (video.videoWidth > 0 && video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA) {
        clearTimeout(timer);
        resolve();
      } else {
        requestAnimationFrame(check);
      }
    };
    check();
  });
}

async function crop(image: ImageBitmap, rect: Rect): Promise<File> {
  const canvas = h('canvas', { width: rect.width, height: rect.height });
  canvas.getContext('2d')!.drawImage(image, rect.x, rect.y, rect.width, rect.height, 0, 0, rect.width, rect.height);
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
  if (!blob) throw new ScreenshotError(SHOT_FAILED);
  return new File([blob], screenshotName(new Date()), { type: 'image/png' });
}

/**
 * A modal layer over the whole page. Its keys are taken on window in the capture phase, before the page's own
 * (capture.ts closes the window on Esc): Esc here cancels the layer only, and the draft stays as it was.
 */
function overlay(label: string, testId: string, onKey: (e: KeyboardEvent) => void): { root: HTMLElement; close: () => void } {
  const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const root = h('div', { class: 'shot-overlay', role: 'dialog', 'aria-modal': 'true', 'aria-label': label, 'data-testid': testId, tabindex: -1 });
  const keys = (e: KeyboardEvent) => {
    e.stopPropagation();
    onKey(e);
  };
  window.addEventListener('keydown', keys, { capture: true });
  document.body.appendChild(root);
  return {
    root,
    close: () => {
      window.removeEventListener('keydown', keys, { capture: true });
      root.remove();
      previous?.focus();
    },
  };
}

/** The desktop shell's picker: a button per screen and window, with its thumbnail. */
function pickSource(sources: ScreenSource[]): Promise<ScreenSource | null> {
  return new Promise((resolve) => {
    const urls: string[] = [];
    const done = (choice: ScreenSource | null) => {
      layer.close();
      for (const u of urls) URL.revokeObjectURL(u);
      resolve(choice);
    };
    const layer = overlay('Take a screenshot of', 'shot-picker', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        done(null);
      }
    });
    const item = (s: ScreenSource) => {
      const bytes = s.thumbnail ? dataUrlBytes(s.thumbnail) : null;
      // The page's policy allows blob: images, not data: ones.
      const url = bytes ? URL.createObjectURL(new Blob([bytes as BlobPart], { type: 'image/png' })) : '';
      if (url) urls.push(url);
      return h(
        'li',
        {},
        h('button', { type: 'button', class: 'shot-source', 'data-testid': 'shot-source', 'data-kind': s.kind, onclick: () => done(s) }, url ? h('img', { src: url, alt: '' }) : null, h('span', {}, s.name)),
      );
    };
    layer.root.append(
      h('div', { class: 'shot-bar' }, h('strong', {}, 'Take a screenshot of'), h('button', { type: 'button', class: 'btn', 'data-testid': 'shot-cancel', onclick: () => done(null) }, 'Cancel')),
      h('ul', { class: 'shot-sources' }, sources.map(item)),
    );
    layer.root.querySelector<HTMLButtonElement>('.shot-source')?.focus();
  });
}

/** The region overlay: the shot drawn to fit, a rectangle dragged over it (or moved with the keys). With `cover`,
 * the window is asked to cover the screen once the overlay is up, the shot is drawn at one image pixel per device
 * pixel (it then fills the window exactly) and the bar floats over it; the window is put back when it closes. */
function chooseRegion(image: ImageBitmap, cover?: Cover): Promise<Rect | null> {
  return new Promise((resolve) => {
    const size = { width: image.width, height: image.height };
    let rect: Rect | null = null;
    let fit: Fit = { scale: 1, left: 0, top: 0 };
    let covering = false;
    let dragFrom: Point | null = null;

    const canvas = h('canvas', { class: 'shot-image', width: size.width, height: size.height, role: 'img', 'aria-label': `The screenshot, ${size.width} × ${size.height} pixels`, 'data-testid': 'shot-image' });
    canvas.getContext('2d')!.drawImage(image, 0, 0);
    const selection = h('div', { class: 'shot-selection', 'data-testid': 'shot-selection', hidden: true });
    const dims = h('span', { class: 'shot-dims', 'data-testid': 'shot-dims' });
    const stage = h('div', { class: 'shot-stage', 'data-testid': 'shot-stage' }, canvas, selection);
    const take = h('button', { type: 'button', class: 'btn btn-primary', 'data-testid': 'shot-take', disabled: true, onclick: () => finish(rect) }, 'Take region');

    // The stage's size changes with the window and with the bar above it (its text wraps in a small window).
    const resized = new ResizeObserver(() => layout());
    const finish = (r: Rect | null) => {
      resized.disconnect();
      window.removeEventListener('blur', uncovered);
      layer.close();
      if (cover) cover.off();
      resolve(r);
    };
    /** Back in the window's own size (main would not cover, or put the window back when it lost focus): the bar
     * in its place again and the shot fitted to the window. */
    const uncovered = () => {
      if (!covering) return;
      covering = false;
      layer.root.classList.remove('shot-cover');
      layout();
    };
    const layer = overlay('Choose a region of the screenshot', 'shot-overlay', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        finish(null);
      } else if (e.key === 'Enter' && !(e.target instanceof HTMLButtonElement)) {
        e.preventDefault();
        if (rect) finish(rect);
      } else {
        const moved = nudge(rect ?? initialRect(size), e.key, { shift: e.shiftKey, alt: e.altKey }, size);
        if (!moved) return;
        e.preventDefault();
        rect = rect ? moved : initialRect(size);
        draw();
      }
    });
    const draw = () => {
      take.disabled = rect === null;
      selection.hidden = rect === null;
      dims.textContent = rect ? `${rect.width} × ${rect.height}` : `${size.width} × ${size.height}`;
      if (!rect) return;
      const box = toBoxRect(rect, fit);
      Object.assign(selection.style, { left: `${box.x}px`, top: `${box.y}px`, width: `${box.width}px`, height: `${box.height}px` });
    };
    function layout() {
      fit = fitImage(size, { width: stage.clientWidth, height: stage.clientHeight }, covering ? deviceScale(window.devicePixelRatio) : 1);
      Object.assign(canvas.style, { left: `${fit.left}px`, top: `${fit.top}px`, width: `${size.width * fit.scale}px`, height: `${size.height * fit.scale}px` });
      draw();
    }
    const at = (e: PointerEvent): Point => {
      const box = stage.getBoundingClientRect();
      return toImagePoint({ x: e.clientX - box.left, y: e.clientY - box.top }, fit, size);
    };
    stage.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      e.preventDefault();
      stage.setPointerCapture(e.pointerId);
      dragFrom = at(e);
    });
    stage.addEventListener('pointermove', (e) => {
      if (!dragFrom) return;
      rect = dragRect(dragFrom, at(e), size) ?? rect;
      draw();
    });
    stage.addEventListener('pointerup', (e) => {
      if (!dragFrom) return;
      rect = dragRect(dragFrom, at(e), size) ?? rect;
      dragFrom = null;
      draw();
      take.focus();
    });

    layer.root.append(
      h(
        'div',
        { class: 'shot-bar' },
        dims,
        h('button', { type: 'button', class: 'btn', 'data-testid': 'shot-whole', onclick: () => finish(wholeImage(size)) }, 'Whole screen'),
        h('button', { type: 'button', class: 'btn', 'data-testid': 'shot-cancel', onclick: () => finish(null) }, 'Cancel'),
        take,
        h('span', { class: 'shot-help', id: 'shot-help' }, 'Drag a region, or use the arrows (Alt+arrows resize). Enter takes it, Esc cancels.'),
      ),
      stage,
    );
    layer.root.setAttribute('aria-describedby', 'shot-help');
    resized.observe(stage);
    if (cover) {
      // The bar floats (the stage is the whole window) from the start, so the stage is already the display's
      // size when the window has grown to it; the image fits the small window until then.
      layer.root.classList.add('shot-cover');
      covering = true;
      // Main puts the window back when it loses focus (region-overlay.ts); the page follows.
      window.addEventListener('blur', uncovered);
      void cover.on().then((covered) => {
        if (!covered && layer.root.isConnected) uncovered();
      });
    }
    layout();
    layer.root.focus();
  });
}
