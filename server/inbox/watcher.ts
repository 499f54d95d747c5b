// The Inbox folder watcher (issue 26): files that appear or change in a watched folder arrive once, in the
// order they became complete, in the profile's Inbox conversation, through the same storing path as an upload
// (attachments/store-upload.ts: limits, names, refusals, `.gz`). It runs in the server process, so the headless
// server watches too.
//
// How a file gets in: fs.watch events (and a periodic rescan, rules.ts RESCAN_MS says why) make a name a
// candidate; the candidate is stat'ed every POLL_MS, and once its size and times have not changed for SETTLE_MS
// it is read, through a descriptor opened without following symlinks, into the staging folder while hashed. A
// file that changed while it was read goes back to waiting. The same bytes (SHA-256) never arrive twice.
//
// Issue 33: every name is looked up and opened relative to a descriptor held on the watched folder
// (store/anchored.ts), never through its path, so a folder renamed away and replaced by a symlink to ~/.ssh
// cannot send a read there; when the folder at the path is no longer the one held (device and inode), nothing
// more is taken from it and its status says so. A file with more than one link is refused (a hard link may be
// to a key anywhere on the disk), as are files Satchel may not read and names that are not UTF-8: each counted
// once and named in Settings. The hashes of what was taken are written in the transaction that records the
// file and its arrival row (store/inbox-taken.ts), so a crash at any moment takes each file exactly once.
// What was seen (names and signatures, a cache that spares reading a file again) and the folders are kept in
// `<state>/inbox.json`; files already in a folder when it is added are taken as seen, not imported.
import { createHash, randomBytes } from 'node:crypto';
import { constants as fsc, watch, type FSWatcher, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { App } from '../app.js';
import type { InboxCounts as WireInboxCounts, InboxFolder, InboxFolderStatus, InboxSkippedFile } from '../core/wire.js';
import { storeStagedAttachment } from '../attachments/store-upload.js';
import { HttpError, ValueError } from '../core/errors.js';
import { log } from '../core/log.js';
import { AnchoredDir, errno, sameFile } from '../store/anchored.js';
import { writeFileAtomic } from '../store/atomic.js';
import { importTaken, recordTaken, takenKeys, type TakenKey } from '../store/inbox-taken.js';
import { DEFAULT_PROFILE } from '../store/profiles.js';
import { arrivalRow } from './arrivals.js';
import { checkWatchFolder, WATCH_REPLACED, WATCH_SYMLINK } from './folders.js';
import { filesOpenForWriting } from './open-writers.js';
import {
  HARD_LINK_REFUSED,
  ignoredName,
  MAX_ARRIVALS_PER_MINUTE,
  MAX_FILES_PER_SCAN,
  MAX_REMEMBERED_HASHES,
  MAX_WATCHED_FOLDERS,
  MAX_WRITER_WAIT_MS,
  POLL_MS,
  RateWindow,
  RESCAN_MS,
  sameSignature,
  SETTLE_MS,
  STATE_WRITE_DELAY_MS,
  type Signature,
} from './rules.js';
import { inboxSession } from './session.js';

const STATE_FILE = 'inbox.json';
/** Reading a file in pieces of this size keeps memory flat whatever the file's size. */
const READ_CHUNK_BYTES = 1 << 20;
/** When the minute's arrivals are used up, look again this often. */
const RATE_RETRY_MS = 1_000;
export const TOO_MANY_FOLDERS = `At most ${MAX_WATCHED_FOLDERS} folders can be watched`;
/** Files not taken are named in Settings, the latest this many per folder (the counts hold them all). */
export const MAX_NAMED_SKIPS = 20;
export const SKIP_UNREADABLE = 'Satchel is not allowed to read it (its permissions)';
export const SKIP_NOT_UTF8 = 'its name is not valid UTF-8; rename it to bring it in';
export const SKIP_HARD_LINK = HARD_LINK_REFUSED;

export interface InboxOptions {
  settleMs: number;
  pollMs: number;
  rescanMs: number;
  maxArrivalsPerMinute: number;
  maxFilesPerScan: number;
  /** The upload limit (SATCHEL_WEBUI_MAX_UPLOAD_MB): a watched file is an upload by other means. */
  maxFileBytes: number;
  /** How long a settled file some process still holds open for writing waits before it is read anyway. */
  maxWriterWaitMs: number;
  /** Of these paths, the ones held open for writing; null when that cannot be known (open-writers.ts). */
  openWriters(paths: ReadonlySet<string>): Promise<Set<string> | null>;
}

// The shapes GET /api/inbox/folders sends (wire.d.ts, which the page reads too): one declaration for both sides.
export type FolderStatus = InboxFolderStatus;
/** A watched folder as the settings panel lists it. */
export type FolderView = InboxFolder;
/** What the watcher did, for the settings panel and the tests. */
export type InboxCounts = WireInboxCounts;

interface Candidate {
  /** undefined until stat'ed after an event. */
  sig?: Signature;
  /** When the last change was noticed (our clock). */
  changedAt: number;
  /** Order of the last change among all files: arrivals keep it. */
  seq: number;
  /** When it was first found settled but still open for writing (our clock); it waits from then. */
  heldSince?: number;
}

interface Folder {
  /** As configured (env) or as validated (settings). */
  configured: string;
  real?: string;
  source: 'env' | 'settings';
  profile: string;
  status: FolderStatus;
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

/** A watched folder's descriptor, closed once no read uses it any more (its number must not be reused under one). */
interface Held {
  dir: AnchoredDir;
  users: number;
  retired: boolean;
}

/** Why a file that settled was not read. */
type Skip = 'symlink' | 'unreadable' | 'hard_link';

interface Ready {
  folder: Folder;
  name: string;
  sig: Signature;
  seq: number;
}

/** A file being read into staging ahead of its turn to be stored. */
interface Fetched {
  staged: string;
  read: { hash: string } | 'changed' | 'gone' | { skip: Skip };
  error?: unknown;
}

interface Fetching {
  item: Ready;
  fetched: Promise<Fetched>;
}

interface StoredState {
  folders?: { path: string; profile: string }[];
  paused?: boolean;
  /** Before issue 33: the taken hashes (`profile:hash`), moved into the database once (store/inbox-taken.ts). */
  hashes?: string[];
  known?: Record<string, Record<string, [number, number, number, number]>>;
}

/** The name `raw` as a string when it is valid UTF-8 (then it reads back to the same bytes), else undefined. */
function utf8Name(raw: Buffer): string | undefined {
  const name = raw.toString('utf8');
  return Buffer.byteLength(name) === raw.length && Buffer.from(name, 'utf8').equals(raw) ? name : undefined;
}

const sigOf = (st: { size: number; mtimeMs: number; ctimeMs: number; ino: number }): Signature => ({ size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino });

export function defaultInboxOptions(maxFileBytes: number): InboxOptions {
  return {
    settleMs: SETTLE_MS,
    pollMs: POLL_MS,
    rescanMs: RESCAN_MS,
    maxArrivalsPerMinute: MAX_ARRIVALS_PER_MINUTE,
    maxFilesPerScan: MAX_FILES_PER_SCAN,
    maxFileBytes,
    maxWriterWaitMs: MAX_WRITER_WAIT_MS,
    openWriters: (paths) => filesOpenForWriting(paths),
  };
}

export class InboxWatcher {
  private readonly folders: Folder[] = [];
  private opts: InboxOptions;
  private rate: RateWindow;
  private app!: App;
  private readonly hashes = new Set<string>();
  /** Folders whose seen files were recorded before (a missing record means: take what is there as seen). */
  private readonly storedKnown = new Map<string, Map<string, Signature>>();
  private readonly queue: Ready[] = [];
  private seq = 0;
  private paused = false;
  private stopped = false;
  private started = false;
  private pollTimer?: NodeJS.Timeout;
  private rescanTimer?: NodeJS.Timeout;
  private rateTimer?: NodeJS.Timeout;
  private stateTimer?: NodeJS.Timeout;
  private draining?: Promise<void>;
  private scanning?: Promise<void>;
  private stateWrite: Promise<void> = Promise.resolve();
  readonly counts: InboxCounts = {
    arrived: 0,
    duplicate: 0,
    ignored: 0,
    symlink: 0,
    empty: 0,
    too_large: 0,
    refused: 0,
    failed: 0,
    over_scan_limit: 0,
    unreadable: 0,
    bad_name: 0,
    hard_link: 0,
  };

  constructor(
    private readonly envFolders: readonly string[],
    private readonly overrides: Partial<InboxOptions> = {},
  ) {
    this.opts = { ...defaultInboxOptions(0), ...overrides };
    this.rate = new RateWindow(this.opts.maxArrivalsPerMinute);
  }

  private get stateFile(): string {
    return path.join(this.app.config.stateDir, STATE_FILE);
  }

  /** Begin watching for `app` (its state folder, sessions, workspace rules and upload limit). */
  async start(app: App): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.app = app;
    this.opts = { ...defaultInboxOptions(app.config.maxUploadBytes), ...this.overrides };
    this.rate = new RateWindow(this.opts.maxArrivalsPerMinute);
    const stored = await this.readState();
    this.paused = stored.paused === true;
    const moved = await this.loadTaken(stored);
    for (const [dir, names] of Object.entries(stored.known ?? {})) {
      const map = new Map<string, Signature>();
      for (const [name, s] of Object.entries(names ?? {})) if (Array.isArray(s) && s.length === 4) map.set(name, { size: s[0], mtimeMs: s[1], ctimeMs: s[2], ino: s[3] });
      this.storedKnown.set(dir, map);
    }
    for (const dir of this.envFolders.slice(0, MAX_WATCHED_FOLDERS)) this.folders.push(this.newFolder(path.resolve(dir), 'env', DEFAULT_PROFILE));
    for (const f of stored.folders ?? []) {
      if (typeof f?.path !== 'string' || typeof f.profile !== 'string' || this.folders.some((x) => x.configured === f.path)) continue;
      if (this.folders.length < MAX_WATCHED_FOLDERS) this.folders.push(this.newFolder(f.path, 'settings', f.profile));
    }
    if (moved) {
      // The hashes are in the database now: inbox.json without them (a crash before this only moves them again).
      this.writeNow();
      await this.stateWrite;
    }
    if (!this.paused) this.resumeTimers();
    await this.scanAll();
  }

  private newFolder(configured: string, source: Folder['source'], profile: string): Folder {
    const folder: Folder = { configured, source, profile, status: 'missing', candidates: new Map(), known: new Map(), ignored: new Set(), badNames: new Set(), skipped: [], over: 0 };
    const stored = this.storedKnown.get(configured);
    if (stored) folder.known = stored;
    return folder;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.haltTimers();
    for (const f of this.folders) this.closeWatch(f);
    await this.scanning;
    await this.draining;
    await this.flush();
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** The folders a profile sees: the configured ones (SATCHEL_INBOX_FOLDERS) and its own. */
  list(profile: string): FolderView[] {
    return this.folders
      .filter((f) => f.source === 'env' || f.profile === profile)
      .map((f) => ({
        path: f.real ?? f.configured,
        source: f.source,
        status: this.paused && f.status === 'watching' ? 'paused' : f.status,
        ...(f.error ? { error: f.error } : {}),
        ...(f.skipped.length > 0 ? { skipped: f.skipped.map((x) => ({ ...x })) } : {}),
      }));
  }

  /** Watch `dir` for `profile` from now on; what is in it now is taken as seen. 400 when the rules refuse it. */
  async addFolder(dir: unknown, profile: string): Promise<void> {
    const real = await checkWatchFolder(this.app.workspaces, dir);
    if (this.folders.some((f) => (f.real ?? f.configured) === real)) return;
    if (this.folders.length >= MAX_WATCHED_FOLDERS) throw new ValueError(TOO_MANY_FOLDERS);
    const folder = this.newFolder(real, 'settings', profile);
    this.storedKnown.delete(real);
    folder.known = new Map();
    folder.real = real;
    folder.held = await this.holdFolder(real);
    // What is already there was not "new": only what appears or changes from now on arrives.
    await this.baseline(folder);
    this.folders.push(folder);
    if (this.active) {
      this.openWatch(folder);
      folder.status = 'watching';
      await this.scanNames(folder);
    } else this.closeWatch(folder);
    this.writeStateSoon(0);
  }

  /** Stop watching `dir` (one the profile added; a configured folder is changed where it is configured). */
  async removeFolder(dir: unknown, profile: string): Promise<void> {
    if (typeof dir !== 'string') throw new ValueError('folder must be a path');
    const i = this.folders.findIndex((f) => f.source === 'settings' && f.profile === profile && (f.real === dir || f.configured === dir));
    if (i < 0) {
      if (this.folders.some((f) => f.source === 'env' && (f.real === dir || f.configured === dir))) throw new ValueError('This folder is set by SATCHEL_INBOX_FOLDERS; change it there');
      throw new HttpError(404, 'That folder is not watched');
    }
    const [folder] = this.folders.splice(i, 1);
    this.closeWatch(folder!);
    this.storedKnown.delete(folder!.configured);
    for (let q = this.queue.length - 1; q >= 0; q--) if (this.queue[q]!.folder === folder) this.queue.splice(q, 1);
    this.sumOver();
    this.writeStateSoon(0);
  }

  /** Pause: nothing is read or watched. Resume: what appeared or changed meanwhile arrives. */
  async setPaused(paused: boolean): Promise<void> {
    if (paused === this.paused) return;
    this.paused = paused;
    if (paused) {
      this.haltTimers();
      for (const f of this.folders) this.closeWatch(f);
      await this.draining;
    } else {
      this.resumeTimers();
      await this.scanAll();
      this.drain();
    }
    this.writeStateSoon(0);
  }

  // --- timers -------------------------------------------------------------------------------------------

  private resumeTimers(): void {
    if (this.stopped) return;
    this.pollTimer ??= setInterval(() => this.poll(), this.opts.pollMs).unref();
    this.rescanTimer ??= setInterval(() => void this.scanAll(), this.opts.rescanMs).unref();
  }

  private haltTimers(): void {
    clearInterval(this.pollTimer);
    clearInterval(this.rescanTimer);
    clearTimeout(this.rateTimer);
    this.pollTimer = this.rescanTimer = this.rateTimer = undefined;
  }

  private get active(): boolean {
    return !this.stopped && !this.paused;
  }

  // --- finding changes ------------------------------------------------------------------------------------

  private closeWatch(f: Folder): void {
    f.watcher?.close();
    f.watcher = undefined;
    const held = f.held;
    f.held = undefined;
    if (held) {
      held.retired = true;
      if (held.users === 0) void held.dir.close();
    }
  }

  /** Use the folder's descriptor for `work` (undefined when it is not held): it stays open until `work` ends. */
  private async withHeld<T>(f: Folder, work: (held: Held) => Promise<T>): Promise<T | undefined> {
    const held = f.held;
    if (!held) return undefined;
    held.users++;
    try {
      return await work(held);
    } finally {
      if (--held.users === 0 && held.retired) await held.dir.close();
    }
  }

  /** Whether the folder at the watched path is still the one held (device and inode; a symlink there is not). */
  private async stillThere(f: Folder, held: Held): Promise<boolean> {
    const st = await fs.lstat(f.real!).catch(() => undefined);
    return !!st && sameFile(st, held.dir.id);
  }

  /**
   * The folder at the watched path is no longer the one held (renamed away, replaced, a symlink put in its
   * place): nothing more is taken from it, and its status says so until a folder is back there (then it is
   * checked by the rules and watched again, as one deleted and made again is).
   */
  private lose(f: Folder, now: Stats | undefined): void {
    this.closeWatch(f);
    f.candidates.clear();
    for (let q = this.queue.length - 1; q >= 0; q--) if (this.queue[q]!.folder === f) this.queue.splice(q, 1);
    f.status = now?.isSymbolicLink() ? 'refused' : 'missing';
    // Nothing at the path: deleted (or renamed away), said as a missing folder always was.
    if (!now) return log.info('inbox: a watched folder is gone; it is watched again when it is back');
    log.warn('inbox: a watched folder was moved or replaced while watched; nothing more is taken from it until a folder is back at its path');
    f.error = WATCH_REPLACED;
  }

  /** Mark `name` as changed just now (an fs.watch event, or a scan that saw it differ). */
  private touch(f: Folder, name: string, sig?: Signature): void {
    const c = f.candidates.get(name);
    if (c) {
      c.changedAt = Date.now();
      c.seq = ++this.seq;
      // After an event the file is stat'ed afresh: the change it announced settles from the event's time.
      c.sig = sig;
    } else if (f.candidates.size < this.opts.maxFilesPerScan) f.candidates.set(name, { sig, changedAt: Date.now(), seq: ++this.seq });
    // Beyond that many files waiting at once a name is not tracked from its event; a later rescan finds it.
  }

  private scanAll(): Promise<void> {
    if (!this.active) return Promise.resolve();
    // One scan at a time: a slow folder (a network share) must not pile scans up.
    if (this.scanning) return this.scanning;
    const run = (async () => {
      // Yield first: with no folder the loop would end synchronously, before `scanning` is even set.
      await Promise.resolve();
      for (const f of [...this.folders]) await this.scanFolder(f);
    })()
      .catch((err: unknown) => log.warn('inbox: a scan of the watched folders failed', err))
      .finally(() => {
        if (this.scanning === run) this.scanning = undefined;
      });
    this.scanning = run;
    return run;
  }

  /** The folder as it is now: gone (unwatched until it is back), back (checked, watched), and its names. */
  private async scanFolder(f: Folder): Promise<void> {
    if (!this.active) return;
    const where = f.real ?? f.configured;
    const st = await fs.lstat(where).catch(() => undefined);
    if (f.held && (!st || !sameFile(st, f.held.dir.id))) this.lose(f, st);
    if (!st || !st.isDirectory()) {
      if (f.status === 'watching') log.info('inbox: a watched folder is gone; it is watched again when it is back');
      if (f.status !== 'refused' || !st) {
        f.status = st?.isSymbolicLink() ? 'refused' : 'missing';
        if (st?.isSymbolicLink() && f.error !== WATCH_REPLACED) f.error = WATCH_SYMLINK;
      }
      this.closeWatch(f);
      return;
    }
    if (!f.held) {
      // Back, or seen for the first time: the rules again (it may have come back as something else).
      try {
        f.real = await checkWatchFolder(this.app.workspaces, f.configured);
        const held = await this.holdFolder(f.real);
        // Another scan of this folder (an add and the rescan at once) held it first: one descriptor, one watch.
        if (f.held) {
          await held.dir.close();
          return;
        }
        f.held = held;
      } catch (err) {
        const message = (err as Error).message;
        if (f.status !== 'refused') log.warn(`inbox: a watched folder is refused: ${message}`);
        f.status = 'refused';
        f.error = message;
        return;
      }
      f.error = undefined;
      if (!this.storedKnown.has(f.configured) && f.source === 'env' && f.known.size === 0 && !this.hasRecord(f)) {
        // A configured folder seen for the first time: what is in it already is not new.
        await this.baseline(f);
      }
      this.openWatch(f);
      f.status = 'watching';
    }
    await this.scanNames(f);
  }

  /**
   * Open the folder checked at `real` and make sure the descriptor holds that very folder: its last component
   * is never followed (O_NOFOLLOW), and where the kernel says it is must be `real` (a parent swapped between the
   * check and the open would have led elsewhere). A ValueError with the reason otherwise.
   */
  private async holdFolder(real: string): Promise<Held> {
    let dir: AnchoredDir;
    try {
      dir = await AnchoredDir.openExact(real);
    } catch (err) {
      throw new ValueError(errno(err) === 'ELOOP' ? WATCH_SYMLINK : WATCH_REPLACED);
    }
    const where = await dir.whereNow().catch(() => undefined);
    if (where !== real || this.app.workspaces.protectedPlaces.isPlace(where, dir.id)) {
      await dir.close();
      throw new ValueError(WATCH_REPLACED);
    }
    return { dir, users: 0, retired: false };
  }

  private hasRecord(f: Folder): boolean {
    return this.storedKnown.has(f.configured) || (f.real !== undefined && this.storedKnown.has(f.real));
  }

  private openWatch(f: Folder): void {
    try {
      // The held folder's own descriptor is watched: the events are about it, wherever it is renamed to.
      const w = watch(f.held!.dir.watchPath(), { persistent: false }, (_event, filename) => {
        if (!this.active) return;
        if (filename === null || filename === undefined) {
          void this.scanAll();
          return;
        }
        const name = filename.toString();
        if (name.includes('/') || name.includes('\\') || this.isIgnored(f, name)) return;
        this.touch(f, name);
      });
      // The folder was deleted or unmounted under the watch: the rescan finds it when it is back.
      w.on('error', () => {
        this.closeWatch(f);
        f.status = 'missing';
      });
      f.watcher = w;
    } catch (err) {
      log.warn('inbox: could not watch a folder; it is rescanned instead', err);
    }
    this.storedKnown.set(f.configured, f.known);
  }

  /** A temporary or hidden name: never read; counted (and logged, at debug) the first time it is seen. */
  private isIgnored(f: Folder, name: string): boolean {
    const why = ignoredName(name);
    if (!why) return false;
    if (!f.ignored.has(name) && f.ignored.size < this.opts.maxFilesPerScan) {
      f.ignored.add(name);
      this.counts.ignored++;
      log.debug(`inbox: a ${why} file was passed over`);
    }
    return true;
  }

  /** A file not taken, named in Settings (the latest MAX_NAMED_SKIPS per folder). */
  private noteSkip(f: Folder, name: string, reason: string): void {
    const i = f.skipped.findIndex((x) => x.name === name);
    if (i >= 0) f.skipped.splice(i, 1);
    f.skipped.push({ name, reason });
    if (f.skipped.length > MAX_NAMED_SKIPS) f.skipped.shift();
  }

  private async baseline(f: Folder): Promise<void> {
    await this.withHeld(f, async ({ dir }) => {
      const names = await dir.readdirRaw().catch(() => [] as Buffer[]);
      for (const raw of names.slice(0, this.opts.maxFilesPerScan)) {
        const name = utf8Name(raw);
        if (name === undefined) continue;
        const st = await dir.lstat(name).catch(() => undefined);
        if (st?.isFile()) f.known.set(name, sigOf(st));
      }
    });
    this.storedKnown.set(f.configured, f.known);
  }

  private async scanNames(f: Folder): Promise<void> {
    await this.withHeld(f, async ({ dir }) => {
      let raw: Buffer[];
      try {
        raw = await dir.readdirRaw();
      } catch {
        return;
      }
      const over = Math.max(0, raw.length - this.opts.maxFilesPerScan);
      if (over !== f.over) {
        // Said once per change, not once per scan: a large folder is rescanned every RESCAN_MS.
        if (over > 0) log.warn(`inbox: a watched folder holds ${raw.length} names; only the first ${this.opts.maxFilesPerScan} are looked at`);
        f.over = over;
        this.sumOver();
      }
      if (over > 0) raw = raw.slice(0, this.opts.maxFilesPerScan);
      const names: string[] = [];
      for (const bytes of raw) {
        const name = utf8Name(bytes);
        if (name !== undefined) {
          names.push(name);
          continue;
        }
        // Not UTF-8: no name Satchel can store or show it under. Counted and named once, never read.
        const key = bytes.toString('hex');
        if (f.badNames.has(key) || f.badNames.size >= this.opts.maxFilesPerScan) continue;
        f.badNames.add(key);
        this.counts.bad_name++;
        this.noteSkip(f, bytes.toString('utf8'), SKIP_NOT_UTF8);
        log.warn('inbox: a file whose name is not UTF-8 was skipped');
      }
      const present = new Set(names);
      for (const name of f.known.keys()) if (!present.has(name)) f.known.delete(name);
      f.skipped = f.skipped.filter((x) => x.reason === SKIP_NOT_UTF8 || present.has(x.name));
      for (const name of names) {
        if (this.isIgnored(f, name) || f.candidates.has(name)) continue;
        const st = await dir.lstat(name).catch(() => undefined);
        if (!st || !st.isFile()) continue;
        const sig = sigOf(st);
        if (!sameSignature(f.known.get(name), sig)) this.touch(f, name, sig);
      }
    });
  }

  /** The names passed over now, across the folders. */
  private sumOver(): void {
    this.counts.over_scan_limit = this.folders.reduce((n, f) => n + f.over, 0);
  }

  // --- waiting for files to settle -------------------------------------------------------------------------

  private polling = false;

  private poll(): void {
    if (!this.active || this.polling) return;
    this.polling = true;
    void this.pollOnce()
      .catch((err: unknown) => log.warn('inbox: a look at the waiting files failed', err))
      .finally(() => {
        this.polling = false;
      });
  }

  private async pollOnce(): Promise<void> {
    const settled: { f: Folder; name: string; c: Candidate; sig: Signature }[] = [];
    const now = Date.now();
    for (const f of [...this.folders]) {
      if (!f.real || f.status !== 'watching' || !f.held) continue;
      await this.withHeld(f, async (held) => {
        // Checked every poll, not only at the rescan: a folder swapped for a symlink stops at once.
        if (!(await this.stillThere(f, held))) {
          if (f.held === held) this.lose(f, await fs.lstat(f.real!).catch(() => undefined));
          return;
        }
        await this.settle(f, held.dir, now, settled);
      });
    }
    await this.takeSettled(settled, now);
  }

  /** The folder's candidates that have not changed for settleMs, into `settled`. */
  private async settle(f: Folder, dir: AnchoredDir, now: number, settled: { f: Folder; name: string; c: Candidate; sig: Signature }[]): Promise<void> {
    for (const [name, c] of [...f.candidates]) {
      const st = await dir.lstat(name).catch(() => undefined);
      if (!st) {
        f.candidates.delete(name);
        continue;
      }
      if (!st.isFile()) {
        f.candidates.delete(name);
        // A symlink is never followed: it could point anywhere (~/.ssh); other kinds are not documents.
        if (st.isSymbolicLink()) {
          this.counts.symlink++;
          log.warn('inbox: a symlink in a watched folder was skipped');
        }
        continue;
      }
      const sig = sigOf(st);
      if (!sameSignature(c.sig, sig)) {
        // Changed since it was last looked at: it settles from now.
        if (c.sig) {
          c.changedAt = now;
          c.seq = ++this.seq;
        }
        c.sig = sig;
        continue;
      }
      if (now - c.changedAt < this.opts.settleMs) continue;
      if (sameSignature(f.known.get(name), sig)) {
        f.candidates.delete(name);
        continue;
      }
      settled.push({ f, name, c, sig });
    }
  }

  private async takeSettled(settled: { f: Folder; name: string; c: Candidate; sig: Signature }[], now: number): Promise<void> {
    if (settled.length === 0) return;
    // A writer that paused longer than the settle time still holds its file open: that file waits (up to
    // maxWriterWaitMs), rather than arriving half now and whole later.
    const writers = await this.opts.openWriters(new Set(settled.map(({ f, name }) => path.join(f.real!, name)))).catch(() => null);
    const ready: Ready[] = [];
    for (const { f, name, c, sig } of settled) {
      // Touched by an event, or the folder went away, while the writers were looked for: it settles again.
      if (f.candidates.get(name) !== c || !sameSignature(c.sig, sig) || !f.real) continue;
      if (writers?.has(path.join(f.real, name))) {
        c.heldSince ??= now;
        if (now - c.heldSince < this.opts.maxWriterWaitMs) continue;
        log.info(`inbox: a file open for writing for ${Math.round((now - c.heldSince) / 1000)} s is read anyway`);
      }
      f.candidates.delete(name);
      if (sig.size === 0) {
        // Browsers make the final name empty first and fill it later (Firefox): an empty file is no arrival.
        this.counts.empty++;
        f.known.set(name, sig);
        continue;
      }
      if (sig.size > this.opts.maxFileBytes) {
        this.counts.too_large++;
        f.known.set(name, sig);
        log.warn(`inbox: a file of ${sig.size} bytes is over the upload limit (${this.opts.maxFileBytes}); skipped`);
        continue;
      }
      // Taken as seen from now: a rescan before it is read must not queue it twice (a "changed" read undoes this).
      f.known.set(name, sig);
      ready.push({ folder: f, name, sig, seq: c.seq });
    }
    if (ready.length === 0) return;
    // In the order the files became complete (their last change), across folders.
    ready.sort((a, b) => a.seq - b.seq);
    this.queue.push(...ready);
    this.drain();
  }

  // --- arrivals ------------------------------------------------------------------------------------------------

  private drain(): void {
    if (this.draining || !this.active || this.queue.length === 0) return;
    let running: Promise<void> | undefined;
    const run: Promise<void> = (async () => {
      // Yield first, so `draining` is set before this can end (and clear it).
      await Promise.resolve();
      // One file is read ahead while the one before it is stored: storing (the database, the search index) is
      // the slow half, and the order of storing stays the order of the queue.
      let ahead: Fetching | undefined;
      try {
        while (this.active && (ahead || this.queue.length > 0)) {
          const current = ahead ?? this.fetchNext();
          ahead = undefined;
          if (!current) {
            this.rateTimer = setTimeout(() => {
              this.rateTimer = undefined;
              this.drain();
            }, RATE_RETRY_MS).unref();
            return;
          }
          if (this.queue.length > 0) ahead = this.fetchNext();
          await this.deliver(current.item, await current.fetched).catch((err: unknown) => {
            this.counts.failed++;
            current.item.folder.known.set(current.item.name, current.item.sig);
            log.warn('inbox: a file could not be brought in', err);
          });
        }
      } finally {
        // Paused or stopped with a file read ahead: it goes back to the front of the queue, its copy away.
        if (ahead) {
          const { staged } = await ahead.fetched;
          await fs.rm(staged, { force: true });
          this.queue.unshift(ahead.item);
        }
        if (this.draining === running) this.draining = undefined;
      }
    })();
    this.draining = run;
    running = run;
  }

  /** Start reading the next queued file into staging, or undefined when this minute's arrivals are used up. */
  private fetchNext(): Fetching | undefined {
    if (!this.rate.take(Date.now())) return undefined;
    const item = this.queue.shift()!;
    const staged = path.join(this.app.stagingDir, `inbox-${randomBytes(8).toString('hex')}`);
    const f = item.folder;
    const fetched: Promise<Fetched> = this.withHeld(f, (held) => this.copyIfUnchanged(f, held, item.name, item.sig, staged))
      .then((read) => ({ staged, read: read ?? ('gone' as const) }))
      .catch((error: unknown) => ({ staged, read: 'gone' as const, error }));
    return { item, fetched };
  }

  /** Store one file that was read, in queue order: unless it changed meanwhile or its bytes came before. */
  private async deliver(item: Ready, { staged, read, error }: Fetched): Promise<void> {
    const { folder: f, name } = item;
    try {
      if (error) throw error;
      if (!this.folders.includes(f) || read === 'gone') return;
      if (read === 'changed') {
        // Written to again while it was read: it waits to settle once more.
        f.known.delete(name);
        this.touch(f, name);
        return;
      }
      if ('skip' in read) {
        this.skipped(f, name, read.skip);
        return;
      }
      const key = `${f.profile}:${read.hash}`;
      if (this.hashes.has(key)) {
        this.counts.duplicate++;
        return;
      }
      const session = await inboxSession(this.app, f.profile);
      const source = { source: 'folder' as const, from: path.basename(f.real ?? f.configured) };
      const taken: TakenKey = { profile: f.profile, hash: read.hash };
      try {
        // The file's record, its arrival row and the note that its bytes were taken: one transaction.
        await storeStagedAttachment(this.app, f.profile, session.session_id, { stagedPath: staged, filename: name, size: item.sig.size }, (stored) => ({
          change: arrivalRow(source, stored),
          also: (q) => recordTaken(q, taken, MAX_REMEMBERED_HASHES),
        }));
        this.app.arrivals.announce(f.profile, session.session_id);
      } catch (err) {
        if (err instanceof ValueError || (err instanceof HttpError && err.status < 500)) {
          this.counts.refused++;
          log.warn(`inbox: a file was refused: ${err.message}`);
          return;
        }
        throw err;
      }
      this.remember(key);
      this.counts.arrived++;
      f.skipped = f.skipped.filter((x) => x.name !== name);
    } finally {
      await fs.rm(staged, { force: true });
      this.writeStateSoon();
    }
  }

  /** Count and name a settled file that was not read; it waits until it changes (its signature) to be tried again. */
  private skipped(f: Folder, name: string, why: Skip): void {
    f.candidates.delete(name);
    if (why === 'symlink') {
      this.counts.symlink++;
      log.warn('inbox: a symlink in a watched folder was skipped');
      return;
    }
    this.counts[why]++;
    this.noteSkip(f, name, why === 'unreadable' ? SKIP_UNREADABLE : SKIP_HARD_LINK);
    log.warn(why === 'unreadable' ? 'inbox: a file Satchel may not read was skipped' : 'inbox: a file with more than one link (a hard link) was skipped');
  }

  /**
   * Copy the file into `staged` while hashing it, through a descriptor opened in the held folder without
   * following a symlink (a name swapped for a link after the last stat is refused by the kernel, never read),
   * and only when the folder is still the one watched, the file is the one that settled, it has one link, and
   * it did not change while it was read.
   */
  private async copyIfUnchanged(f: Folder, held: Held, name: string, sig: Signature, staged: string): Promise<Fetched['read']> {
    if (held.retired || !(await this.stillThere(f, held))) return 'gone';
    let src: fs.FileHandle;
    try {
      src = await held.dir.openFile(name, fsc.O_RDONLY | fsc.O_NONBLOCK);
    } catch (err) {
      const code = errno(err);
      if (code === 'ELOOP' || code === 'EMLINK') return { skip: 'symlink' };
      if (code === 'EACCES' || code === 'EPERM') return { skip: 'unreadable' };
      return 'gone';
    }
    try {
      const before = await src.stat();
      if (!before.isFile() || !sameSignature(sigOf(before), sig)) return 'changed';
      // A second name for the file: it may be ~/.ssh/id_rsa linked in from outside (it needs no access to it
      // beyond the same disk). Looked at on the descriptor, so it is the file that would be read.
      if (before.nlink > 1) return { skip: 'hard_link' };
      const hash = createHash('sha256');
      const out = await fs.open(staged, 'wx', 0o600);
      try {
        const buf = Buffer.allocUnsafe(READ_CHUNK_BYTES);
        let total = 0;
        for (;;) {
          const { bytesRead } = await src.read(buf, 0, buf.length, total);
          if (bytesRead === 0) break;
          total += bytesRead;
          if (total > sig.size) return 'changed';
          hash.update(buf.subarray(0, bytesRead));
          await out.write(buf, 0, bytesRead);
        }
        if (total !== sig.size) return 'changed';
      } finally {
        await out.close();
      }
      const after = await src.stat();
      if (!sameSignature(sigOf(after), sig)) return 'changed';
      if (after.nlink > 1) return { skip: 'hard_link' };
      return { hash: hash.digest('hex') };
    } finally {
      await src.close();
    }
  }

  /**
   * The hashes of what was taken, from the database; an older Satchel's, kept in inbox.json, are moved in once
   * (the file is then written without them).
   */
  private async loadTaken(stored: StoredState): Promise<boolean> {
    const old = (stored.hashes ?? []).flatMap((h): TakenKey[] => {
      const at = typeof h === 'string' ? h.lastIndexOf(':') : -1;
      return at > 0 ? [{ profile: h.slice(0, at), hash: h.slice(at + 1) }] : [];
    });
    if (stored.hashes !== undefined) {
      await this.app.sessions.transaction((q) => importTaken(q, old, MAX_REMEMBERED_HASHES));
    }
    for (const { profile, hash } of await this.app.sessions.query(takenKeys)) this.hashes.add(`${profile}:${hash}`);
    return stored.hashes !== undefined;
  }

  private remember(key: string): void {
    this.hashes.add(key);
    if (this.hashes.size > MAX_REMEMBERED_HASHES) this.hashes.delete(this.hashes.values().next().value!);
  }

  // --- what is remembered across restarts ----------------------------------------------------------------

  private async readState(): Promise<StoredState> {
    try {
      const parsed: unknown = JSON.parse(await fs.readFile(this.stateFile, 'utf8'));
      return parsed && typeof parsed === 'object' ? (parsed as StoredState) : {};
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log.warn('inbox: its record could not be read; watched folders start afresh', err);
      return {};
    }
  }

  private snapshot(): StoredState {
    const known: NonNullable<StoredState['known']> = {};
    for (const [dir, names] of this.storedKnown) {
      known[dir] = Object.fromEntries([...names].map(([n, s]) => [n, [s.size, s.mtimeMs, s.ctimeMs, s.ino]]));
    }
    return {
      folders: this.folders.filter((f) => f.source === 'settings').map((f) => ({ path: f.real ?? f.configured, profile: f.profile })),
      paused: this.paused,
      known,
    };
  }

  private writeNow(): void {
    const data = JSON.stringify(this.snapshot());
    this.stateWrite = this.stateWrite.then(() => writeFileAtomic(this.stateFile, data)).catch((err: unknown) => log.warn('inbox: its record could not be saved', err));
  }

  private writeStateSoon(delay = STATE_WRITE_DELAY_MS): void {
    if (this.stateTimer) return;
    this.stateTimer = setTimeout(() => {
      this.stateTimer = undefined;
      this.writeNow();
    }, delay);
    this.stateTimer.unref();
  }

  /** Resolves once the record on disk is up to date (tests, and stop()). */
  async flush(): Promise<void> {
    if (this.stateTimer) {
      clearTimeout(this.stateTimer);
      this.stateTimer = undefined;
      this.writeNow();
    }
    await this.stateWrite;
  }
}
