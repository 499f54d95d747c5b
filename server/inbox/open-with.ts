// Files opened with Satchel (the desktop shell: a file association, `open-file`, a second instance's arguments,
// a drop on the dock or tray icon) arrive in the Inbox conversation, or the conversation in use when the
// person's settings say so, through the same storing step as a drop (attachments/store-upload.ts: names,
// limits, .gz, refusals, the search index, `attachment_added`). Each file is copied into staging through a
// descriptor opened without following a symlink, and only a regular file within the upload limit is taken; a
// folder is walked as a dropped folder is (its files, flat), through anchored directories, so a folder swapped
// for a symlink mid-walk is never followed. What is not taken is said, never thrown.
//
// Issue 33: a local process can start Satchel with any argument, so a single file is judged by the protected-
// place rule as folders are, on where the file really is (the descriptor's own path, after every symlink on
// the way): a credential folder, Satchel's own state, /proc and system folders are refused with a sentence.
// A file with more than one link (a hard link may be a key from anywhere) is refused wherever it is.
import { constants as fsc, promises as fs } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { App } from '../app.js';
import { storeStagedAttachment } from '../attachments/store-upload.js';
import { log } from '../core/log.js';
import { AnchoredDir, errno, PROC_FD_DIR, sameFile } from '../store/anchored.js';
import { isCredentialDir, isSystemDir } from '../store/workspaces.js';
import { latestVisibleSession } from '../store/profiles.js';
import type { Session } from '../store/sessions.js';
import { isLockedFile, isLockedFileRefusal, lockedFileRefusal, refuseIfLocked } from '../store/never-open.js';
import { arrivalRow } from './arrivals.js';
import { checkWatchFolder } from './folders.js';
import { HARD_LINK_REFUSED, ignoredName } from './rules.js';
import { inboxSession } from './session.js';

/** Files taken from one open, counting those inside opened folders: the shell bounds it too (open-paths.ts). */
export const MAX_OPENED_FILES = 100;
/** How deep an opened folder is walked: a scanner's `2026/11/` nests two; deeper is a tree, not a handful of files. */
export const MAX_OPENED_FOLDER_DEPTH = 8;
/**
 * Entries looked at across one open's folders, files or not: a folder of a million empty subfolders ends the
 * walk here instead of holding the server.
 */
export const MAX_OPENED_ENTRIES = 10_000;
const COPY_CHUNK_BYTES = 1024 * 1024;

/** Where opened files go (the desktop setting `openWithTo`): the Inbox, or the conversation last in use. */
export type OpenedDestination = 'inbox' | 'current';

export interface OpenedResult {
  /** The conversation the files went to, when anything arrived. */
  sessionId?: string;
  added: string[];
  skipped: { path: string; reason: string }[];
}

const SYMLINK_SKIPPED = 'a symlink is not followed';
export const OPEN_CREDENTIAL = 'it is in a credential folder (such as ~/.ssh), which Satchel never reads';
export const OPEN_PROTECTED = "it is in Satchel's own data or another protected folder, which Satchel never reads";
export const OPEN_SYSTEM = 'it is a system file (such as in /etc or /proc), which Satchel never reads';
export const OPEN_PROTECTED_FOLDER = "a protected folder (credentials or Satchel's own data) is never read";

/** Copy what `src` holds into `staged`, at most `max` bytes; its size, or why not. */
async function copyFrom(src: fs.FileHandle, staged: string, max: number): Promise<number | string> {
  const stat = await src.stat();
  if (!stat.isFile()) return 'not a regular file';
  if (stat.nlink > 1) return HARD_LINK_REFUSED;
  if (stat.size > max) return `larger than the upload limit (${max} bytes)`;
  const out = await fs.open(staged, 'wx', 0o600);
  let total = 0;
  try {
    const buf = Buffer.allocUnsafe(COPY_CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await src.read(buf, 0, buf.length, total);
      if (bytesRead === 0) break;
      total += bytesRead;
      // A file still growing past the limit is not taken half-read.
      if (total > max) return `larger than the upload limit (${max} bytes)`;
      await out.write(buf, 0, bytesRead);
    }
    // Linked while it was read: refused as one linked before.
    if ((await src.stat()).nlink > 1) return HARD_LINK_REFUSED;
  } finally {
    await out.close();
  }
  return total;
}

/** The file to read, opened without following a symlink (O_NONBLOCK: a FIFO never blocks the open). */
type Opener = () => Promise<fs.FileHandle>;

/** Why the opened file must not be read (where it really is), or undefined when it may. */
type Judge = (src: fs.FileHandle) => Promise<string | undefined>;

