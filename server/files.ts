// Safe file names and exclusive placement (sections 4.3 steps 4-7 and 4.7 steps 4-5). A name is never trusted:
// it is sanitized, de-duplicated, and the final create is exclusive and never follows a symlink.
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DISK_FULL_UPLOAD, HttpError, isDiskFull, ValueError } from './errors.js';
import { candidateNames } from './names.js';
import { isInside } from './paths.js';

async function exists(file: string): Promise<boolean> {
  try {
    await fs.promises.lstat(file);
    return true;
  } catch {
    return false;
  }
}

const { O_CREAT, O_EXCL, O_WRONLY } = fs.constants;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/**
 * Move a staged file to `dest`, failing with EEXIST when anything (a symlink included) is there. A hard link is
 * atomic and exclusive; across devices we fall back to an exclusive no-follow create plus a copy, removing the
 * partial copy if it fails.
 */
export async function placeExclusive(staged: string, dest: string): Promise<void> {
  try {
    await fs.promises.link(staged, dest);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
  }
  const handle = await fs.promises.open(dest, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, 0o644);
  try {
    await pipeline(fs.createReadStream(staged), handle.createWriteStream());
  } catch (err) {
    await fs.promises.rm(dest, { force: true });
    throw err;
  } finally {
    await handle.close().catch(() => {});
  }
}

// Per-directory queue: concurrent uploads of one name inside this server get distinct names instead of racing
// to the same candidate. The exclusive create still guards against other processes.
const dirQueues = new Map<string, Promise<unknown>>();

function serialized<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const previous = dirQueues.get(dir) ?? Promise.resolve();
  const next = previous.catch(() => {}).then(work);
  dirQueues.set(dir, next);
  void next.finally(() => {
    if (dirQueues.get(dir) === next) dirQueues.delete(dir);
  }).catch(() => {});
  return next;
}

/**
 * Create `target` (and missing parents) inside `root` without ever following a symlink: each missing component
 * is made with a plain mkdir and checked with lstat, and the deepest existing ancestor must resolve inside the
 * root. A recursive mkdir would happily create directories through a planted link. Returns the real path.
 */
export async function mkdirInside(root: string, target: string): Promise<string> {
  const realRoot = await fs.promises.realpath(root);
  const rel = path.relative(root, target);
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new ValueError('Path escapes its root');
  let current = realRoot;
  for (const part of rel.split(path.sep).filter(Boolean)) {
    const next = path.join(current, part);
    try {
      await fs.promises.mkdir(next);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const stat = await fs.promises.lstat(next);
    if (stat.isSymbolicLink()) {
      const real = await fs.promises.realpath(next);
      if (!isInside(realRoot, real) || !(await fs.promises.stat(real)).isDirectory()) throw new ValueError('Path escapes its root');
      current = real;
    } else if (!stat.isDirectory()) {
      throw new ValueError('Not a directory');
    } else {
      current = next;
    }
  }
  return current;
}

export interface PlaceErrors {
  /** Text for a raced existing file (409), given the tried name. */
  exists: (name: string) => string;
  /** Status and text for any other path or OS rejection. */
  rejected: (name: string) => [number, string];
}

/** Place `staged` in `dir` under the first free candidate of `safeName`; returns the final name and path. */
export function placeUnique(staged: string, dir: string, safeName: string, errors: PlaceErrors): Promise<{ name: string; path: string }> {
  return serialized(dir, async () => {
    for (const name of candidateNames(safeName)) {
      const dest = path.join(dir, name);
      if (await exists(dest)) continue;
      try {
        await placeExclusive(staged, dest);
        return { name, path: dest };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') throw new HttpError(409, errors.exists(name));
        if (isDiskFull(err)) throw new HttpError(507, DISK_FULL_UPLOAD);
        const [status, text] = errors.rejected(name);
        throw new HttpError(status, text);
      }
    }
    throw new ValueError('Too many uploads with the same filename');
  });
}
