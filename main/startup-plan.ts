// What the Electron entry does before 'ready', decided from the arguments and platform alone so it can be
// tested without Electron: which mode, whether to take the single-instance lock, which Chromium switches.
import type { MainArgs } from './args.js';

export type ChromiumSwitch = readonly [name: string, value?: string];

export interface StartupPlan {
  mode: 'window' | 'server-only';
  /** Only the desktop window is one-per-user; a headless server may run beside it (e.g. over SSH). */
  singleInstanceLock: boolean;
  /** Appended with app.commandLine.appendSwitch before 'ready'. */
  switches: readonly ChromiumSwitch[];
  disableHardwareAcceleration: boolean;
}

export function startupPlan(args: MainArgs, platform: NodeJS.Platform): StartupPlan {
  if (!args.serverOnly) {
    return { mode: 'window', singleInstanceLock: true, switches: [], disableHardwareAcceleration: false };
  }
  // Ozone's headless platform skips X11/Wayland initialisation, so no display is needed; Chromium's own
  // --headless is a chrome/ layer switch that Electron ignores. Nothing is drawn, so no GPU process either.
  const switches: ChromiumSwitch[] = [['disable-gpu']];
  if (platform === 'linux') switches.unshift(['ozone-platform', 'headless']);
  return { mode: 'server-only', singleInstanceLock: false, switches, disableHardwareAcceleration: true };
}
