// The Inbox folder watcher (issue 26): files that appear or change in a watched folder arrive once, in the
// order they became complete, in the profile's Inbox conversation, through the same storing path as an upload
// (attachments/store-upload.ts: limits, names, refusals, `.gz`). It runs in the server process, so the headless
// server watches too.
//
// How a file gets in: fs.watch events (and a periodic rescan, rules.ts RESCAN_MS says why) make a name a
// candidate; the candidate is stat'ed every POLL_MS, and once its size and times have not changed for SETTLE_MS
// it is read, through a descriptor opened without following symlinks, into the staging folder while hashed. A
// file that changed while it was read goes back to waiting. The same bytes (SHA-256) never arrive twice.
// What was seen is kept in `<state>/inbox.json` so a restart neither repeats arrivals nor loses changes made
// while Satchel was closed; files already in a folder when it is added are taken as seen, not imported.
import { createHash, randomBytes } from 'node:crypto';
import { constants as fsc, watch, type FSWatcher } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { App } from '../app.js';
import type { InboxCounts as WireInboxCounts, InboxFolder, InboxFolderStatus } from '../core/wire.js';
import { storeStagedAttachment } from '../attachments/store-upload.js';
import { HttpError, ValueError } from '../core/errors.js';
import { log } from '../core/log.js';
import { writeFileAtomic } from '../store/atomic.js';
import { DEFAULT_PROFILE } from '../store/profiles.js';
import { checkWatchFolder } from './folders.js';
import { filesOpenForWriting } from './open-writers.js';
import {
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
  candidates: Map<string, Candidate>;
  /** The files as last read or passed over: a name whose signature differs is a change. */
  known: Map<string, Signature>;
  /** Temporary and hidden names seen, so each is counted once (a download's hundred writes are one skip). */
  ignored: Set<string>;
}

interface Ready {
  folder: Folder;
  name: string;
  sig: Signature;
  seq: number;
}

/** A file being read into staging ahead of its turn to be stored. */
interface Fetched {
  staged: string;
  read: { hash: string } | 'changed' | 'gone';
  error?: unknown;
}

interface Fetching {
  item: Ready;
  fetched: Promise<Fetched>;
}

