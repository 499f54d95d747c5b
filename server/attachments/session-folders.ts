// A session's attachment folder kept open between uploads to it (issue 37, finding 5). Anchoring the folder
// afresh (layout.ts openSessionFolder: a mkdir of the root, its realpath, open and stat of the root, open and
// stat of the folder, the root's close, then the folder's close) was eight trips through libuv's thread pool per
// upload, more than the upload's own writes; 32 uploads into one conversation walked the same two directories
// 32 times.
//
// A kept folder is used again only while the kernel still places the held directory exactly where the walk found
// it (/proc/self/fd/<fd> names its current path, with every rename and swap since): a directory moved away,
// swapped for a symlink (server/swap-race.test.ts) or removed no longer matches, is dropped, and the upload
// walks again from the root as before, never through a symlink. Between that check and the upload's link the
// window is the one a fresh walk has between its open and the link: the held directory, wherever it goes, is
// the one the walk proved inside the root. Only where directories are anchored by descriptor (Linux's 'proc'
// mode); elsewhere every upload walks (the after-the-fact checks need the path, and nothing would be saved).
//
// Bounded: at most MAX_KEPT_FOLDERS held, the least recently used idle one closed to make room; one left idle
// SESSION_FOLDER_IDLE_MS is closed; a conversation's deletion closes its folder (sessions/deletion.ts), and the
// server's stop closes every folder below its root (app.ts).
import fs from 'node:fs';
import path from 'node:path';
import type { AnchoredDir } from '../store/anchored.js';
import { attachmentRoot, openSessionFolder, sessionFolder } from './layout.js';

/** Folders held open at once: each is one descriptor; more conversations receiving files at once walk as before. */
export const MAX_KEPT_FOLDERS = 16;
/** A folder no upload has used for this long is closed: a burst of uploads is seconds, not minutes. */
export const SESSION_FOLDER_IDLE_MS = 30_000;

interface Kept {
  key: string;
  dir: AnchoredDir;
  /** Where the walk found it (its real path): the held directory must still be there to be used again. */
  at: string;
  /** Uploads using it now: it is closed only when none is. */
  users: number;
  /** Closed once the last user is done (dropped from the map: evicted, deleted, moved, idle or stopped). */
  dropped: boolean;
  idle?: NodeJS.Timeout;
}

/** A session folder lent to one upload: `release` once it is done with it (never `dir.close()`). */
export interface FolderLease {
  dir: AnchoredDir;
  release(): Promise<void>;
}

// Insertion order is use order: a use moves its entry to the end, so the first idle entry is the least recent.
const kept = new Map<string, Kept>();

const keyOf = (root: string, sessionId: string) => `${root}\0${sessionId}`;

/**
 * Whether the directory `entry` holds is, now, at the path the walk found it (proc mode: watchPath() is its
 * /proc/self/fd link). A readlink of /proc/self/fd is
 * answered from the kernel's memory (no disk): done here on the event loop, it costs a microsecond where a trip
 * through the thread pool costs far more. A removed directory reads as `<path> (deleted)` and never matches.
 */
function stillThere(entry: Kept): boolean {
  try {
    return fs.readlinkSync(entry.dir.watchPath()) === entry.at;
  } catch {
    return false;
  }
}

function drop(entry: Kept): void {
  if (entry.dropped) return;
  entry.dropped = true;
  clearTimeout(entry.idle);
  if (kept.get(entry.key) === entry) kept.delete(entry.key);
  if (entry.users === 0) void entry.dir.close().catch(() => {});
}

async function release(entry: Kept): Promise<void> {
  entry.users--;
  if (entry.users > 0) return;
  if (entry.dropped) return entry.dir.close();
  entry.idle = setTimeout(() => drop(entry), SESSION_FOLDER_IDLE_MS);
  entry.idle.unref();
}

/** Make room for one more: close the least recently used folder no upload is using (none idle: false). */
function makeRoom(): boolean {
  if (kept.size < MAX_KEPT_FOLDERS) return true;
  for (const entry of kept.values()) {
    if (entry.users === 0) {
      drop(entry);
      return true;
    }
  }
  return false;
}

/**
 * The session's attachment folder, created if missing, held open and proven inside the attachment root
 * (openSessionFolder's guarantees), kept for the next upload to the same conversation where that is safe.
 */
export async function leaseSessionFolder(stateDir: string, sessionId: string): Promise<FolderLease> {
  // Validated (a session id, inside the root) before any kept folder is looked at, as openSessionFolder does.
  const expected = sessionFolder(stateDir, sessionId);
  const root = attachmentRoot(stateDir);
  const key = keyOf(root, sessionId);
  const found = kept.get(key);
  if (found && !found.dropped) {
    if (stillThere(found)) {
      clearTimeout(found.idle);
      found.users++;
      // Most recently used: to the end of the map's order.
      kept.delete(key);
      kept.set(key, found);
      return { dir: found.dir, release: () => release(found) };
    }
    drop(found);
  }
  const dir = await openSessionFolder(stateDir, sessionId);
  // Kept only when anchored by descriptor and found where it is named, no symlink on the way (a walk through a
  // symlink inside the root is answered as before, but not kept: the link may be changed to lead elsewhere).
  const keepable = dir.mode === 'proc' && path.basename(dir.path) === path.basename(expected) && path.dirname(dir.path) === dir.root;
  if (!keepable || kept.has(key) || !makeRoom()) return { dir, release: () => dir.close() };
  const entry: Kept = { key, dir, at: dir.path, users: 1, dropped: false };
  if (!stillThere(entry)) return { dir, release: () => dir.close() };
  kept.set(key, entry);
  return { dir, release: () => release(entry) };
}

/** A conversation deleted: its folder is closed (once the uploads using it are done), never lent again. */
export function forgetSessionFolder(stateDir: string, sessionId: string): void {
  const entry = kept.get(keyOf(attachmentRoot(stateDir), sessionId));
  if (entry) drop(entry);
}

/** The server stops: every folder kept below its attachment root is closed (others' servers keep theirs). */
export function closeSessionFolders(stateDir: string): void {
  const prefix = `${attachmentRoot(stateDir)}\0`;
  for (const entry of [...kept.values()]) if (entry.key.startsWith(prefix)) drop(entry);
}

/** How many folders are held now (tests). */
export function keptFolderCount(): number {
  return kept.size;
}
