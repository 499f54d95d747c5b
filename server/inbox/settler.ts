// The Inbox watcher's settler: a candidate (detector.ts) is stat'ed every POLL_MS through the held folder, and once
// its size and times have not changed for SETTLE_MS, and no process holds it open for writing (or has for longer
// than MAX_WRITER_WAIT_MS), it is ready: queued for the importer (importer.ts) in the order files became complete.
// Empty files and files over the upload limit are counted and passed over here, before a byte is read.
import path from 'node:path';
import fs from 'node:fs/promises';
import { log } from '../core/log.js';
import type { AnchoredDir } from '../store/anchored.js';
import type { Detector } from './detector.js';
import { sigOf, stillThere, withHeld, type Candidate, type Folder } from './folder.js';
import { sameSignature, type Signature } from './rules.js';
import type { Ready, Watching } from './watching.js';

/** A candidate that has not changed for the settle time. */
interface Settled {
  f: Folder;
  name: string;
  c: Candidate;
  sig: Signature;
}

export class Settler {
  private polling = false;

  /** `ready` queues the files that settled, in order, for the importer. */
  constructor(
    private readonly w: Watching,
    private readonly detector: Pick<Detector, 'lose'>,
    private readonly ready: (files: Ready[]) => void,
  ) {}

  /** One look at the waiting files, unless one is under way (a slow folder never piles them up). */
  poll(): void {
    if (!this.w.active() || this.polling) return;
    this.polling = true;
    void this.pollOnce()
      .catch((err: unknown) => log.warn('inbox: a look at the waiting files failed', err))
      .finally(() => {
        this.polling = false;
      });
  }

  private async pollOnce(): Promise<void> {
    const settled: Settled[] = [];
    const now = Date.now();
    for (const f of [...this.w.folders]) {
      if (!f.real || f.status !== 'watching' || !f.held) continue;
      await withHeld(f, async (held) => {
        // Checked every poll, not only at the rescan: a folder swapped for a symlink stops at once.
        if (!(await stillThere(f, held))) {
          if (f.held === held) this.detector.lose(f, await fs.lstat(f.real!).catch(() => undefined));
          return;
        }
        await this.settle(f, held.dir, now, settled);
      });
    }
    await this.takeSettled(settled, now);
  }

  /** The folder's candidates that have not changed for settleMs, into `settled`. */
  private async settle(f: Folder, dir: AnchoredDir, now: number, settled: Settled[]): Promise<void> {
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
          this.w.counts.symlink++;
          log.warn('inbox: a symlink in a watched folder was skipped');
        }
        continue;
      }
      const sig = sigOf(st);
      if (!sameSignature(c.sig, sig)) {
        // Changed since it was last looked at: it settles from now.
        if (c.sig) {
          c.changedAt = now;
          c.seq = this.w.nextSeq();
        }
        c.sig = sig;
        continue;
      }
      if (now - c.changedAt < this.w.opts.settleMs) continue;
      if (sameSignature(f.known.get(name), sig)) {
        f.candidates.delete(name);
        continue;
      }
      settled.push({ f, name, c, sig });
    }
  }

  private async takeSettled(settled: Settled[], now: number): Promise<void> {
    if (settled.length === 0) return;
    const opts = this.w.opts;
    // A writer that paused longer than the settle time still holds its file open: that file waits (up to
    // maxWriterWaitMs), rather than arriving half now and whole later.
    const writers = await opts.openWriters(new Set(settled.map(({ f, name }) => path.join(f.real!, name)))).catch(() => null);
    const ready: Ready[] = [];
    for (const { f, name, c, sig } of settled) {
      // Touched by an event, or the folder went away, while the writers were looked for: it settles again.
      if (f.candidates.get(name) !== c || !sameSignature(c.sig, sig) || !f.real) continue;
      if (writers?.has(path.join(f.real, name))) {
        c.heldSince ??= now;
        if (now - c.heldSince < opts.maxWriterWaitMs) continue;
        log.info(`inbox: a file open for writing for ${Math.round((now - c.heldSince) / 1000)} s is read anyway`);
      }
      f.candidates.delete(name);
      if (sig.size === 0) {
        // Browsers make the final name empty first and fill it later (Firefox): an empty file is no arrival.
        this.w.counts.empty++;
        f.known.set(name, sig);
        continue;
      }
      if (sig.size > opts.maxFileBytes) {
        this.w.counts.too_large++;
        f.known.set(name, sig);
        log.warn(`inbox: a file of ${sig.size} bytes is over the upload limit (${opts.maxFileBytes}); skipped`);
        continue;
      }
      // Taken as seen from now: a rescan before it is read must not queue it twice (a "changed" read undoes this).
      f.known.set(name, sig);
      ready.push({ folder: f, name, sig, seq: c.seq });
    }
    if (ready.length === 0) return;
    // In the order the files became complete (their last change), across folders.
    ready.sort((a, b) => a.seq - b.seq);
    this.ready(ready);
  }
}
