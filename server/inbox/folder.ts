// A watched folder as the Inbox watcher holds it (watcher.ts): its status, the descriptor it is reached through,
// the files waiting to settle and the files already seen, and what was passed over and why. Apart from the
// watcher's parts (detector.ts, settler.ts, importer.ts) because each of them reads and changes these, and the
// rules of the held descriptor (closed only once no read uses it) must be the same for all.
import fs from 'node:fs/promises';
import type { FSWatcher } from 'node:fs';
import type { InboxFolderStatus, InboxSkippedFile } from '../core/wire.js';
import { ValueError } from '../core/errors.js';
import { AnchoredDir, errno, sameFile } from '../store/anchored.js';
import type { Workspaces } from '../store/workspaces.js';
import { WATCH_REPLACED, WATCH_SYMLINK } from './folders.js';
import type { Signature } from './rules.js';

/** Files not taken are named in Settings, the latest this many per folder (the counts hold them all). */
export const MAX_NAMED_SKIPS = 20;

export interface Candidate {
  /** undefined until stat'ed after an event. */
  sig?: Signature;
  /** When the last change was noticed (our clock). */
  changedAt: number;
  /** Order of the last change among all files: arrivals keep it. */
  seq: number;
  /** When it was first found settled but still open for writing (our clock); it waits from then. */
  heldSince?: number;
}

/** A watched folder's descriptor, closed once no read uses it any more (its number must not be reused under one). */
export interface Held {
  dir: AnchoredDir;
  users: number;
  retired: boolean;
}

export interface Folder {
  /** As configured (env) or as validated (settings). */
  configured: string;
  real?: string;
  source: 'env' | 'settings';
  profile: string;
  status: InboxFolderStatus;
  error?: string;
  watcher?: FSWatcher;
  /** The folder held open while it is watched: every name is reached through it, never through the path. */
  held?: Held;
  candidates: Map<string, Candidate>;
  /** The files as last read or passed over: a name whose signature differs is a change. */
  known: Map<string, Signature>;
  /** Temporary and hidden names seen, so each is counted once (a download's hundred writes are one skip). */
  ignored: Set<string>;
  /** Names (hex of their bytes) that are not UTF-8, counted once each. */
  badNames: Set<string>;
  /** The latest files not taken, with why (Settings). */
  skipped: InboxSkippedFile[];
  /** Names beyond the per-scan limit at the last scan: counted and warned about when it changes, not per scan. */
  over: number;
}

/** A folder not yet looked at; `known` is what the record remembers of it, if anything. */
export function newFolder(configured: string, source: Folder['source'], profile: string, known?: Map<string, Signature>): Folder {
  return { configured, source, profile, status: 'missing', candidates: new Map(), known: known ?? new Map(), ignored: new Set(), badNames: new Set(), skipped: [], over: 0 };
}

/** The name `raw` as a string when it is valid UTF-8 (then it reads back to the same bytes), else undefined. */
export function utf8Name(raw: Buffer): string | undefined {
  const name = raw.toString('utf8');
  return Buffer.byteLength(name) === raw.length && Buffer.from(name, 'utf8').equals(raw) ? name : undefined;
}

export const sigOf = (st: { size: number; mtimeMs: number; ctimeMs: number; ino: number }): Signature => ({ size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino });

/** A file not taken, named in Settings (the latest MAX_NAMED_SKIPS per folder). */
export function noteSkip(f: Folder, name: string, reason: string): void {
  const i = f.skipped.findIndex((x) => x.name === name);
  if (i >= 0) f.skipped.splice(i, 1);
  f.skipped.push({ name, reason });
  if (f.skipped.length > MAX_NAMED_SKIPS) f.skipped.shift();
}

/**
 * Open the folder checked at `real` and make sure the descriptor holds that very folder: its last component
 * is never followed (O_NOFOLLOW), and where the kernel says it is must be `real` (a parent swapped between the
 * check and the open would have led elsewhere). A ValueError with the reason otherwise.
 */
export async function holdFolder(real: string, workspaces: Pick<Workspaces, 'protectedPlaces'>): Promise<Held> {
  let dir: AnchoredDir;
  try {
    dir = await AnchoredDir.openExact(real);
  } catch (err) {
    throw new ValueError(errno(err) === 'ELOOP' ? WATCH_SYMLINK : WATCH_REPLACED);
  }
  const where = await dir.whereNow().catch(() => undefined);
  if (where !== real || workspaces.protectedPlaces.isPlace(where, dir.id)) {
    await dir.close();
    throw new ValueError(WATCH_REPLACED);
  }
  return { dir, users: 0, retired: false };
}

/** Use the folder's descriptor for `work` (undefined when it is not held): it stays open until `work` ends. */
export async function withHeld<T>(f: Folder, work: (held: Held) => Promise<T>): Promise<T | undefined> {
  const held = f.held;
  if (!held) return undefined;
  held.users++;
  try {
    return await work(held);
  } finally {
    if (--held.users === 0 && held.retired) await held.dir.close();
  }
}

/** Stop watching the folder and let its descriptor go (closed now, or by the last read still using it). */
export function closeWatch(f: Folder): void {
  f.watcher?.close();
  f.watcher = undefined;
  const held = f.held;
  f.held = undefined;
  if (held) {
    held.retired = true;
    if (held.users === 0) void held.dir.close();
  }
}

/** Whether the folder at the watched path is still the one held (device and inode; a symlink there is not). */
export async function stillThere(f: Folder, held: Held): Promise<boolean> {
  const st = await fs.lstat(f.real!).catch(() => undefined);
  return !!st && sameFile(st, held.dir.id);
}
