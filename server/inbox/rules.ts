// What the Inbox folder watcher takes and when: the pure rules (names ignored, limits, timings), tested alone.

/**
 * A file's size and times must stay the same this long before it is read: a browser, a scanner or a sync client
 * writes in bursts, and a file still growing is read later. 1.5 s outlasts the pauses of a download over a slow
 * link between chunks (Chromium flushes about every second) while an arrival still shows within ~2 s.
 */
export const SETTLE_MS = 1_500;
/** How often the files waiting to settle are looked at again (stat only; cheap). */
export const POLL_MS = 250;
/**
 * Every watched folder is listed again this often, whatever fs.watch said. On Linux fs.watch (inotify) watches
 * the folder's inode: a folder deleted and made again, or renamed away and back, is a new inode nobody
 * watches, and a queue overflow loses events silently; on network and FUSE folders events may never come.
 * The rescan picks all of these up; 2 s keeps a returning folder's arrivals prompt at the cost of one readdir.
 */
export const RESCAN_MS = 2_000;
/** At most this many files arrive per minute across all folders; the rest wait for the next minute (a runaway
 *  program writing files must not fill a conversation: MAX_ATTACHMENTS_PER_SESSION is 10,000). A 1,000-photo
 *  phone sync passes in well under a minute. */
export const MAX_ARRIVALS_PER_MINUTE = 2_000;
/** At most this many names are looked at per folder per scan; the rest are skipped (counted, logged). */
export const MAX_FILES_PER_SCAN = 10_000;
/** At most this many folders are watched (each holds an fs.watch handle and a rescan). */
export const MAX_WATCHED_FOLDERS = 32;
/** Content hashes remembered so the same bytes never arrive twice; the oldest are forgotten beyond this. Each is
 *  a row of the database's inbox_taken (store/inbox-taken.ts), ~100 bytes: 20,000 keep it near 2 MB. */
export const MAX_REMEMBERED_HASHES = 20_000;
/** The watcher's cache of what it saw (names and signatures, inbox.json) is written at most this often (after a
 *  burst of arrivals, once). What it took is not: that is written with each file (store/inbox-taken.ts). */
export const STATE_WRITE_DELAY_MS = 500;
/**
 * A settled file that some process still holds open for writing waits at most this long (open-writers.ts): a
 * copy that paused, a scanner between pages, finish well within it; an editor that keeps the document open while
 * the person works on it (LibreOffice) must not keep a saved file out of the Inbox for longer.
 */
export const MAX_WRITER_WAIT_MS = 60_000;

/** Why a file with more than one link is not taken (the watcher and "Open with" alike). */
export const HARD_LINK_REFUSED = 'it has more than one link (a hard link can reach a file kept anywhere, such as a key), so it is not read';

// Names of files still being written, or that belong to an application rather than the person.
const TEMP_SUFFIXES = ['.crdownload', '.part', '.partial', '.download', '.tmp', '.temp', '.swp', '.swx', '.opdownload', '.!ut', '.aria2', '~'];
const TEMP_PREFIXES = ['~$', '.~lock.', '~lock.'];
const SYSTEM_NAMES = new Set(['thumbs.db', 'desktop.ini', 'ehthumbs.db', 'icon\r']);

export type IgnoreReason = 'hidden' | 'temporary';

/** Why a name in a watched folder is never read, or null when it may be. Case-insensitive. */
export function ignoredName(name: string): IgnoreReason | null {
  // `.DS_Store`, `.~lock.x#`, editors' `.x.swp`, and every other hidden file: never the person's new document.
  if (name.startsWith('.')) return 'hidden';
  const lower = name.toLowerCase();
  if (SYSTEM_NAMES.has(lower)) return 'hidden';
  if (TEMP_PREFIXES.some((p) => lower.startsWith(p))) return 'temporary';
  if (TEMP_SUFFIXES.some((s) => lower.endsWith(s))) return 'temporary';
  // Safari's `x.download` folder and Firefox's `x.part` are caught above; LibreOffice's `~lock.x#` and
  // emacs' `#x#` end in '#'.
  if (lower.endsWith('#')) return 'temporary';
  return null;
}

/** What a file looked like at one stat: a change in any of these means it is still being written. */
export interface Signature {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

export function sameSignature(a: Signature | undefined, b: Signature | undefined): boolean {
  return !!a && !!b && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/** A sliding one-minute window of arrivals: may another arrive now? */
export class RateWindow {
  private readonly times: number[] = [];
  constructor(private readonly perMinute: number) {}

  take(now: number): boolean {
    while (this.times.length > 0 && now - this.times[0]! >= 60_000) this.times.shift();
    if (this.times.length >= this.perMinute) return false;
    this.times.push(now);
    return true;
  }
}
