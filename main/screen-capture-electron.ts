// The Electron side of main/screen-capture.ts: its dependencies built from desktopCapturer, screen and the asking
// page's window. Thin; main/electron-main.test.ts drives it against the fake electron module.
import { BrowserWindow, desktopCapturer, screen, type WebContents } from 'electron';
import type { CaptureInvokeEvent, CapturerSource, ScreenCaptureDeps } from './screen-capture.js';

export function electronScreenCaptureDeps(appOrigin: string): ScreenCaptureDeps {
  return {
    appOrigin,
    getSources: (options) => desktopCapturer.getSources(options) as Promise<CapturerSource[]>,
    displays: () => screen.getAllDisplays(),
    ownSourceIds: () => BrowserWindow.getAllWindows().filter((w) => !w.isDestroyed()).map((w) => w.getMediaSourceId()),
    hideSender: (event: CaptureInvokeEvent) => {
      const win = event.sender ? BrowserWindow.fromWebContents(event.sender as WebContents) : null;
      if (!win || win.isDestroyed() || !win.isVisible()) return undefined;
      win.hide();
      return () => {
        if (!win.isDestroyed()) win.show();
      };
    },
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}
