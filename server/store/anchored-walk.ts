// Walks below an anchored root (anchored.ts): one component at a time, each opened through its parent's
// descriptor and never through a symlink. A symlink on the way is judged by where it leads: inside the root,
// the walk starts again from the root along that real path; outside, the walk is refused. walkFiles lists the
// files below a folder the same way, for everything that lists an extracted archive.
import type fs from 'node:fs';
import path from 'node:path';
import { AnchoredDir, EscapeError, MAX_SYMLINK_HOPS, errno, type Identity } from './anchored.js';
import { ValueError } from '../core/errors.js';
import { isCredentialPath, isHiddenName, isInside } from '../core/paths.js';

export interface WalkOptions {
  /** Make missing directories; each one made is pushed (as its real path) onto `created`, parents first. */
  create?: boolean;
  created?: string[];
  /** Called on every directory the walk opens below the root (its reported path and identity); a throw stops
   *  the walk with that error. Workspaces pass the protected-places check here (store/protected.ts). */
  check?: (dirPath: string, id: Identity) => void;
}

/**
 * Open the directory `segments` (already normalized, no `..`) below `root`, one component at a time and never
 * through a symlink. A symlink on the way is resolved to its real path: inside the root, the walk starts again
 * from the root along that path; outside, it is an EscapeError. A file in the way is ValueError('Not a
 * directory'); a missing component is ENOENT unless `create`. The caller closes the result.
 */
export async function openInside(root: AnchoredDir, segments: readonly string[], opts: WalkOptions = {}): Promise<AnchoredDir> {
  let pending = [...segments];
  let hops = 0;
  // The walk starts on the caller's root itself (held open by the caller for the whole walk), not on a copy of
  // it: a copy costs an open, a stat and a close per walk. The root is never closed here.
  let dir = root;
  const leave = async (): Promise<void> => {
    if (dir !== root) await dir.close();
  };
  try {
    while (pending.length > 0) {
      const name = pending[0]!;
      let child: AnchoredDir;
      try {
        child = await dir.openDir(name);
      } catch (err) {
        // Every retry (a directory that vanished after mkdir, a symlink swapped back) counts against the
        // hop limit, so a process racing us cannot keep the walk going for ever.
        if (++hops > MAX_SYMLINK_HOPS) throw new EscapeError();
        const code = errno(err);
        if (code === 'ENOENT' && opts.create) {
          try {
            await dir.mkdir(name);
            opts.created?.push(dir.pathOf(name));
          } catch (mkdirErr) {
            if (errno(mkdirErr) !== 'EEXIST') throw mkdirErr;
          }
          continue;
        }
        if (code !== 'ELOOP' && code !== 'ENOTDIR') throw err;
        const stat = await dir.lstat(name);
        if (stat.isDirectory()) continue;
        if (!stat.isSymbolicLink()) throw new ValueError('Not a directory');
        pending = [...(await realSegments(root, dir, name)), ...pending.slice(1)];
        await leave();
        dir = root;
        continue;
      }
      await leave();
      dir = child;
      opts.check?.(child.path, child.id);
      pending = pending.slice(1);
    }
    // The result is the caller's to close: the root itself only ever as a copy.
    return dir === root ? await root.dup() : dir;
  } catch (err) {
    await leave();
    throw err;
  }
}

/** Where the symlink `name` in `dir` leads, as segments below `root`; EscapeError when outside it. */
async function realSegments(root: AnchoredDir, dir: AnchoredDir, name: string): Promise<string[]> {
  const real = await dir.realpath(name);
  if (!isInside(root.path, real)) throw new EscapeError();
  return path.relative(root.path, real).split(path.sep).filter(Boolean);
}

export interface Located {
  /** The entry's directory, held open: the caller closes it. */
  parent: AnchoredDir;
  name: string;
  /** lstat of the entry (never a symlink: those are resolved). */
  stat: fs.Stats;
  /** The entry's real path below the root, as segments. */
  segments: string[];
}

