// Read-only views of a workspace, shared by the HTTP preview routes (handlers/workspace-browse.ts) and the MCP
// tools (mcp/): a requested path resolved below the workspace, a directory listing and a bounded file read.
// Every step goes through descriptors (store/anchored.ts), so a directory swapped for a symlink meanwhile is
// refused, never followed out. Failures are HttpErrors whose texts reveal nothing about what is on disk.
// In store/, beside anchored.ts and anchored-walk.ts, because it is the file layer (it was workspace/browse.ts):
// it opens and reads, and decides nothing about what a file is; the previews, the raw route, search and MCP
// above it ask it for descriptors and bytes.
import { constants as fsConstants } from 'node:fs';
import path from 'node:path';
import { AnchoredDir, EscapeError } from './anchored.js';
import { locateInside, openInside, type Located } from './anchored-walk.js';
import { HttpError } from '../core/errors.js';
import { isCredentialPath, isHiddenName, isInside } from '../core/paths.js';
import { ProtectedPlaceError, type PlaceGuard } from './protected.js';
import type { WorkspaceEntry, WorkspaceListing } from '../core/wire.js';

export const MAX_LIST_ENTRIES = 5000;
export const MAX_PREVIEW_BYTES = 1024 * 1024;
const NONBLOCK = fsConstants.O_NONBLOCK ?? 0;
export const NOT_FOUND = 'Not found';
export const ESCAPES_WORKSPACE = 'Path escapes workspace';

/** A workspace held open and a requested path below it; close `root` when done. */
export interface WorkspacePath {
  root: AnchoredDir;
  /** The requested path's components below the root (lexically normalized, so no `..`). */
  segments: string[];
  showHidden: boolean;
  /** A workspace's protected places (store/protected.ts): never listed, never walked into. Attachment folders,
   *  which lie inside the state folder by design, are opened without one. */
  guard?: PlaceGuard;
}

/** Hidden components only when asked for; credential stores never. */
export function visible(segments: readonly string[], showHidden: boolean): boolean {
  if (isCredentialPath(segments)) return false;
  return showHidden || !segments.some(isHiddenName);
}

/** Resolve `requested` (relative to the workspace; an absolute path must lie inside it) and open the workspace. */
export async function openWorkspacePath(workspace: string, requested: string, showHidden: boolean, guard?: PlaceGuard): Promise<WorkspacePath> {
  // No file has a NUL in its name: missing, as it always was.
  if (requested.includes('\0')) throw new HttpError(404, NOT_FOUND);
  const target = path.resolve(workspace, requested);
  if (!isInside(workspace, target)) throw new HttpError(403, ESCAPES_WORKSPACE);
  const segments = path.relative(workspace, target).split(path.sep).filter(Boolean);
  // Refused before the disk is touched, with the answer a missing file gets: existence is not revealed.
  if (!visible(segments, showHidden)) throw new HttpError(404, NOT_FOUND);
  await guard?.fresh();
  const root = await AnchoredDir.open(workspace).catch(() => {
    throw new HttpError(404, NOT_FOUND);
  });
  return { root, segments, showHidden, guard };
}

/** Escapes are 403; anything else that stops a walk (missing, not a directory, a protected place) is 404. */
function walkFailure(err: unknown): HttpError {
  if (err instanceof EscapeError) return new HttpError(403, ESCAPES_WORKSPACE);
  return new HttpError(404, NOT_FOUND);
}

function relative(root: AnchoredDir, dir: string): string[] {
  return path.relative(root.path, dir).split(path.sep).filter(Boolean);
}

/** The directory at `at`: regular files and directories only, hidden ones as asked, at most MAX_LIST_ENTRIES. */
export async function listWorkspaceDir(at: WorkspacePath, maxEntries = MAX_LIST_ENTRIES): Promise<WorkspaceListing> {
  const { root, segments, showHidden, guard } = at;
  const dir = await openInside(root, segments, { check: guard?.check }).catch((err: unknown) => {
    if (err instanceof EscapeError || err instanceof ProtectedPlaceError) throw walkFailure(err);
    // A file is not a directory (400); a missing path is 404.
    throw (err as NodeJS.ErrnoException).code === 'ENOENT' ? new HttpError(404, NOT_FOUND) : new HttpError(400, 'Not a directory');
  });
  try {
    const real = relative(root, dir.path);
    // Where a symlink led counts too: a link to `.ssh` lists nothing.
    if (!visible(real, showHidden)) throw new HttpError(404, NOT_FOUND);
    const dirents = (await dir.readdir()).filter((d) => (d.isFile() || d.isDirectory()) && visible([...real, d.name], showHidden));
    const entries: WorkspaceEntry[] = [];
    for (const d of dirents.slice(0, maxEntries)) {
      const stat = await dir.lstat(d.name).catch(() => undefined);
      if (!stat) continue;
      // A protected place (Satchel's state folder in the home folder, ~/Library/Keychains …) is not there.
      if (d.isDirectory() && guard?.isPlace(dir.pathOf(d.name), stat)) continue;
      entries.push({ name: d.name, type: d.isDirectory() ? 'dir' : 'file', size: stat.size, mtime: stat.mtime.toISOString() });
    }
    entries.sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name) : a.type === 'dir' ? -1 : 1));
    return { path: real.join('/'), entries, truncated: dirents.length > maxEntries };
  } finally {
    await dir.close();
  }
}

