// Where a workspace upload goes (spec-notes 4.7 step 3): the folder a request names, created, held open and proven
// inside the workspace after links are resolved, and never a credential store, a hidden folder (unless asked for)
// or a protected place. Here, not in the route (handlers/workspace-upload.ts), because it is the workspace's rule
// for where files may be written, whoever asks; the route only reads the request and answers. Refusals are
// HttpErrors with the spec's exact texts, thrown before anything is made or after taking back what was.
import fs from 'node:fs/promises';
import path from 'node:path';
import { AnchoredDir } from '../store/anchored.js';
import { openInside } from '../store/anchored-walk.js';
import { ProtectedPlaceError, type ProtectedPlaces } from '../store/protected.js';
import { mkdirInside, removeCreatedDirs } from '../store/files.js';
import { NAME_MAX_BYTES, PATH_MAX_BYTES } from '../archive/fit-names.js';
import { HttpError } from '../core/errors.js';
import { isCredentialPath, isHiddenName, isInside } from '../core/paths.js';

const ESCAPES = 'Upload target escapes workspace';
export const CREDENTIAL_TARGET = 'Upload target is a credential folder';
export const HIDDEN_TARGET = 'Upload target is a hidden folder (turn on hidden files to use it)';
/** The folder asked for cannot exist on this file system, or a file in it could not be opened by path. */
export const TARGET_TOO_LONG = 'Upload target path is too long for the file system';
export const PROTECTED_TARGET = "Upload target is a protected folder (Satchel's own data or saved credentials)";

/**
 * True when `target` (below `root`) is, or lies inside, a protected place (store/protected.ts): by the name of
 * every component, then by the identity of every existing directory on the way, walked as uploads walk. A
 * missing component ends the walk without a verdict: what follows does not exist yet, so only its name counts.
 */
async function reachesProtected(root: string, target: string, guard: ProtectedPlaces): Promise<boolean> {
  await guard.fresh();
  const segments = path.relative(root, target).split(path.sep).filter(Boolean);
  if (segments.some((_, i) => guard.isPlace(path.join(root, ...segments.slice(0, i + 1))))) return true;
  const anchor = await AnchoredDir.open(root);
  try {
    await (await openInside(anchor, segments, { check: guard.check })).close();
    return false;
  } catch (err) {
    return err instanceof ProtectedPlaceError;
  } finally {
    await anchor.close();
  }
}

/** Why a target below the workspace root may not receive uploads, judged on its components; null when it may. */
function targetProblem(root: string, target: string, allowHidden: boolean): string | null {
  const segments = path.relative(root, target).split(path.sep).filter(Boolean);
  // What the workspace never lists or previews, it does not write into either (`~/.ssh/authorized_keys`).
  if (isCredentialPath(segments)) return CREDENTIAL_TARGET;
  if (!allowHidden && segments.some(isHiddenName)) return HIDDEN_TARGET;
  return null;
}

/** spec-notes 4.7 step 3: the target directory, created, held open, proven inside the workspace after symlinks are
 *  resolved, and neither a credential store nor (unless asked for) hidden, by its name or by where a link on
 *  the way led. Directories it made are pushed onto `created` (parents first). The caller closes it. */
export async function uploadTarget(
  workspace: string,
  requested: string,
  created?: string[],
  allowHidden = false,
  guard?: ProtectedPlaces,
): Promise<AnchoredDir> {
  const root = await fs.realpath(workspace);
  const target = path.resolve(root, requested);
  if (!isInside(root, target)) throw new HttpError(403, ESCAPES);
  const asNamed = targetProblem(root, target, allowHidden);
  if (asNamed) throw new HttpError(403, asNamed);
  // A folder name over NAME_MAX would fail mkdir with ENAMETOOLONG (reported as an escape before); a path leaving
  // no room for a file name in it (NAME_MAX more) would hold files nothing can open by path. The person's
  // choice, not shortened: a clear 400.
  const tooLong = (s: string) => Buffer.byteLength(s, 'utf8') > NAME_MAX_BYTES;
  if (path.relative(root, target).split(path.sep).some(tooLong) || Buffer.byteLength(target, 'utf8') + 1 + NAME_MAX_BYTES + 1 > PATH_MAX_BYTES) {
    throw new HttpError(400, TARGET_TOO_LONG);
  }
  // Before anything is made: no directory is created inside a protected place.
  if (guard && (await reachesProtected(root, target, guard))) throw new HttpError(403, PROTECTED_TARGET);
  const made: string[] = [];
  let dir: AnchoredDir;
  try {
    dir = await mkdirInside(root, target, made);
  } catch {
    // A target refused half-way (a file or an outside link further down) leaves no directories behind.
    await removeCreatedDirs(root, made);
    throw new HttpError(403, ESCAPES);
  }
  // And where the walk really led, now that every directory exists (a link or another spelling on the way).
  const asReached = targetProblem(root, dir.path, allowHidden) ?? (guard && (await reachesProtected(root, dir.path, guard)) ? PROTECTED_TARGET : null);
  if (asReached) {
    await dir.close();
    await removeCreatedDirs(root, made);
    throw new HttpError(403, asReached);
  }
  created?.push(...made);
  return dir;
}
