// Opening what an attachment object names. Attachment objects come from the browser, so their paths are not
// trusted: a file is read only when it lies under one of the caller's roots (the session's attachment folder),
// through a descriptor-anchored walk that follows no symlink out of the root, with its size known before
// anything is read.
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../../core/paths.js';
import { AnchoredDir } from '../../store/anchored.js';
import { visible } from '../../store/anchored-browse.js';
import { locateInside, openInside, walkFiles, type FilesBelow } from '../../store/anchored-walk.js';
import type { PlaceGuard } from '../../store/protected.js';

// O_NONBLOCK: a FIFO swapped in for the file after the walk's stat opens at once (and the fstat after the open
// refuses it) instead of holding a thread-pool thread until a writer appears (store/anchored-browse.ts). Windows
// has no such flag.
const O_RDONLY = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

export interface Opened {
  handle: FileHandle;
  size: number;
  /** The file's folder, still held open, when asked for (openUnder's holdDir): closed by closeOpened. */
  dir?: AnchoredDir;
  /** The file's name in that folder. */
  name: string;
  /** Opened below the session's workspace: the person's own folder, where Satchel writes nothing (no sidecar). */
  inWorkspace?: boolean;
}

export async function closeOpened(opened: Opened): Promise<void> {
  await opened.handle.close();
  await opened.dir?.close();
}

/**
 * `use` on the first of `roots` that `target` lies strictly below: that root held open as an anchor, and the
 * path's segments below it (lexical; the anchored walk resolves any symlink on the way, refusing one that
 * leaves). Undefined when `target` lies under no root, or `use` fails: an attachment is then only named.
 */
async function underRoot<T>(roots: readonly string[], target: string, use: (anchor: AnchoredDir, segments: string[]) => Promise<T | undefined>): Promise<T | undefined> {
  const resolved = path.resolve(target);
  for (const root of roots) {
    const resolvedRoot = path.resolve(root);
    if (!isInside(resolvedRoot, resolved) || resolved === resolvedRoot) continue;
    let anchor: AnchoredDir | undefined;
    try {
      anchor = await AnchoredDir.open(resolvedRoot);
      return await use(anchor, path.relative(resolvedRoot, resolved).split(path.sep).filter(Boolean));
    } catch {
      return undefined;
    } finally {
      await anchor?.close();
    }
  }
  return undefined;
}

/**
 * A session's workspace, whose files a turn reads (InputOptions.workspaceRoot) as MCP reads them: a hidden entry, a
 * credential store or a protected place (`guard`) on the real way to the file refuses it, so a folder swapped for a
 * symlink to `~/.ssh` or to Satchel's state after the listing was walked leads the reader nowhere.
 */
export interface WorkspaceRoot {
  dir: string;
  guard?: PlaceGuard;
}

/**
 * The regular file at `file`, opened read-only through its root without following a symlink out of it. With
 * `holdDir`, the folder it was opened in stays open too, for work beside the file (an Office sidecar) that must
 * happen in that very folder rather than wherever its path leads by then. A file below `workspace` is opened by
 * the workspace's rules.
 */
export function openUnder(roots: readonly string[], file: string, holdDir = false, workspace?: WorkspaceRoot): Promise<Opened | undefined> {
  const inWorkspace = workspace !== undefined && isInside(path.resolve(workspace.dir), path.resolve(file));
  return underRoot(inWorkspace ? [workspace.dir] : roots, file, async (anchor, segments) => {
    const found = await locateInside(anchor, segments, inWorkspace && workspace.guard ? { check: workspace.guard.check } : {});
    let held = false;
    try {
      if (!found.stat.isFile()) return undefined;
      if (inWorkspace && !visible(found.segments, false)) return undefined;
      const handle = await found.parent.openFile(found.name, O_RDONLY);
      const stat = await handle.stat();
      if (!stat.isFile()) {
        await handle.close();
        return undefined;
      }
      held = holdDir;
      return { handle, size: stat.size, name: found.name, ...(holdDir ? { dir: found.parent } : {}), ...(inWorkspace ? { inWorkspace } : {}) };
    } finally {
      if (!held) await found.parent.close();
    }
  });
}

/** The first `bytes` bytes of the file (fewer when it is shorter). */
export async function readAt(handle: FileHandle, bytes: number): Promise<Buffer> {
  const buf = Buffer.alloc(bytes);
  let got = 0;
  while (got < bytes) {
    const { bytesRead } = await handle.read(buf, got, bytes - got, got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/** The files below the extraction folder `folder`, listed by the one anchored walker (as the chip and MCP list
 *  them) from the root it lies under; undefined when it lies under none or cannot be opened. */
export function filesUnder(roots: readonly string[], folder: string, max: number): Promise<FilesBelow | undefined> {
  return underRoot(roots, folder, async (anchor, segments) => {
    const dir = await openInside(anchor, segments);
    try {
      return await walkFiles(dir, max, path.relative(anchor.path, dir.path).split(path.sep).filter(Boolean));
    } finally {
      await dir.close();
    }
  });
}
