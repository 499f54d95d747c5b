// Navigation guards for every web contents the app creates: in-app navigation stays, http(s) links leave for
// the system browser, the rest is refused. Attached from app 'web-contents-created', so popups are covered too.
import type { BrowserWindowConstructorOptions, WebContents } from 'electron';
import { decideNavigation, isAppUrl } from './navigation.js';

/** The parts of Electron's WebContents the guards use, with Electron's own signatures. */
export type GuardedContents = Pick<WebContents, 'on' | 'setWindowOpenHandler'>;

export interface GuardDeps {
  appOrigin: string;
  /** shell.openExternal; only ever called with an allowlisted http(s) URL. */
  openExternal: (url: string) => Promise<void> | void;
  /** Options for in-app popups: the same hardened settings as the main window. */
  popupOptions: () => BrowserWindowConstructorOptions;
  onError?: (err: unknown) => void;
}

export function attachGuards(contents: GuardedContents, deps: GuardDeps): void {
  const leave = (url: string): void => {
    try {
      Promise.resolve(deps.openExternal(url)).catch((err: unknown) => deps.onError?.(err));
    } catch (err) {
      deps.onError?.(err);
    }
  };

  contents.on('will-navigate', (event, url) => {
    const decision = decideNavigation(url, deps.appOrigin);
    if (decision.action === 'allow') return;
    event.preventDefault();
    if (decision.action === 'external') leave(decision.url);
  });

  // A redirect was not clicked by the user: it may stay in the app, but never opens anything outside.
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url, deps.appOrigin)) event.preventDefault();
  });

  contents.on('will-attach-webview', (event) => event.preventDefault());

  contents.setWindowOpenHandler(({ url }) => {
    const decision = decideNavigation(url, deps.appOrigin);
    if (decision.action === 'allow') return { action: 'allow', overrideBrowserWindowOptions: deps.popupOptions() };
    if (decision.action === 'external') leave(decision.url);
    return { action: 'deny' };
  });
}
