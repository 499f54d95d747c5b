// Safe file names and exclusive placement (spec-notes 4.3 steps 4-7 and 4.7 steps 4-5). A name is never trusted:
// it is sanitized, de-duplicated, and the final create is exclusive, never follows a symlink, and happens in a
// directory held open (anchored.ts), so a directory swapped for a symlink meanwhile cannot redirect it.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DISK_FULL_UPLOAD, HttpError, isDiskFull, ValueError } from '../core/errors.js';
import { candidateNames } from '../core/names.js';
import { isInside } from '../core/paths.js';
import { AnchoredDir } from './anchored.js';
import { openInside } from './anchored-walk.js';
import { STORED_FILE_MODE, storedFileMode } from './file-mode.js';

async function exists(dir: AnchoredDir, name: string): Promise<boolean> {
  try {
    await dir.lstat(name);
    return true;
  } catch {
    return false;
  }
}

const { O_WRONLY } = fs.constants;

/**
 * Move a staged file to `name` in `dir`, failing with EEXIST when anything (a symlink included) is there. A hard
 * link is atomic and exclusive; across devices (or where the directory cannot be anchored) we fall back to an
 * exclusive no-follow create plus a copy, removing the partial copy if it fails.
 */
export async function placeExclusive(staged: string, dir: AnchoredDir, name: string, opts: PlaceOptions = {}): Promise<void> {
  // A link shares the staged file's private mode: stored files get the one mode a copy gets. It is set on the
  // staged file (in the server's private staging directory, the path the link is made from) before linking:
  // one call instead of opening the placed file, and the placed file never shows another mode. A file staged
  // with that mode already (its creation applied the same umask) needs no call.
  if (!opts.modeSet) await fsp.chmod(staged, storedFileMode());
  try {
    await dir.link(staged, name);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
  }
  const handle = await dir.createFile(name, O_WRONLY, STORED_FILE_MODE);
  try {
    await pipeline(fs.createReadStream(staged), handle.createWriteStream());
  } catch (err) {
    await dir.unlink(name).catch(() => {});
    throw err;
  } finally {
    await handle.close().catch(() => {});
  }
}

// Names being placed by this server right now (real paths): concurrent uploads of one name get distinct names
// without waiting for each other. Each upload claims a candidate before looking at the disk and holds it only
// until its exclusive create is done; the create still guards against other processes (409).
const claimed = new Set<string>();

/**
 * Open `target` (creating missing directories) inside `root` without ever following a symlink out of it: each
 * component is made and opened relative to its parent's descriptor (anchored.ts), and a symlink on the way
 * counts only if it resolves inside the root. A recursive mkdir would happily create directories through a
 * planted link. Returns the anchored directory (its `path` is the real path); the caller closes it. Each
 * directory this call made is pushed onto `created`, parents first.
 */
export async function mkdirInside(root: string, target: string, created?: string[]): Promise<AnchoredDir> {
  const rel = path.relative(root, target);
  if (!isInside(root, target) || path.isAbsolute(rel)) throw new ValueError('Path escapes its root');
  const anchor = await AnchoredDir.open(root);
  try {
    return await openInside(anchor, rel.split(path.sep).filter(Boolean), { create: true, created });
  } finally {
    await anchor.close();
  }
}

/**
 * Take back directories mkdirInside made (`created`, parents first), deepest first, each only if it is still
 * empty: a concurrent upload may have put something there. Reached through anchored walks, never by path.
 */
export async function removeCreatedDirs(root: string, created: readonly string[]): Promise<void> {
  if (created.length === 0) return;
  const anchor = await AnchoredDir.open(root).catch(() => undefined);
  if (!anchor) return;
  try {
    for (const dir of [...created].reverse()) {
      if (!isInside(anchor.path, dir) || dir === anchor.path) continue;
      const segments = path.relative(anchor.path, path.dirname(dir)).split(path.sep).filter(Boolean);
      const parent = await openInside(anchor, segments).catch(() => undefined);
      await parent?.rmdir(path.basename(dir)).catch(() => {});
      await parent?.close();
    }
  } finally {
    await anchor.close();
  }
}

/**
 * Make `dir` if it is missing. The usual case is that it exists: one mkdir answers that (EEXIST), where a recursive
 * mkdir costs a mkdir and a stat, each a round trip through the thread pool, on every upload. Only a missing parent
 * takes the recursive path. A file in the way is the caller's next call to find (ENOTDIR), as before.
 */
export async function ensureDir(dir: string, mode?: number): Promise<void> {
  try {
    await fsp.mkdir(dir, { mode });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT') throw err;
    await fsp.mkdir(dir, { recursive: true, mode });
  }
}

export interface PlaceErrors {
  /** Text for a raced existing file (409), given the tried name. */
  exists: (name: string) => string;
  /** Status and text for any other path or OS rejection. */
  rejected: (name: string) => [number, string];
}

export interface PlaceOptions {
  /** `staged` was created with STORED_FILE_MODE (file-mode.ts), so its mode is already the stored one. */
  modeSet?: boolean;
  /**
   * Each candidate is tried by the exclusive create itself, not looked at first: a name taken (EEXIST) moves on to
   * the next one, so a raced duplicate gets the next name instead of 409. The attachment upload's hot path (issue 37,
   * finding 5): the look was a trip through the thread pool per upload, and its usual answer, ENOENT, an Error built
   * with its stack. The create is as exclusive either way (link, or O_EXCL | O_NOFOLLOW).
   */
  createFirst?: boolean;
}

/** Place `staged` in `dir` under the first free candidate of `safeName`; returns the final name and path. */
export async function placeUnique(staged: string, dir: AnchoredDir, safeName: string, errors: PlaceErrors, opts: PlaceOptions = {}): Promise<{ name: string; path: string }> {
  for (const name of candidateNames(safeName)) {
    const target = dir.pathOf(name);
    if (claimed.has(target)) continue;
    claimed.add(target);
    try {
      if (!opts.createFirst && (await exists(dir, name))) continue;
      try {
        await placeExclusive(staged, dir, name, opts);
        return { name, path: target };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST' && opts.createFirst) continue;
        if (code === 'EEXIST') throw new HttpError(409, errors.exists(name));
        if (isDiskFull(err)) throw new HttpError(507, DISK_FULL_UPLOAD);
        const [status, text] = errors.rejected(name);
        throw new HttpError(status, text);
      }
    } finally {
      claimed.delete(target);
    }
  }
  throw new ValueError('Too many uploads with the same filename');
}

/** The first `bytes` bytes of a file (fewer when it is shorter): enough to tell a format by its magic bytes. */
export async function readFileHead(file: string, bytes: number): Promise<Buffer> {
  const handle = await fsp.open(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