async function copyIn(open: Opener, staged: string, max: number, judge?: Judge): Promise<number | string> {
  let src: fs.FileHandle;
  try {
    src = await open();
  } catch (err) {
    // instance.lock or the database, by a hard link: Satchel's own data, refused before it was opened.
    if (isLockedFileRefusal(err)) return OPEN_PROTECTED;
    return errno(err) === 'ELOOP' ? SYMLINK_SKIPPED : 'it could not be opened';
  }
  try {
    const refused = await judge?.(src);
    if (refused) return refused;
    return await copyFrom(src, staged, max);
  } finally {
    await src.close();
  }
}

/** One open's work: the destination, found on the first file that arrives, and the shared limits. */
class Delivery {
  readonly result: OpenedResult = { added: [], skipped: [] };
  private files = 0;
  private entries = 0;
  private target: Session | undefined;

  constructor(
    private readonly app: App,
    private readonly profile: string,
    private readonly to: OpenedDestination,
  ) {}

  skip(file: string, reason: string): void {
    this.result.skipped.push({ path: file, reason });
  }

  /** False once the open has taken as many files as it may: the rest is skipped, said once per item. */
  roomForFile(): boolean {
    return this.files < MAX_OPENED_FILES;
  }

  isProtected(dirPath: string, id: { dev: number; ino: number }): boolean {
    return this.app.workspaces.protectedPlaces.isPlace(dirPath, id);
  }

  countEntry(): boolean {
    return ++this.entries <= MAX_OPENED_ENTRIES;
  }

  /** `display` (a path for the person) through `open` into the destination. */
  async take(display: string, open: Opener, judge?: Judge): Promise<void> {
    this.files++;
    const staged = path.join(this.app.stagingDir, `open-${randomBytes(8).toString('hex')}`);
    try {
      const copied = await copyIn(open, staged, this.app.config.maxUploadBytes, judge);
      if (typeof copied === 'string') return this.skip(display, copied);
      const session = await this.destination();
      // A row in the conversation's thread says what arrived and from where (inbox/arrivals.ts), written with
      // the file's record: a crash never leaves the file without it.
      const stored = await storeStagedAttachment(this.app, this.profile, session.session_id, { stagedPath: staged, filename: path.basename(display), size: copied }, (a) => ({
        change: arrivalRow({ source: 'open-with' }, a),
      }));
      this.app.arrivals.announce(this.profile, session.session_id);
      this.result.sessionId = session.session_id;
      this.result.added.push(stored.filename);
    } catch (err) {
      // A refused kind (7z, RAR) or a full disk: this file is not added, the others still are.
      this.skip(display, err instanceof Error ? err.message : 'it could not be stored');
      log.warn('open with Satchel: a file was not added', err);
    } finally {
      await fs.rm(staged, { force: true });
    }
  }

  /** The conversation in use is the profile's most recently active one; without any, the Inbox. */
  private async destination(): Promise<Session> {
    // Found once per open: every file of it goes to the same conversation (only its id is used).
    if (this.target) return this.target;
    if (this.to === 'current') {
      const session = await latestVisibleSession(this.app.sessions, this.profile);
      if (session) return (this.target = session);
    }
    return (this.target = await inboxSession(this.app, this.profile));
  }
}

/**
 * Walk an opened folder (anchored: each step is taken inside the directory already open) and take its files as
 * a dropped folder gives them: flat, in name order, hidden and temporary files left out as a watched folder
 * leaves them, subfolders up to MAX_OPENED_FOLDER_DEPTH.
 */
async function takeFolder(delivery: Delivery, dir: AnchoredDir, shown: string, depth: number): Promise<void> {
  const entries = (await dir.readdir()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (ignoredName(entry.name)) continue;
    const display = path.join(shown, entry.name);
    if (!delivery.countEntry()) return delivery.skip(display, `more than ${MAX_OPENED_ENTRIES} entries in the opened folders`);
    if (entry.isSymbolicLink()) {
      delivery.skip(display, SYMLINK_SKIPPED);
    } else if (entry.isDirectory()) {
      if (depth >= MAX_OPENED_FOLDER_DEPTH) {
        delivery.skip(display, `deeper than ${MAX_OPENED_FOLDER_DEPTH} folders`);
        continue;
      }
      let child: AnchoredDir;
      try {
        child = await dir.openDir(entry.name);
      } catch (err) {
        // Swapped for a symlink since readdir (ELOOP/ENOTDIR) or gone: never followed.
        delivery.skip(display, errno(err) === 'ELOOP' || errno(err) === 'ENOTDIR' ? SYMLINK_SKIPPED : 'it could not be opened');
        continue;
      }
      try {
        // A folder opened whole may hold a protected one not hidden by its name (~/Library/Keychains).
        if (delivery.isProtected(display, child.id)) delivery.skip(display, OPEN_PROTECTED_FOLDER);
        else await takeFolder(delivery, child, display, depth + 1);
      } finally {
        await child.close();
      }
    } else if (entry.isFile()) {
      if (!delivery.roomForFile()) return delivery.skip(display, `more than ${MAX_OPENED_FILES} files at once`);
      await delivery.take(display, () => dir.openFile(entry.name, fsc.O_RDONLY | fsc.O_NONBLOCK));
    } else {
      delivery.skip(display, 'not a regular file');
    }
  }
}

