// The Electron side of main/screen-capture.ts and main/region-overlay.ts: their dependencies built from
// desktopCapturer, screen and the asking page's window. Thin; main/electron-main.test.ts drives it against the
// fake electron module.
import { BrowserWindow, desktopCapturer, screen, type WebContents } from 'electron';
import type { RegionOverlayDeps } from './region-overlay.js';
import type { CaptureInvokeEvent, CapturerSource, ScreenCaptureDeps } from './screen-capture.js';

function senderWindow(event: CaptureInvokeEvent): BrowserWindow | undefined {
  const win = event.sender ? BrowserWindow.fromWebContents(event.sender as WebContents) : null;
  return win && !win.isDestroyed() ? win : undefined;
}

export function electronScreenCaptureDeps(appOrigin: string): ScreenCaptureDeps {
  return {
    appOrigin,
    getSources: (options) => desktopCapturer.getSources(options) as Promise<CapturerSource[]>,
    displays: () => screen.getAllDisplays(),
    ownSourceIds: () => BrowserWindow.getAllWindows().filter((w) => !w.isDestroyed()).map((w) => w.getMediaSourceId()),
    hideSender: (event: CaptureInvokeEvent) => {
      const win = senderWindow(event);
      if (!win || !win.isVisible()) return undefined;
      win.hide();
      return () => {
        if (!win.isDestroyed()) win.show();
      };
    },
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}

export function electronRegionOverlayDeps(appOrigin: string, onError: (err: unknown) => void): RegionOverlayDeps {
  return {
    appOrigin,
    getSources: (options) => desktopCapturer.getSources(options) as Promise<CapturerSource[]>,
    displays: () => screen.getAllDisplays(),
    windowOf: senderWindow,
    onError,
  };
}
