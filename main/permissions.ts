// Permission decisions for the window's session. The app needs two capabilities, only for its own page in the
// main frame: the microphone (dictation: media with audio alone) and writing text to the clipboard (the copy
// buttons on messages and code; Chromium asks for it on navigator.clipboard.writeText). Reading the clipboard,
// every other permission, every other origin and every sub-frame are denied.
// Display capture (getDisplayMedia, 'display-capture', video media) stays denied to every page, the app's own
// included: quick capture's Screenshot takes the screen through main (screen-capture.ts, desktopCapturer), so no
// page ever holds a grant to record the screen.
import type { Session } from 'electron';
import { isAppUrl } from './navigation.js';

export const MEDIA_PERMISSION = 'media';
export const MICROPHONE_MEDIA_TYPE = 'audio';
/** Electron's name for navigator.clipboard.writeText's permission (write only; 'clipboard-read' stays denied). */
export const CLIPBOARD_WRITE_PERMISSION = 'clipboard-sanitized-write';

export interface PermissionRequestFacts {
  permission: string;
  isMainFrame: boolean;
  requestingUrl?: string;
  mediaTypes?: readonly string[];
  securityOrigin?: string;
}

export interface PermissionCheckFacts {
  permission: string;
  /** Electron passes an origin, sometimes with a trailing slash; parsed, not compared as text. */
  requestingOrigin: string;
  isMainFrame: boolean;
  mediaType?: string;
  securityOrigin?: string;
  embeddingOrigin?: string;
}

/** Optional origins must, when present, be the app's too: a cross-origin frame must not borrow our grant. */
function optionalOriginIsApp(origin: string | undefined, appOrigin: string): boolean {
  return origin === undefined || origin === '' || isAppUrl(origin, appOrigin);
}

/** setPermissionRequestHandler: grant only an audio-only media request from the app's main frame. */
export function decidePermissionRequest(appOrigin: string, facts: PermissionRequestFacts): boolean {
  if (facts.permission === CLIPBOARD_WRITE_PERMISSION && facts.isMainFrame === true) {
    return isAppUrl(facts.requestingUrl, appOrigin) && optionalOriginIsApp(facts.securityOrigin, appOrigin);
  }
  if (facts.permission !== MEDIA_PERMISSION || facts.isMainFrame !== true) return false;
  const types = facts.mediaTypes;
  // An empty list is how some enumerate-only requests arrive; it is not a microphone request.
  if (!Array.isArray(types) || types.length === 0) return false;
  if (!types.every((type) => type === MICROPHONE_MEDIA_TYPE)) return false;
  return isAppUrl(facts.requestingUrl, appOrigin) && optionalOriginIsApp(facts.securityOrigin, appOrigin);
}

/** setPermissionCheckHandler: the synchronous "is it granted?" query (navigator.permissions, media checks). */
export function decidePermissionCheck(appOrigin: string, facts: PermissionCheckFacts): boolean {
  if (facts.permission === CLIPBOARD_WRITE_PERMISSION && facts.isMainFrame === true) {
    return isAppUrl(facts.requestingOrigin, appOrigin) && optionalOriginIsApp(facts.securityOrigin, appOrigin);
  }
  if (facts.permission !== MEDIA_PERMISSION || facts.isMainFrame !== true) return false;
  if (facts.mediaType !== MICROPHONE_MEDIA_TYPE) return false;
  return (
    isAppUrl(facts.requestingOrigin, appOrigin) &&
    optionalOriginIsApp(facts.securityOrigin, appOrigin) &&
    optionalOriginIsApp(facts.embeddingOrigin, appOrigin)
  );
}

// Electron's own signatures, so the compiler checks the glue against them; tests pass fakes of just these two.
export type PermissionSession = Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>;
export type PermissionRequestHandler = NonNullable<Parameters<Session['setPermissionRequestHandler']>[0]>;
export type PermissionCheckHandler = NonNullable<Parameters<Session['setPermissionCheckHandler']>[0]>;

export interface PermissionOptions {
  /** macOS: asks the OS for microphone access (systemPreferences.askForMediaAccess). Its "no" wins. */
  askSystemForMicrophone?: () => Promise<boolean>;
}

/** Install both handlers on a session. A grant still needs the system's consent where the OS asks for it. */
export function installPermissionHandlers(
  session: PermissionSession,
  appOrigin: string,
  options: PermissionOptions = {},
): void {
  session.setPermissionRequestHandler((_webContents, permission, callback, details) => {
    const allowed = decidePermissionRequest(appOrigin, { permission, ...details });
    if (!allowed || !options.askSystemForMicrophone) {
      callback(allowed);
      return;
    }
    options.askSystemForMicrophone().then(
      (granted) => callback(granted === true),
      () => callback(false),
    );
  });
  session.setPermissionCheckHandler((_webContents, permission, requestingOrigin, details) =>
    decidePermissionCheck(appOrigin, { permission, requestingOrigin, ...details }),
  );
}