export interface FileRead {
  bytes: Buffer;
  /** The file's size when it was opened. */
  size: number;
  /** Its path below the workspace, `/`-separated (after symlinks inside the workspace). */
  path: string;
}

/** The entry at `at` (not the root itself), found by the anchored walk; a hidden one is not found. */
async function locateVisible(at: WorkspacePath): Promise<Located> {
  const { root, segments, showHidden, guard } = at;
  if (segments.length === 0) throw new HttpError(400, 'Not a file');
  const found = await locateInside(root, segments, { check: guard?.check }).catch((err: unknown) => {
    if (err instanceof HttpError) throw err;
    if ((err as Error).message === 'Not a file') throw new HttpError(400, 'Not a file');
    throw walkFailure(err);
  });
  if (!visible(found.segments, showHidden)) {
    await found.parent.close();
    throw new HttpError(404, NOT_FOUND);
  }
  return found;
}

/**
 * The regular file at `at`, read through a descriptor. A file over `maxBytes` is refused (413) unless
 * `truncate`, when its first `maxBytes` bytes are returned with its full size.
 */
export async function readWorkspaceBytes(at: WorkspacePath, maxBytes: number, truncate = false): Promise<FileRead> {
  const found = await locateVisible(at);
  try {
    const bytes = await readBounded(found.parent, found.name, found.stat, maxBytes, truncate);
    return { ...bytes, path: found.segments.join('/') };
  } finally {
    await found.parent.close();
  }
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, `File too large to preview (max ${maxBytes} bytes)`);
}

type Before = { ino: number; dev: number; size: number; isFile(): boolean };

/** Read a regular file in `dir`, at most `maxBytes`. */
export async function readBounded(dir: AnchoredDir, name: string, before: Before, maxBytes: number, truncate: boolean): Promise<{ bytes: Buffer; size: number }> {
  // Only regular files: opening a FIFO for reading would block a threadpool thread until a writer appears, and
  // four such requests would stall every file operation of the server. O_NONBLOCK makes even a FIFO swapped
  // in after the stat open at once, and the fstat after open catches that swap.
  if (!before.isFile()) throw new HttpError(400, 'Not a file');
  if (before.size > maxBytes && !truncate) throw tooLarge(maxBytes);
  const handle = await dir.openFile(name, fsConstants.O_RDONLY | NONBLOCK).catch(() => {
    throw new HttpError(404, NOT_FOUND);
  });
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.ino !== before.ino || stat.dev !== before.dev) throw new HttpError(400, 'Not a file');
    if (stat.size > maxBytes && !truncate) throw tooLarge(maxBytes);
    const want = Math.min(stat.size, maxBytes);
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(want), 0, want, 0);
    return { bytes: buffer.subarray(0, bytesRead), size: stat.size };
  } finally {
    await handle.close();
  }
}

/** A regular file held open through a descriptor, with the directory it was found in; `close()` releases both. */
export interface OpenedFile {
  handle: import('node:fs/promises').FileHandle;
  parent: AnchoredDir;
  name: string;
  size: number;
  mtimeMs: number;
  ino: number;
  /** Below the root, `/`-separated, after symlinks inside it. */
  path: string;
  close(): Promise<void>;
}

/** The regular file at `at`, opened as readBounded opens one (no FIFO, no device, no swap after the stat). */
export async function openWorkspaceFile(at: WorkspacePath): Promise<OpenedFile> {
  const found = await locateVisible(at);
  try {
    if (!found.stat.isFile()) throw new HttpError(400, 'Not a file');
    const handle = await found.parent.openFile(found.name, fsConstants.O_RDONLY | NONBLOCK).catch(() => {
      throw new HttpError(404, NOT_FOUND);
    });
    const stat = await handle.stat();
    if (!stat.isFile() || stat.ino !== found.stat.ino || stat.dev !== found.stat.dev) {
      await handle.close();
      throw new HttpError(400, 'Not a file');
    }
    const parent = found.parent;
    return {
      handle,
      parent,
      name: found.name,
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      ino: stat.ino,
      path: found.segments.join('/'),
      close: async () => {
        await handle.close().catch(() => {});
        await parent.close();
      },
    };
  } catch (err) {
    await found.parent.close();
    throw err;
  }
}

/** Up to `max` bytes from the start of an opened file. */
export async function readStart(file: Pick<OpenedFile, 'handle' | 'size'>, max: number): Promise<Buffer> {
  const want = Math.min(file.size, max);
  const { buffer, bytesRead } = await file.handle.read(Buffer.alloc(want), 0, want, 0);
  return buffer.subarray(0, bytesRead);
}
