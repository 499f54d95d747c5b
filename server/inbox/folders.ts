// Which folders may be watched: the workspace rules (store/workspaces.ts), since a watched folder's files are
// read into a conversation and reach the agent just as a workspace's do. Never a symlink (the folder a person
// picked is the one read, not wherever a link points today), never a system folder, a credential store
// (~/.ssh, ~/.aws …) or Satchel's own data, never a folder other users can write to (they could plant files,
// or swap a name for a symlink between our check and our read).
import fs from 'node:fs/promises';
import path from 'node:path';
import { ValueError } from '../core/errors.js';
import { isCredentialDir, isSystemDir, sharedWriteProblem, type Workspaces } from '../store/workspaces.js';

export const WATCH_NOT_ABSOLUTE = 'A watched folder must be an absolute path';
export const WATCH_MISSING = 'The folder does not exist';
export const WATCH_NOT_DIR = 'The path is not a folder';
export const WATCH_SYMLINK = 'A watched folder cannot be a symlink; pick the folder it points to';
export const WATCH_SYSTEM = 'A system folder cannot be watched';
export const WATCH_CREDENTIAL = 'A credential folder, or a folder inside one, cannot be watched';
export const WATCH_PROTECTED = "Satchel's own data folder cannot be watched";
export const WATCH_SHARED = 'A folder other users can write to cannot be watched';
/** A watched folder renamed away, or something else put at its path, while it was watched (issue 33). */
export const WATCH_REPLACED = 'The watched folder was moved or replaced while it was watched; nothing more is taken from it until a folder is back at its path';

/** The folder's real path when it may be watched; a ValueError (400) saying why not otherwise. */
export async function checkWatchFolder(workspaces: Pick<Workspaces, 'protectedPlaces'>, dir: unknown, home?: string): Promise<string> {
  if (typeof dir !== 'string' || !path.isAbsolute(dir)) throw new ValueError(WATCH_NOT_ABSOLUTE);
  const named = path.resolve(dir);
  let st;
  try {
    st = await fs.lstat(named);
  } catch {
    throw new ValueError(WATCH_MISSING);
  }
  if (st.isSymbolicLink()) throw new ValueError(WATCH_SYMLINK);
  if (!st.isDirectory()) throw new ValueError(WATCH_NOT_DIR);
  const real = await fs.realpath(named);
  if (isSystemDir(real, home)) throw new ValueError(WATCH_SYSTEM);
  if (isCredentialDir(named) || isCredentialDir(real)) throw new ValueError(WATCH_CREDENTIAL);
  if ((await workspaces.protectedPlaces.contains(named)) || (await workspaces.protectedPlaces.contains(real))) throw new ValueError(WATCH_PROTECTED);
  if (await sharedWriteProblem(real)) throw new ValueError(WATCH_SHARED);
  return real;
}
