// The Inbox folder watcher (issue 26): files that appear or change in a watched folder arrive once, in the
// order they became complete, in the profile's Inbox conversation, through the same storing path as an upload
// (attachments/store-upload.ts: limits, names, refusals, `.gz`). It runs in the server process, so the headless
// server watches too.
//
// How a file gets in: fs.watch events (and a periodic rescan, rules.ts RESCAN_MS says why) make a name a
// candidate (detector.ts); the candidate is stat'ed every POLL_MS, and once its size and times have not changed
// for SETTLE_MS it is ready (settler.ts); it is then read, through a descriptor opened without following symlinks,
// into the staging folder while hashed, and stored (importer.ts, copy.ts). A file that changed while it was read
// goes back to waiting. The same bytes (SHA-256) never arrive twice.
//
// Issue 33: every name is looked up and opened relative to a descriptor held on the watched folder
// (store/anchored.ts, folder.ts), never through its path, so a folder renamed away and replaced by a symlink to
// ~/.ssh cannot send a read there; when the folder at the path is no longer the one held (device and inode), nothing
// more is taken from it and its status says so. A file with more than one link is refused (a hard link may be
// to a key anywhere on the disk), as are files Satchel may not read and names that are not UTF-8: each counted
// once and named in Settings. The hashes of what was taken are written in the transaction that records the
// file and its arrival row (store/inbox-taken.ts), so a crash at any moment takes each file exactly once.
// What was seen and the folders are kept in `<state>/inbox.json` (record.ts); files already in a folder when it is
// added are taken as seen, not imported.
//
// This class is the watcher's face (the routes, Settings, the tray): the folders, pause, start and stop, and the
// timers that drive its parts. Everything it needs is given to its constructor (app.ts wires it).
import path from 'node:path';
import type { InboxCounts as WireInboxCounts, InboxFolder, InboxFolderStatus } from '../core/wire.js';
import { HttpError, ValueError } from '../core/errors.js';
import { DEFAULT_PROFILE } from '../store/profiles.js';
import type { SessionStore } from '../store/sessions.js';
import type { Workspaces } from '../store/workspaces.js';
import { Detector } from './detector.js';
import { closeWatch, holdFolder, newFolder, type Folder } from './folder.js';
import { checkWatchFolder } from './folders.js';
import { Importer, type ImportTarget } from './importer.js';
import { InboxRecord } from './record.js';
import { MAX_WATCHED_FOLDERS } from './rules.js';
import { Settler } from './settler.js';
import { defaultInboxOptions, zeroCounts, type InboxOptions, type Watching } from './watching.js';

export { defaultInboxOptions, type InboxOptions } from './watching.js';
export { MAX_NAMED_SKIPS } from './folder.js';
export { SKIP_NOT_UTF8 } from './detector.js';
export { SKIP_HARD_LINK, SKIP_UNREADABLE } from './importer.js';

export const TOO_MANY_FOLDERS = `At most ${MAX_WATCHED_FOLDERS} folders can be watched`;

// The shapes GET /api/inbox/folders sends (wire.d.ts, which the page reads too): one declaration for both sides.
export type FolderStatus = InboxFolderStatus;
/** A watched folder as the settings panel lists it. */
export type FolderView = InboxFolder;
/** What the watcher did, for the settings panel and the tests. */
export type InboxCounts = WireInboxCounts;

/** What the watcher needs of the application (app.ts). */
export interface InboxDependencies extends ImportTarget {
  stateDir: string;
  /** The upload limit (SATCHEL_WEBUI_MAX_UPLOAD_MB): a watched file is an upload by other means. */
  maxUploadBytes: number;
  /** The folder rules (inbox/folders.ts) and the places no folder may be. */
  workspaces: Pick<Workspaces, 'protectedPlaces'>;
  /** The database, for the record of what was taken. */
  sessions: Pick<SessionStore, 'query' | 'transaction'>;
}

export class InboxWatcher {
  private readonly folders: Folder[] = [];
  private readonly opts: InboxOptions;
  private readonly record: InboxRecord;
  private readonly detector: Detector;
  private readonly settler: Settler;
  private readonly importer: Importer;
  private seq = 0;
  private paused = false;
  private stopped = false;
  private started = false;
  private pollTimer?: NodeJS.Timeout;
  private rescanTimer?: NodeJS.Timeout;
  readonly counts: InboxCounts = zeroCounts();