async function openFolder(app: App, delivery: Delivery, folder: string): Promise<void> {
  // The rules of a watched folder: an opened ~/.ssh (a local process can start Satchel with any argument) or a
  // system folder is never read into a conversation; the sentence says why.
  try {
    await checkWatchFolder(app.workspaces, folder);
  } catch (err) {
    return delivery.skip(folder, err instanceof Error ? err.message : 'it could not be opened');
  }
  let parent: AnchoredDir | undefined;
  let dir: AnchoredDir | undefined;
  try {
    parent = await AnchoredDir.open(path.dirname(folder));
    dir = await parent.openDir(path.basename(folder));
  } catch (err) {
    await parent?.close();
    return delivery.skip(folder, errno(err) === 'ELOOP' || errno(err) === 'ENOTDIR' ? SYMLINK_SKIPPED : 'it could not be opened');
  }
  try {
    await takeFolder(delivery, dir, folder, 1);
  } finally {
    await dir.close();
    await parent.close();
  }
}

/** `paths` (absolute, as the shell accepted them) into `profile`'s Inbox conversation, or the one in use. */
export async function addFilesToInbox(app: App, profile: string, paths: readonly string[], to: OpenedDestination = 'inbox'): Promise<OpenedResult> {
  const delivery = new Delivery(app, profile, to);
  for (const item of paths) {
    if (!path.isAbsolute(item)) {
      delivery.skip(item, 'not an absolute path');
      continue;
    }
    let stat;
    try {
      stat = await fs.lstat(item);
    } catch {
      delivery.skip(item, 'it could not be opened');
      continue;
    }
    if (stat.isDirectory()) {
      await openFolder(app, delivery, item);
      continue;
    }
    if (!delivery.roomForFile()) {
      delivery.skip(item, `more than ${MAX_OPENED_FILES} files at once`);
      continue;
    }
    await delivery.take(
      item,
      async () => {
        // A file Satchel holds a lock on is never opened (store/never-open.ts): closing it would drop the lock.
        const before = await fs.lstat(item).catch(() => undefined);
        if (before && isLockedFile(before)) throw lockedFileRefusal();
        const handle = await fs.open(item, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
        refuseIfLocked(handle, await handle.stat());
        return handle;
      },
      (src) => protectedFile(app, item, src),
    );
  }
  return delivery.result;
}

/**
 * Where the opened file really is: on Linux the descriptor's own link (what was opened, whatever symlinks or
 * swaps led there); elsewhere its real path, when the file there is still the one opened.
 */
async function realPathOf(given: string, src: fs.FileHandle): Promise<string | undefined> {
  const viaProc = await fs.readlink(`${PROC_FD_DIR}/${src.fd}`).catch(() => undefined);
  if (viaProc !== undefined && path.isAbsolute(viaProc)) return viaProc;
  const real = await fs.realpath(given).catch(() => undefined);
  if (real === undefined) return undefined;
  const [there, opened] = await Promise.all([fs.stat(real).catch(() => undefined), src.stat()]);
  return there && sameFile(there, opened) ? real : undefined;
}

/** The protected-place rule for one opened file, on its path as given and where it really is. */
async function protectedFile(app: App, given: string, src: fs.FileHandle): Promise<string | undefined> {
  const real = await realPathOf(given, src);
  if (real === undefined) return 'it could not be opened';
  if (isCredentialDir(given) || isCredentialDir(real)) return OPEN_CREDENTIAL;
  if (isSystemDir(given) || isSystemDir(real)) return OPEN_SYSTEM;
  const places = app.workspaces.protectedPlaces;
  if ((await places.contains(path.dirname(given))) || (await places.contains(path.dirname(real)))) return OPEN_PROTECTED;
  return undefined;
}