/**
 * The entry `segments` (at least one) names below `root`, with every symlink on the way and at the end
 * resolved as openInside does (with `check` on every directory, the entry too when it is one). ENOENT when it
 * does not exist; EscapeError when it resolves outside the root.
 */
export async function locateInside(root: AnchoredDir, segments: readonly string[], opts: Pick<WalkOptions, 'check'> = {}): Promise<Located> {
  let pending = [...segments];
  for (let hops = 0; hops <= MAX_SYMLINK_HOPS; hops++) {
    if (pending.length === 0) throw new ValueError('Not a file');
    const name = pending[pending.length - 1]!;
    const parent = await openInside(root, pending.slice(0, -1), { check: opts.check });
    try {
      const stat = await parent.lstat(name);
      if (stat.isDirectory()) opts.check?.(parent.pathOf(name), stat);
      if (!stat.isSymbolicLink()) {
        return { parent, name, stat, segments: [...path.relative(root.path, parent.path).split(path.sep).filter(Boolean), name] };
      }
      pending = await realSegments(root, parent, name);
    } catch (err) {
      await parent.close();
      throw err;
    }
    await parent.close();
  }
  throw new EscapeError();
}

/** Entries (files and folders) one walk looks at: an extracted archive may hold tens of thousands; beyond
 *  this the count is "at least" and the walk stops, so no listing costs more than this many stats. */
export const MAX_ENTRIES_WALKED = 20_000;
/** Folders deep the walk goes: each level holds one descriptor open, and no archive a person sends nests
 *  its files deeper; what lies below is left out and the walk reported incomplete. */
export const MAX_WALK_DEPTH = 32;

export interface FileBelow {
  /** Relative to the folder walked, `/`-separated. */
  path: string;
  size: number;
}

export interface FilesBelow {
  /** The first `listed` files, depth first, names in code point order at every level. */
  files: FileBelow[];
  /** How many files the walk saw (a lower bound when `complete` is false). */
  total: number;
  /** False when the walk stopped at MAX_ENTRIES_WALKED or MAX_WALK_DEPTH before seeing every entry. */
  complete: boolean;
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The regular files below `dir`, as the agent, an attachment chip and MCP all list an extracted archive: every
 * folder opened through its parent's descriptor (a symlink is neither listed nor followed), hidden names and
 * credential stores never (`above`: the real segments of `dir` below its root, so that `.config/gh` is known
 * across the boundary), depth first in code point order so every answer lists the same files in the same order.
 */
export async function walkFiles(dir: AnchoredDir, listed: number, above: readonly string[] = []): Promise<FilesBelow> {
  const out: FilesBelow = { files: [], total: 0, complete: true };
  let walked = 0;
  const shown = (segments: readonly string[]) => !isHiddenName(segments.at(-1)!) && !isCredentialPath([...above, ...segments]);
  const walk = async (at: AnchoredDir, prefix: readonly string[]): Promise<void> => {
    const entries = (await at.readdir()).filter((d) => (d.isFile() || d.isDirectory()) && shown([...prefix, d.name])).sort(byName);
    for (const d of entries) {
      if (++walked > MAX_ENTRIES_WALKED) {
        out.complete = false;
        return;
      }
      if (d.isFile()) {
        out.total++;
        if (out.files.length < listed) {
          const stat = await at.lstat(d.name).catch(() => undefined);
          if (stat?.isFile()) out.files.push({ path: [...prefix, d.name].join('/'), size: stat.size });
        }
        continue;
      }
      if (prefix.length + 1 > MAX_WALK_DEPTH) {
        out.complete = false;
        continue;
      }
      // openDir never follows a symlink: one swapped in since the readdir fails, and is passed over.
      const child = await at.openDir(d.name).catch(() => undefined);
      if (!child) continue;
      try {
        await walk(child, [...prefix, d.name]);
      } finally {
        await child.close();
      }
      if (walked > MAX_ENTRIES_WALKED) return;
    }
  };
  await walk(dir, []);
  return out;
}
