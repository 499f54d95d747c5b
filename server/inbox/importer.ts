// The Inbox watcher's importer: the files the settler (settler.ts) found ready are read into staging (copy.ts),
// one read ahead while the one before is stored, at most MAX_ARRIVALS_PER_MINUTE a minute, and stored in queue
// order in the profile's Inbox conversation through the same path as an upload (attachments/store-upload.ts:
// limits, names, refusals, `.gz`), with the arrival row and the note that these bytes were taken in the same
// transaction. The same bytes (SHA-256) never arrive twice for a profile.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AttachmentAlongside, Attachment, Session } from '../store/sessions.js';
import { HttpError, ValueError } from '../core/errors.js';
import { log } from '../core/log.js';
import { recordTaken, type TakenKey } from '../store/inbox-taken.js';
import { arrivalRow } from './arrivals.js';
import { copyIfUnchanged, type Copied, type Skip } from './copy.js';
import type { Detector } from './detector.js';
import { noteSkip, withHeld, type Folder } from './folder.js';
import { HARD_LINK_REFUSED, MAX_REMEMBERED_HASHES, RateWindow } from './rules.js';
import type { Ready, Watching } from './watching.js';

/** When the minute's arrivals are used up, look again this often. */
const RATE_RETRY_MS = 1_000;
export const SKIP_UNREADABLE = 'Satchel is not allowed to read it (its permissions)';
export const SKIP_HARD_LINK = HARD_LINK_REFUSED;

/** A staged file, as the upload path takes it (attachments/store-upload.ts `StagedInput`). */
export interface StagedFile {
  stagedPath: string;
  filename: string;
  size: number;
}

/** What the importer needs of the application (wired in app.ts). */
export interface ImportTarget {
  /** Where files are read to before they are stored. */
  stagingDir: string;
  /** The profile's Inbox conversation, made if there is none (inbox/session.ts). */
  inboxSession(profile: string): Promise<Session>;
  /** Store a staged file in a session as an upload is stored, with `alongside` in its transaction. */
  storeStaged(profile: string, sessionId: string, file: StagedFile, alongside: (stored: Attachment) => AttachmentAlongside): Promise<unknown>;
  /** Tell the profile's windows that something arrived (inbox/arrivals.ts). */
  announce(profile: string, sessionId: string): void;
}

/** A file being read into staging ahead of its turn to be stored. */
interface Fetched {
  staged: string;
  read: Copied;
  error?: unknown;
}

interface Fetching {
  item: Ready;
  fetched: Promise<Fetched>;
}

export class Importer {
  private readonly queue: Ready[] = [];
  private readonly rate: RateWindow;
  private rateTimer?: NodeJS.Timeout;
  private draining?: Promise<void>;

  constructor(
    private readonly w: Watching,
    private readonly target: ImportTarget,
    private readonly detector: Pick<Detector, 'changedWhileRead'>,
    /** The record changed (a file taken or passed over): write it soon. */
    private readonly recorded: () => void,
  ) {
    this.rate = new RateWindow(w.opts.maxArrivalsPerMinute);
  }

  /** The storing under way, if any (pause and stop wait for it). */
  get busy(): Promise<void> | undefined {
    return this.draining;
  }

  /** Queue files that settled, in the order given, and start storing them. */
  enqueue(files: Ready[]): void {
    this.queue.push(...files);
    this.drain();
  }

  /** Take a folder's files out of the queue (the folder is removed or lost). */
  dropFolder(f: Folder): void {
    for (let q = this.queue.length - 1; q >= 0; q--) if (this.queue[q]!.folder === f) this.queue.splice(q, 1);
  }

  /** No retry after the minute's arrivals are used up (paused or stopped). */
  halt(): void {
    clearTimeout(this.rateTimer);
    this.rateTimer = undefined;
  }

  drain(): void {
    if (this.draining || !this.w.active() || this.queue.length === 0) return;
    let running: Promise<void> | undefined;
    const run: Promise<void> = (async () => {
      // Yield first, so `draining` is set before this can end (and clear it).
      await Promise.resolve();
      // One file is read ahead while the one before it is stored: storing (the database, the search index) is
      // the slow half, and the order of storing stays the order of the queue.
      let ahead: Fetching | undefined;
      try {
        while (this.w.active() && (ahead || this.queue.length > 0)) {
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
            this.w.counts.failed++;
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
    const staged = path.join(this.target.stagingDir, `inbox-${randomBytes(8).toString('hex')}`);
    const f = item.folder;
    const fetched: Promise<Fetched> = withHeld(f, (held) => copyIfUnchanged(f, held, item.name, item.sig, staged))
      .then((read) => ({ staged, read: read ?? ('gone' as const) }))
      .catch((error: unknown) => ({ staged, read: 'gone' as const, error }));
    return { item, fetched };
  }

  /** Store one file that was read, in queue order: unless it changed meanwhile or its bytes came before. */
  private async deliver(item: Ready, { staged, read, error }: Fetched): Promise<void> {
    const { folder: f, name } = item;
    try {
      if (error) throw error;
      if (!this.w.folders.includes(f) || read === 'gone') return;
      if (read === 'changed') {
        // Written to again while it was read: it waits to settle once more, in its place by its last change.
        f.known.delete(name);
        this.detector.changedWhileRead(f, name);
        return;
      }
      if ('skip' in read) {
        this.skipped(f, name, read.skip);
        return;
      }
      const key = `${f.profile}:${read.hash}`;
      if (this.w.record.taken(key)) {
        this.w.counts.duplicate++;
        return;
      }
      const session = await this.target.inboxSession(f.profile);
      const source = { source: 'folder' as const, from: path.basename(f.real ?? f.configured) };
      const taken: TakenKey = { profile: f.profile, hash: read.hash };
      try {
        // The file's record, its arrival row and the note that its bytes were taken: one transaction.
        await this.target.storeStaged(f.profile, session.session_id, { stagedPath: staged, filename: name, size: item.sig.size }, (stored) => ({
          change: arrivalRow(source, stored),
          also: (q) => recordTaken(q, taken, MAX_REMEMBERED_HASHES),
        }));
        this.target.announce(f.profile, session.session_id);
      } catch (err) {
        if (err instanceof ValueError || (err instanceof HttpError && err.status < 500)) {
          this.w.counts.refused++;
          log.warn(`inbox: a file was refused: ${err.message}`);
          return;
        }
        throw err;
      }
      this.w.record.remember(key);
      this.w.counts.arrived++;
      f.skipped = f.skipped.filter((x) => x.name !== name);
    } finally {
      await fs.rm(staged, { force: true });
      this.recorded();
    }
  }

  /** Count and name a settled file that was not read; it waits until it changes (its signature) to be tried again. */
  private skipped(f: Folder, name: string, why: Skip): void {
    f.candidates.delete(name);
    if (why === 'symlink') {
      this.w.counts.symlink++;
      log.warn('inbox: a symlink in a watched folder was skipped');
      return;
    }
    this.w.counts[why]++;
    noteSkip(f, name, why === 'unreadable' ? SKIP_UNREADABLE : SKIP_HARD_LINK);
    log.warn(why === 'unreadable' ? 'inbox: a file Satchel may not read was skipped' : 'inbox: a file with more than one link (a hard link) was skipped');
  }
}
