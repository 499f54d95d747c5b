// The Inbox watcher's detector: what makes a name a candidate. fs.watch events on the held folder's descriptor and
// a periodic rescan (rules.ts RESCAN_MS says why) find names that appeared or changed; a folder gone, replaced or
// back is noticed here (and checked by the rules again), names that are temporary, hidden or not UTF-8 are counted
// once and never read, and what a folder held when first watched is taken as seen. The settler (settler.ts) then
// waits for each candidate to stop changing.
import { watch, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import { log } from '../core/log.js';
import { sameFile } from '../store/anchored.js';
import type { Workspaces } from '../store/workspaces.js';
import { closeWatch, holdFolder, noteSkip, sigOf, utf8Name, withHeld, type Folder } from './folder.js';
import { checkWatchFolder, WATCH_REPLACED, WATCH_SYMLINK } from './folders.js';
import { ignoredName, sameSignature, type Signature } from './rules.js';
import type { Watching } from './watching.js';

export const SKIP_NOT_UTF8 = 'its name is not valid UTF-8; rename it to bring it in';

export class Detector {
  private scanning?: Promise<void>;

  /** `dropQueued` takes a folder's files out of the importer's queue (a folder lost). */
  constructor(
    private readonly w: Watching,
    private readonly workspaces: Pick<Workspaces, 'protectedPlaces'>,
    private readonly dropQueued: (f: Folder) => void,
  ) {}

  /** The scan under way, if any (the watcher's stop waits for it). */
  get scan(): Promise<void> | undefined {
    return this.scanning;
  }

  /** Mark `name` as changed just now (an fs.watch event, or a scan that saw it differ). */
  touch(f: Folder, name: string, sig?: Signature): void {
    const c = f.candidates.get(name);
    if (c) {
      c.changedAt = Date.now();
      c.seq = this.w.nextSeq();
      // After an event the file is stat'ed afresh: the change it announced settles from the event's time.
      c.sig = sig;
    } else if (f.candidates.size < this.w.opts.maxFilesPerScan) f.candidates.set(name, { sig, changedAt: Date.now(), seq: this.w.nextSeq() });
    // Beyond that many files waiting at once a name is not tracked from its event; a later rescan finds it.
  }

  /**
   * The importer found `name` changed between settling and being read (a writer paused past the settle time, then
   * went on). Its last write's event has usually made it a candidate again already, with its place in the order of
   * completion: that place stands. Only if no event has come yet is it made a candidate from now.
   */
  changedWhileRead(f: Folder, name: string): void {
    if (!f.candidates.has(name)) this.touch(f, name);
  }

  /**
   * The folder at the watched path is no longer the one held (renamed away, replaced, a symlink put in its
   * place): nothing more is taken from it, and its status says so until a folder is back there (then it is
   * checked by the rules and watched again, as one deleted and made again is).
   */
  lose(f: Folder, now: Stats | undefined): void {
    closeWatch(f);
    f.candidates.clear();
    this.dropQueued(f);
    f.status = now?.isSymbolicLink() ? 'refused' : 'missing';
    // Nothing at the path: deleted (or renamed away), said as a missing folder always was.
    if (!now) return log.info('inbox: a watched folder is gone; it is watched again when it is back');
    log.warn('inbox: a watched folder was moved or replaced while watched; nothing more is taken from it until a folder is back at its path');
    f.error = WATCH_REPLACED;
  }

  scanAll(): Promise<void> {
    if (!this.w.active()) return Promise.resolve();
    // One scan at a time: a slow folder (a network share) must not pile scans up.
    if (this.scanning) return this.scanning;
    const run = (async () => {
      // Yield first: with no folder the loop would end synchronously, before `scanning` is even set.
      await Promise.resolve();
      for (const f of [...this.w.folders]) await this.scanFolder(f);
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
    if (!this.w.active()) return;
    const where = f.real ?? f.configured;
    const st = await fs.lstat(where).catch(() => undefined);
    if (f.held && (!st || !sameFile(st, f.held.dir.id))) this.lose(f, st);
    if (!st || !st.isDirectory()) {
      if (f.status === 'watching') log.info('inbox: a watched folder is gone; it is watched again when it is back');
      if (f.status !== 'refused' || !st) {
        f.status = st?.isSymbolicLink() ? 'refused' : 'missing';
        if (st?.isSymbolicLink() && f.error !== WATCH_REPLACED) f.error = WATCH_SYMLINK;
      }
      closeWatch(f);
      return;
    }
    if (!f.held) {
      // Back, or seen for the first time: the rules again (it may have come back as something else).
      try {
        f.real = await checkWatchFolder(this.workspaces, f.configured);
        const held = await holdFolder(f.real, this.workspaces);
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
      if (!this.w.record.known.has(f.configured) && f.source === 'env' && f.known.size === 0 && !this.hasRecord(f)) {
        // A configured folder seen for the first time: what is in it already is not new.
        await this.baseline(f);
      }
      this.openWatch(f);
      f.status = 'watching';
    }
    await this.scanNames(f);
  }

  private hasRecord(f: Folder): boolean {
    const known = this.w.record.known;
    return known.has(f.configured) || (f.real !== undefined && known.has(f.real));
  }

  openWatch(f: Folder): void {
    try {
      // The held folder's own descriptor is watched: the events are about it, wherever it is renamed to.
      const w = watch(f.held!.dir.watchPath(), { persistent: false }, (_event, filename) => {
        if (!this.w.active()) return;
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
        closeWatch(f);
        f.status = 'missing';
      });
      f.watcher = w;
    } catch (err) {
      log.warn('inbox: could not watch a folder; it is rescanned instead', err);
    }
    this.w.record.known.set(f.configured, f.known);
  }

  /** A temporary or hidden name: never read; counted (and logged, at debug) the first time it is seen. */
  private isIgnored(f: Folder, name: string): boolean {
    const why = ignoredName(name);
    if (!why) return false;
    if (!f.ignored.has(name) && f.ignored.size < this.w.opts.maxFilesPerScan) {
      f.ignored.add(name);
      this.w.counts.ignored++;
      log.debug(`inbox: a ${why} file was passed over`);
    }
    return true;
  }

  /** What the folder holds now is taken as seen: only what appears or changes from now on arrives. */
  async baseline(f: Folder): Promise<void> {
    await withHeld(f, async ({ dir }) => {
      const names = await dir.readdirRaw().catch(() => [] as Buffer[]);
      for (const raw of names.slice(0, this.w.opts.maxFilesPerScan)) {
        const name = utf8Name(raw);
        if (name === undefined) continue;
        const st = await dir.lstat(name).catch(() => undefined);
        if (st?.isFile()) f.known.set(name, sigOf(st));
      }
    });
    this.w.record.known.set(f.configured, f.known);
  }

  /** Every name in the folder now: the ones whose signature differs from the one seen become candidates. */
  async scanNames(f: Folder): Promise<void> {
    await withHeld(f, async ({ dir }) => {
      let raw: Buffer[];
      try {
        raw = await dir.readdirRaw();
      } catch {
        return;
      }
      const max = this.w.opts.maxFilesPerScan;
      const over = Math.max(0, raw.length - max);
      if (over !== f.over) {
        // Said once per change, not once per scan: a large folder is rescanned every RESCAN_MS.
        if (over > 0) log.warn(`inbox: a watched folder holds ${raw.length} names; only the first ${max} are looked at`);
        f.over = over;
        this.sumOver();
      }
      if (over > 0) raw = raw.slice(0, max);
      const names: string[] = [];
      for (const bytes of raw) {
        const name = utf8Name(bytes);
        if (name !== undefined) {
          names.push(name);
          continue;
        }
        // Not UTF-8: no name Satchel can store or show it under. Counted and named once, never read.
        const key = bytes.toString('hex');
        if (f.badNames.has(key) || f.badNames.size >= max) continue;
        f.badNames.add(key);
        this.w.counts.bad_name++;
        noteSkip(f, bytes.toString('utf8'), SKIP_NOT_UTF8);
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
  sumOver(): void {
    this.w.counts.over_scan_limit = this.w.folders.reduce((n, f) => n + f.over, 0);
  }
}