interface StoredState {
  folders?: { path: string; profile: string }[];
  paused?: boolean;
  hashes?: string[];
  known?: Record<string, Record<string, [number, number, number, number]>>;
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
  readonly counts: InboxCounts = { arrived: 0, duplicate: 0, ignored: 0, symlink: 0, empty: 0, too_large: 0, refused: 0, failed: 0, over_scan_limit: 0 };

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
    for (const h of stored.hashes ?? []) if (typeof h === 'string') this.hashes.add(h);
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
    if (!this.paused) this.resumeTimers();
    await this.scanAll();
  }

  private newFolder(configured: string, source: Folder['source'], profile: string): Folder {
    const folder: Folder = { configured, source, profile, status: 'missing', candidates: new Map(), known: new Map(), ignored: new Set() };
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
      .map((f) => ({ path: f.real ?? f.configured, source: f.source, status: this.paused && f.status === 'watching' ? 'paused' : f.status, ...(f.error ? { error: f.error } : {}) }));
  }

  /** Watch `dir` for `profile` from now on; what is in it now is taken as seen. 400 when the rules refuse it. */
  async addFolder(dir: unknown, profile: string): Promise<void> {
    const real = await checkWatchFolder(this.app.workspaces, dir);
    if (this.folders.some((f) => (f.real ?? f.configured) === real)) return;
    if (this.folders.length >= MAX_WATCHED_FOLDERS) throw new ValueError(TOO_MANY_FOLDERS);
    const folder = this.newFolder(real, 'settings', profile);
    this.storedKnown.delete(real);
    folder.known = new Map();
    this.folders.push(folder);
    // What is already there was not "new": only what appears or changes from now on arrives.
    await this.baseline(folder);
    await this.scanFolder(folder);
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
    if (!st || !st.isDirectory()) {
      if (f.status === 'watching') log.info('inbox: a watched folder is gone; it is watched again when it is back');
      if (f.status !== 'refused' || !st) {
        f.status = st?.isSymbolicLink() ? 'refused' : 'missing';
        if (st?.isSymbolicLink()) f.error = 'A watched folder cannot be a symlink; pick the folder it points to';
      }
      this.closeWatch(f);
      return;
    }
    if (!f.watcher) {
      // Back, or seen for the first time: the rules again (it may have come back as something else).
      try {
        f.real = await checkWatchFolder(this.app.workspaces, f.configured);
      } catch (err) {
        if (f.status !== 'refused') log.warn(`inbox: a watched folder is refused: ${(err as Error).message}`);
        f.status = 'refused';
        f.error = (err as Error).message;
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

  private hasRecord(f: Folder): boolean {
    return this.storedKnown.has(f.configured) || (f.real !== undefined && this.storedKnown.has(f.real));
  }

  private openWatch(f: Folder): void {
    try {
      const w = watch(f.real!, { persistent: false }, (_event, filename) => {
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

  private async baseline(f: Folder): Promise<void> {
    const where = f.real ?? f.configured;
    const names = await fs.readdir(where).catch(() => [] as string[]);
    for (const name of names.slice(0, this.opts.maxFilesPerScan)) {
      const st = await fs.lstat(path.join(where, name)).catch(() => undefined);
      if (st?.isFile()) f.known.set(name, sigOf(st));
    }
    this.storedKnown.set(f.configured, f.known);
  }

  private async scanNames(f: Folder): Promise<void> {
    const where = f.real!;
    let names: string[];
    try {
      names = await fs.readdir(where);
    } catch {
      return;
    }
    if (names.length > this.opts.maxFilesPerScan) {
      this.counts.over_scan_limit += names.length - this.opts.maxFilesPerScan;
      log.warn(`inbox: a watched folder holds ${names.length} names; only the first ${this.opts.maxFilesPerScan} are looked at`);
      names = names.slice(0, this.opts.maxFilesPerScan);
    }
    const present = new Set(names);
    for (const name of f.known.keys()) if (!present.has(name)) f.known.delete(name);
    for (const name of names) {
      if (this.isIgnored(f, name) || f.candidates.has(name)) continue;
      const st = await fs.lstat(path.join(where, name)).catch(() => undefined);
      if (!st || !st.isFile()) continue;
      const sig = sigOf(st);
      if (!sameSignature(f.known.get(name), sig)) this.touch(f, name, sig);
    }
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
    for (const f of this.folders) {
      if (!f.real || f.status !== 'watching') continue;
      for (const [name, c] of [...f.candidates]) {
        const st = await fs.lstat(path.join(f.real, name)).catch(() => undefined);
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
    const where = item.folder.real;
    const fetched: Promise<Fetched> = where
      ? this.copyIfUnchanged(path.join(where, item.name), item.sig, staged).then(
          (read) => ({ staged, read }),
          (error: unknown) => ({ staged, read: 'gone' as const, error }),
        )
      : Promise.resolve({ staged, read: 'gone' as const });
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
      const key = `${f.profile}:${read.hash}`;
      if (this.hashes.has(key)) {
        this.counts.duplicate++;
        return;
      }
      const session = await inboxSession(this.app, f.profile);
      try {
        const stored = await storeStagedAttachment(this.app, f.profile, session.session_id, { stagedPath: staged, filename: name, size: item.sig.size });
        this.app.arrivals.record(f.profile, session.session_id, { source: 'folder', from: path.basename(f.real ?? f.configured) }, stored);
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
    } finally {
      await fs.rm(staged, { force: true });
      this.writeStateSoon();
    }
  }

  /**
   * Copy the file into `staged` while hashing it, through a descriptor opened without following a symlink
   * (a name swapped for a link after the last stat is refused by the kernel, never read), and only when the
   * file is the one that settled and did not change while it was read.
   */
  private async copyIfUnchanged(file: string, sig: Signature, staged: string): Promise<{ hash: string } | 'changed' | 'gone'> {
    let src: fs.FileHandle;
    try {
      src = await fs.open(file, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || code === 'EMLINK') {
        this.counts.symlink++;
        log.warn('inbox: a symlink in a watched folder was skipped');
      }
      return 'gone';
    }
    try {
      const before = await src.stat();
      if (!before.isFile() || !sameSignature(sigOf(before), sig)) return 'changed';
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
      return { hash: hash.digest('hex') };
    } finally {
      await src.close();
    }
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
      hashes: [...this.hashes],
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
