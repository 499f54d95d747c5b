// What the Inbox watcher remembers across restarts: the folders the settings added, whether it is paused, and the
// files each folder held when last looked at (names and signatures, a cache that spares reading a file again), in
// `<state>/inbox.json`, written atomically and a little after a change; and the hashes of what was taken, which live
// in the database (store/inbox-taken.ts, written in the transaction that stores the file) and are read here at
// start. Apart from the watcher (watcher.ts) so the file's format and the move of an older Satchel's hashes into
// the database are one module with a test of their own.
import fs from 'node:fs/promises';
import path from 'node:path';
import { log } from '../core/log.js';
import { writeFileAtomic } from '../store/atomic.js';
import { importTaken, takenKeys, type TakenKey } from '../store/inbox-taken.js';
import type { SessionStore } from '../store/sessions.js';
import { MAX_REMEMBERED_HASHES, STATE_WRITE_DELAY_MS, type Signature } from './rules.js';

export const STATE_FILE = 'inbox.json';

/** A folder the settings added, as the record keeps it. */
export interface RecordedFolder {
  path: string;
  profile: string;
}

interface StoredState {
  folders?: RecordedFolder[];
  paused?: boolean;
  /** Before issue 33: the taken hashes (`profile:hash`), moved into the database once (store/inbox-taken.ts). */
  hashes?: string[];
  known?: Record<string, Record<string, [number, number, number, number]>>;
}

/** What the record holds at start. */
export interface Recorded {
  folders: RecordedFolder[];
  paused: boolean;
}

export class InboxRecord {
  /** Folders whose seen files were recorded before (a missing record means: take what is there as seen). */
  readonly known = new Map<string, Map<string, Signature>>();
  /** `profile:hash` of what was taken, the oldest first, at most MAX_REMEMBERED_HASHES. */
  private readonly hashes = new Set<string>();
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();

  /** `current` is what the watcher has now to record besides the seen files. */
  constructor(
    private readonly stateDir: string,
    private readonly sessions: Pick<SessionStore, 'query' | 'transaction'>,
    private readonly current: () => Recorded,
  ) {}

  private get file(): string {
    return path.join(this.stateDir, STATE_FILE);
  }

  /**
   * Read the record and the hashes of what was taken, from the database; an older Satchel's, kept in inbox.json,
   * are moved in once (`moved`: the caller then writes the file without them, `saveNow`).
   */
  async load(): Promise<Recorded & { moved: boolean }> {
    const stored = await this.read();
    const old = (stored.hashes ?? []).flatMap((h): TakenKey[] => {
      const at = typeof h === 'string' ? h.lastIndexOf(':') : -1;
      return at > 0 ? [{ profile: h.slice(0, at), hash: h.slice(at + 1) }] : [];
    });
    if (stored.hashes !== undefined) await this.sessions.transaction((q) => importTaken(q, old, MAX_REMEMBERED_HASHES));
    for (const { profile, hash } of await this.sessions.query(takenKeys)) this.hashes.add(`${profile}:${hash}`);
    for (const [dir, names] of Object.entries(stored.known ?? {})) {
      const map = new Map<string, Signature>();
      for (const [name, s] of Object.entries(names ?? {})) if (Array.isArray(s) && s.length === 4) map.set(name, { size: s[0], mtimeMs: s[1], ctimeMs: s[2], ino: s[3] });
      this.known.set(dir, map);
    }
    return { folders: stored.folders ?? [], paused: stored.paused === true, moved: stored.hashes !== undefined };
  }

  /** Whether these bytes were taken for this profile before. */
  taken(key: string): boolean {
    return this.hashes.has(key);
  }

  /** Remember a taken file's `profile:hash` (the database has it already), the oldest forgotten past the limit. */
  remember(key: string): void {
    this.hashes.add(key);
    if (this.hashes.size > MAX_REMEMBERED_HASHES) this.hashes.delete(this.hashes.values().next().value!);
  }

  /** Write the record after `delay` (changes close together are written once). */
  writeSoon(delay = STATE_WRITE_DELAY_MS): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.writeNow();
    }, delay);
    this.timer.unref();
  }

  /** Write the record now, resolving once it is on disk. */
  async saveNow(): Promise<void> {
    this.writeNow();
    await this.writing;
  }

  /** Resolves once the record on disk is up to date (tests, and the watcher's stop). */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.writeNow();
    }
    await this.writing;
  }

  private async read(): Promise<StoredState> {
    try {
      const parsed: unknown = JSON.parse(await fs.readFile(this.file, 'utf8'));
      return parsed && typeof parsed === 'object' ? (parsed as StoredState) : {};
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log.warn('inbox: its record could not be read; watched folders start afresh', err);
      return {};
    }
  }

  private writeNow(): void {
    const now = this.current();
    const known: NonNullable<StoredState['known']> = {};
    for (const [dir, names] of this.known) {
      known[dir] = Object.fromEntries([...names].map(([n, s]) => [n, [s.size, s.mtimeMs, s.ctimeMs, s.ino]]));
    }
    const data = JSON.stringify({ folders: now.folders, paused: now.paused, known } satisfies StoredState);
    this.writing = this.writing.then(() => writeFileAtomic(this.file, data)).catch((err: unknown) => log.warn('inbox: its record could not be saved', err));
  }
}
