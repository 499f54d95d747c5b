// "Show in folder" for a previewed file: the page asks main to reveal a file in the system's file manager
// (shell.showItemInFolder). Only the app's own top-level document may ask, with one absolute, normalized path
// of a regular file (not a symlink, not a folder or device), so a page cannot point the file manager at a
// path that leads elsewhere. The answer says only whether it was shown.
import type { Stats } from 'node:fs';
import path from 'node:path';
import { isTrustedSender, type InvokeEvent } from './pick-folder.js';

export const SHOW_IN_FOLDER_CHANNEL = 'satchel:show-in-folder';
/** Longer than any real path (PATH_MAX is 4096 on Linux): refused before the disk is asked. */
export const MAX_PATH_CHARS = 4096;

export interface ShowInFolderDeps {
  appOrigin: string;
  /** fs.promises.lstat */
  lstat: (p: string) => Promise<Pick<Stats, 'isFile'>>;
  /** shell.showItemInFolder */
  showItemInFolder: (p: string) => void;
}

/** A path the page may ask about: a string, absolute, already normalized, no NUL, not absurdly long. */
export function acceptablePath(value: unknown): value is string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_PATH_CHARS || value.includes('\0')) return false;
  return path.isAbsolute(value) && path.normalize(value) === value;
}

/** The ipcMain.handle listener. */
export function createShowInFolderHandler(deps: ShowInFolderDeps): (event: InvokeEvent, ...args: unknown[]) => Promise<boolean> {
  return async (event, ...args) => {
    if (!isTrustedSender(event.senderFrame, deps.appOrigin)) throw new Error('showInFolder: untrusted sender');
    if (args.length !== 1 || !acceptablePath(args[0])) return false;
    const target = args[0];
    // lstat: a symlink is not a regular file here, so the file manager is never sent through one.
    const stat = await deps.lstat(target).catch(() => undefined);
    if (!stat?.isFile()) return false;
    deps.showItemInFolder(target);
    return true;
  };
}
