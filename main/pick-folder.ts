// The one IPC call the page has: a native folder picker. Main only returns the chosen path; the page then
// calls POST /api/workspaces/add itself, so trust decisions stay on the server, behind the access token.
import path from 'node:path';
import { isAppUrl } from './navigation.js';

export const PICK_FOLDER_CHANNEL = 'satchel:pick-folder';

/** The parts of Electron's WebFrameMain this check reads. */
export interface SenderFrame {
  url: string;
  parent: unknown;
}

export interface InvokeEvent {
  senderFrame: SenderFrame | null;
}

export interface OpenDialogResult {
  canceled: boolean;
  filePaths: string[];
}

/** Only the app's own top-level document may ask: not a sub-frame, not a page that navigated elsewhere. */
export function isTrustedSender(frame: SenderFrame | null | undefined, appOrigin: string): boolean {
  return !!frame && frame.parent === null && isAppUrl(frame.url, appOrigin);
}

/** The path to hand back: the first chosen folder if it is an absolute path, else null (cancelled). */
export function chosenFolder(result: OpenDialogResult): string | null {
  if (result.canceled) return null;
  const first = result.filePaths[0];
  return typeof first === 'string' && path.isAbsolute(first) ? first : null;
}

export interface PickFolderDeps {
  appOrigin: string;
  /** dialog.showOpenDialog(window, { properties: ['openDirectory'] }) */
  showOpenDialog: () => Promise<OpenDialogResult>;
}

/** The ipcMain.handle listener. While a picker is open, further calls share its answer instead of stacking
 * dialogs (a double click must not open two). */
export function createPickFolderHandler(
  deps: PickFolderDeps,
): (event: InvokeEvent, ...args: unknown[]) => Promise<string | null> {
  let pending: Promise<string | null> | undefined;
  return async (event, ...args) => {
    if (!isTrustedSender(event.senderFrame, deps.appOrigin)) throw new Error('pickFolder: untrusted sender');
    if (args.length !== 0) throw new Error('pickFolder takes no arguments');
    pending ??= deps
      .showOpenDialog()
      .then(chosenFolder)
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}
