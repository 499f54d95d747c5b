// Files Satchel holds a POSIX lock on (the state folder's instance.lock, SQLite's database). Such a lock belongs
// to the process, and closing ANY descriptor of the same file drops it: a hard link to instance.lock dropped in a
// watched Inbox folder, a workspace, or handed to "Open with" would be opened, refused, closed, and the state
// folder would no longer be owned (issue 33, finding 1, found in review). So these files are refused before they
// are opened (their device and inode, whatever the name or link), and a descriptor that reached one anyway (a
// name swapped between the look and the open) is kept open for the life of the process instead of closed.
import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** Guarded files by device and inode, with how many holders (two stores may open one database). */
const guarded = new Map<string, number>();
/** Descriptors of guarded files opened by a lost race: never closed, so the process's lock stays. */
const keptOpen: FileHandle[] = [];

const key = (stat: Pick<Stats, 'dev' | 'ino'>): string => `${stat.dev}:${stat.ino}`;

/**
 * Never open the file `stat` describes in this process while it is locked (its lock would go with the first
 * close). The function returned ends that when the lock is let go: a removed file's inode number is used again
 * by a new file, which must not be refused.
 */
export function guardLockedFile(stat: Pick<Stats, 'dev' | 'ino'>): () => void {
  const k = key(stat);
  guarded.set(k, (guarded.get(k) ?? 0) + 1);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    const left = (guarded.get(k) ?? 1) - 1;
    if (left > 0) guarded.set(k, left);
    else guarded.delete(k);
  };
}

/** Whether `stat` is a file whose lock a close would drop. */
export function isLockedFile(stat: Pick<Stats, 'dev' | 'ino'>): boolean {
  return guarded.size > 0 && guarded.has(key(stat));
}

/** The refusal: as for a file that cannot be read, never naming why. */
export function lockedFileRefusal(): Error {
  return Object.assign(new Error('permission denied'), { code: 'EACCES', lockedFile: true });
}

/** Whether `err` is that refusal (a caller that names why a file was refused says it is Satchel's own). */
export function isLockedFileRefusal(err: unknown): boolean {
  return (err as { lockedFile?: unknown } | undefined)?.lockedFile === true;
}

/** `handle` (just opened) is a guarded file: keep it open for good and refuse it; otherwise nothing. */
export function refuseIfLocked(handle: FileHandle, stat: Pick<Stats, 'dev' | 'ino'>): void {
  if (!isLockedFile(stat)) return;
  keptOpen.push(handle);
  throw lockedFileRefusal();
}