  constructor(
    private readonly deps: InboxDependencies,
    private readonly envFolders: readonly string[] = [],
    overrides: Partial<InboxOptions> = {},
  ) {
    this.opts = { ...defaultInboxOptions(deps.maxUploadBytes), ...overrides };
    this.record = new InboxRecord(deps.stateDir, deps.sessions, () => ({
      folders: this.folders.filter((f) => f.source === 'settings').map((f) => ({ path: f.real ?? f.configured, profile: f.profile })),
      paused: this.paused,
    }));
    const w: Watching = {
      folders: this.folders,
      counts: this.counts,
      opts: this.opts,
      record: this.record,
      active: () => this.active,
      nextSeq: () => ++this.seq,
    };
    this.detector = new Detector(w, deps.workspaces, (f) => this.importer.dropFolder(f));
    this.importer = new Importer(w, deps, this.detector, () => this.record.writeSoon());
    this.settler = new Settler(w, this.detector, (files) => this.importer.enqueue(files));
  }

  /** Begin watching: the record read, the folders configured and added found, then watched. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const stored = await this.record.load();
    this.paused = stored.paused;
    for (const dir of this.envFolders.slice(0, MAX_WATCHED_FOLDERS)) this.folders.push(this.newFolder(path.resolve(dir), 'env', DEFAULT_PROFILE));
    for (const f of stored.folders) {
      if (typeof f?.path !== 'string' || typeof f.profile !== 'string' || this.folders.some((x) => x.configured === f.path)) continue;
      if (this.folders.length < MAX_WATCHED_FOLDERS) this.folders.push(this.newFolder(f.path, 'settings', f.profile));
    }
    // The hashes are in the database now: inbox.json without them (a crash before this only moves them again).
    if (stored.moved) await this.record.saveNow();
    if (!this.paused) this.resumeTimers();
    await this.detector.scanAll();
  }

  private newFolder(configured: string, source: Folder['source'], profile: string): Folder {
    return newFolder(configured, source, profile, this.record.known.get(configured));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.haltTimers();
    for (const f of this.folders) closeWatch(f);
    await this.detector.scan;
    await this.importer.busy;
    await this.record.flush();
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
    const real = await checkWatchFolder(this.deps.workspaces, dir);
    if (this.folders.some((f) => (f.real ?? f.configured) === real)) return;
    if (this.folders.length >= MAX_WATCHED_FOLDERS) throw new ValueError(TOO_MANY_FOLDERS);
    const folder = this.newFolder(real, 'settings', profile);
    this.record.known.delete(real);
    folder.known = new Map();
    folder.real = real;
    folder.held = await holdFolder(real, this.deps.workspaces);
    // What is already there was not "new": only what appears or changes from now on arrives.
    await this.detector.baseline(folder);
    this.folders.push(folder);
    if (this.active) {
      this.detector.openWatch(folder);
      folder.status = 'watching';
      await this.detector.scanNames(folder);
    } else closeWatch(folder);
    this.record.writeSoon(0);
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
    closeWatch(folder!);
    this.record.known.delete(folder!.configured);
    this.importer.dropFolder(folder!);
    this.detector.sumOver();
    this.record.writeSoon(0);
  }

  /** Pause: nothing is read or watched. Resume: what appeared or changed meanwhile arrives. */
  async setPaused(paused: boolean): Promise<void> {
    if (paused === this.paused) return;
    this.paused = paused;
    if (paused) {
      this.haltTimers();
      for (const f of this.folders) closeWatch(f);
      await this.importer.busy;
    } else {
      this.resumeTimers();
      await this.detector.scanAll();
      this.importer.drain();
    }
    this.record.writeSoon(0);
  }

  /** Resolves once the record on disk is up to date (tests, and stop()). */
  flush(): Promise<void> {
    return this.record.flush();
  }

  private resumeTimers(): void {
    if (this.stopped) return;
    this.pollTimer ??= setInterval(() => this.settler.poll(), this.opts.pollMs).unref();
    this.rescanTimer ??= setInterval(() => void this.detector.scanAll(), this.opts.rescanMs).unref();
  }

  private haltTimers(): void {
    clearInterval(this.pollTimer);
    clearInterval(this.rescanTimer);
    this.importer.halt();
    this.pollTimer = this.rescanTimer = undefined;
  }

  private get active(): boolean {
    return !this.stopped && !this.paused;
  }
}
