// The sessions as stored, the core of the store: every session's listing in memory from the start, a session read
// whole on its first use and kept (session-cache.ts), created or inserted whole, and changed only through the write
// queue (write-queue.ts), one transaction per batch, the kept copy replaced once the transaction has committed.
// The operations a caller asks for (rename, add a message, ...) are SessionStore's (sessions.ts), built on `update`.
import { randomBytes } from 'node:crypto';
import { HttpError, isDiskFull, ValueError } from '../core/errors.js';
import type { BackupInfo, BackupReason } from './db/backup.js';
import { isDatabaseCorrupt, isDatabaseFull, type Db } from './db/connection.js';
import { DATABASE_DAMAGED, missingRowDamage, type DatabaseDamage, type UnreadableSession } from './db/damage.js';
import { insertInBatches, type ImportPhase } from './db/import-rows.js';
import { purgeSessionRows } from './db/purge.js';
import { listingOf, readSession, SessionConflict, writeSession, type SessionListing } from './db/session-rows.js';
import { MAX_KEPT_CHARS, MAX_KEPT_SESSIONS, SessionCache, type KeepLimits } from './session-cache.js';
import { SessionDatabase } from './session-database.js';
import { DISK_FULL_SESSION, isSessionId, SESSION_NOT_FOUND, type Session, type UpdateOptions } from './session-shapes.js';
import { sealRows, sealRowsYielding, applyChanges, WriteQueue, type PendingChange } from './write-queue.js';

/** A failed session write: a full disk is 507 with its own text, anything else goes on as it is. */
function writeFailure(err: unknown): unknown {
  if (isDatabaseCorrupt(err)) return new HttpError(503, DATABASE_DAMAGED);
  return isDiskFull(err) || isDatabaseFull(err) ? new HttpError(507, DISK_FULL_SESSION) : err;
}

export class SessionRecords {
  protected readonly database: SessionDatabase;
  /** Every session's listing (its header and counts), as stored; a deleted one too, until it is removed. */
  protected readonly listings = new Map<string, SessionListing>();
  /** Sessions read whole, as stored: a change shows here only once its transaction has committed. */
  private readonly kept: SessionCache;
  private readonly queue = new WriteQueue((id, batch) => this.writeBatch(id, batch));
  /** Bumped whenever a listing changes: GET /api/sessions keeps its body until then (projections/session-list.ts). */
  private version = 0;
  /** list()'s answer until a listing changes. */
  private sorted: SessionListing[] | undefined;
  /** Sessions being read whole, so two first uses read once. */
  private readonly reading = new Map<string, Promise<Session | undefined>>();

  /** `options.idleCheckpointMs`: how long without a write before the WAL is emptied (db/wal.ts; tests shorten it). */
  constructor(stateDir: string, limits: KeepLimits = { sessions: MAX_KEPT_SESSIONS, chars: MAX_KEPT_CHARS }, options: { idleCheckpointMs?: number } = {}) {
    this.database = new SessionDatabase(stateDir, options.idleCheckpointMs);
    // A session being written or with changes waiting stays (its write reads its base from here), as does one
    // with a turn running (each of its rows is a write).
    this.kept = new SessionCache(limits, (id, session) => this.queue.busy(id) || session.active_stream_id !== undefined);
  }

  /** Set once the database is found damaged (db/damage.ts): nothing is written from then on. */
  get damage(): DatabaseDamage | undefined {
    return this.database.damage;
  }

  /** Conversations whose header could not be read at load: left in the database, not listed (db/damage.ts). */
  get unreadable(): UnreadableSession[] {
    return this.database.unreadable;
  }

  /** Changes whenever any listing does (a session created, changed, deleted or removed). */
  get listVersion(): number {
    return this.version;
  }

  /** The server has been idle a while: keep only the conversations last used (session-cache.ts IDLE_KEPT_*). */
  releaseIdle(): void {
    this.kept.releaseIdle();
  }

  /** Whether the session is kept whole in memory now (tests of eviction; `get` answers either way). */
  isKept(id: string): boolean {
    return this.kept.has(id);
  }

  /** The characters of text of the sessions kept whole now (what MAX_KEPT_CHARS bounds). */
  get keptCharacters(): number {
    return this.kept.chars;
  }

  /** How many sessions are kept whole now. */
  get keptCount(): number {
    return this.kept.count;
  }

  private setListing(listing: SessionListing): void {
    this.listings.set(listing.session_id, listing);
    this.listingsChanged();
  }

  private listingsChanged(): void {
    this.version++;
    this.sorted = undefined;
  }

  /** Whether the search index is being merged after writes (db/index-merge.ts; tests and benches wait for it). */
  get indexMerging(): boolean {
    return this.opened().merging;
  }

  /** The database file. */
  get file(): string {
    return this.database.file;
  }

  /**
   * Open the database (created on first start), bring its schema up to date, move in any JSON session files an
   * older Satchel left (db/import-json.ts), and read every session's listing: no message is read here.
   */
  async load(): Promise<void> {
    for (const listing of await this.database.open()) this.setListing(listing);
  }

  /** Found damaged (db/damage.ts), the first time: every write refused from now on, and said once in the log. */
  damaged(found: DatabaseDamage): void {
    this.database.damaged(found);
  }

  /** Close the database; waits for the writes under way. A damaged one is let go, not closed (session-database.ts). */
  async close(): Promise<void> {
    await this.database.close(() => this.queue.settled());
  }

  /**
   * Put another database in place (a restore, db/backup.ts): writes stop, the connection is closed (let go if
   * damaged), `swap` replaces the files, and the store loads again from them as at start.
   */
  async replaceDatabase(swap: () => Promise<void>): Promise<void> {
    this.database.replacing();
    await this.close();
    await swap();
    this.listings.clear();
    this.kept.clear();
    this.listingsChanged();
    this.database.reset();
    await this.load();
  }

  /** A checked backup of the database in backups/ (db/backup.ts). */
  backup(reason: BackupReason, now?: Date): Promise<BackupInfo> {
    return this.database.backup(reason, now);
  }

  protected opened(): Db {
    return this.database.opened();
  }

  /**
   * The session whole, unless there is none or it is deleted (a deleted session is answered as missing
   * everywhere). Asynchronous: a session's messages are read from the database on its first use (10,000
   * sessions of 20 messages are not all read at start) and then kept, so every later call answers from memory.
   */
  async get(id: unknown): Promise<Session | undefined> {
    if (!isSessionId(id) || this.listings.get(id)?.deleted_at !== undefined) return undefined;
    return this.read(id);
  }

  /** A deleted session's listing while it is not yet purged (for Undo), or undefined. */
  /** Session `id`'s listing, when it is stored and not deleted: a lookup, where list() copies every listing. */
  listing(id: string): SessionListing | undefined {
    const listing = this.listings.get(id);
    return listing?.deleted_at === undefined ? listing : undefined;
  }

  getDeleted(id: unknown): SessionListing | undefined {
    const listing = isSessionId(id) ? this.listings.get(id) : undefined;
    return listing?.deleted_at !== undefined ? listing : undefined;
  }

  /** The session whole, deleted or not. */
  private read(id: string): Promise<Session | undefined> {
    if (!this.listings.has(id)) return Promise.resolve(undefined);
    // The most recently used now.
    const kept = this.kept.use(id);
    if (kept) return Promise.resolve(kept);
    let reading = this.reading.get(id);
    if (!reading) {
      reading = readSession(this.opened(), id)
        .then((session) => {
          // Listed (read from the table) yet not found by its id: an index is damaged (db/damage.ts).
          if (!session && this.listings.has(id)) {
            this.damaged(missingRowDamage(this.file, id));
            throw new HttpError(503, DATABASE_DAMAGED);
          }
          // Removed or read again meanwhile: what is kept wins.
          if (!session || !this.listings.has(id)) return undefined;
          const known = this.kept.peek(id);
          if (known) return known;
          this.kept.hold(sealRows(session));
          return session;
        })
        .catch((err: unknown) => {
          throw writeFailure(err);
        })
        .finally(() => this.reading.delete(id));
      this.reading.set(id, reading);
    }
    return reading;
  }

  /** Every session's listing (header and counts, no messages) but the deleted ones, the last active first. */
  list(): SessionListing[] {
    // Sorted once per change, not per call: 10,000 listings take about 7 ms to sort.
    this.sorted ??= [...this.listings.values()].filter((s) => s.deleted_at === undefined).sort((a, b) => b.updated_at.localeCompare(a.updated_at));
    return this.sorted.slice();
  }

  /** Every deleted session's listing not yet purged (the purge at start finds them here). */
  listDeleted(): SessionListing[] {
    return [...this.listings.values()].filter((s) => s.deleted_at !== undefined);
  }

  /** A session id no session has: for an import, which places its files under the id before the session exists. */
  freshId(): string {
    let id: string;
    do id = randomBytes(6).toString('hex');
    while (this.listings.has(id) || this.unreadable.some((u) => u.session_id === id));
    return id;
  }

  async create(init: { workspace: string; profile: string }): Promise<Session> {
    const id = this.freshId();
    const now = new Date().toISOString();
    const session: Session = {
      session_id: id,
      title: 'Untitled',
      workspace: init.workspace,
      profile: init.profile,
      created_at: now,
      updated_at: now,
      messages: [],
      attachments: [],
    };
    return this.storeNew(session);
  }

  /**
   * Store a whole session made elsewhere (an imported conversation, export/import.ts) under its own id, which
   * must be unused (freshId). Stored first, as create: a session that could not be saved never appears.
   */
  async insert(session: Session): Promise<Session> {
    const [stored] = await this.insertAll([session]);
    return stored!;
  }

  /**
   * Several whole sessions made elsewhere (an "Export all" archive imported): all or none, in bounded transactions
   * that other writes go between, hidden until all are stored, then shown in bounded transactions (db/import-rows.ts). `batched` is told after
   * each (tests).
   */
  async insertAll(sessions: readonly Session[], batched?: (phase: ImportPhase) => void): Promise<Session[]> {
    const ids = new Set<string>();
    for (const s of sessions) {
      if (!isSessionId(s.session_id) || this.listings.has(s.session_id) || ids.has(s.session_id)) throw new ValueError('Session id already in use');
      ids.add(s.session_id);
    }
    // Copied and frozen a slice at a time: an "Export all" at once held the event loop 222 ms.
    const sealed = await sealRowsYielding(sessions.map((s) => ({ ...s, messages: s.messages.slice(), attachments: s.attachments.slice() })));
    await insertInBatches(this.opened(), sealed, batched).catch((err: unknown) => {
      throw writeFailure(err);
    });
    for (const s of sealed) this.keep(s);
    return sealed;
  }

  /** A new session in one transaction, kept once it has committed: one that could not be saved never appears. */
  private async storeNew(session: Session): Promise<Session> {
    await this.opened()
      .transaction((q) => writeSession(q, undefined, session))
      .catch((err: unknown) => {
        throw writeFailure(err);
      });
    this.keep(session);
    return session;
  }

  private keep(session: Session): void {
    this.setListing(listingOf(session));
    this.kept.hold(session);
  }

  /**
   * Apply `change` to the session and store it; the kept session changes only once the transaction has
   * committed, so what the API shows is what is on disk. Writes are grouped: while one is under way, every
   * further change joins a single follow-up transaction, so 32 concurrent uploads cost two commits, not 32.
   * A change that throws is rejected alone; a write that fails rejects every change it carried (507 for a
   * full disk) and leaves the session as it was. A change replaces a message or attachment to change it:
   * stored rows are frozen (write-queue.ts).
   */
  update(id: string, change: (session: Session) => void, opts: UpdateOptions = {}): Promise<Session> {
    const current = this.listings.get(id);
    if (!current || (current.deleted_at !== undefined && !opts.deleted)) return Promise.reject(new ValueError(SESSION_NOT_FOUND));
    return this.queue.add(id, { change, touch: opts.touch ?? true, also: opts.also });
  }

  private async writeBatch(id: string, batch: PendingChange[]): Promise<void> {
    let base: Session | undefined;
    try {
      base = await this.read(id);
    } catch (err) {
      for (const item of batch) item.reject(err);
      return;
    }
    if (!base) {
      for (const item of batch) item.reject(new ValueError(SESSION_NOT_FOUND));
      return;
    }
    const { draft, carried } = applyChanges(base, batch);
    if (carried.length === 0) return;
    if (carried.some((item) => item.touch)) draft.updated_at = new Date().toISOString();
    const stored = sealRows(draft);
    const before = base;
    try {
      await this.opened().transaction(async (q) => {
        await writeSession(q, before, stored);
        for (const item of carried) await item.also?.(q);
      });
    } catch (err) {
      // Another writer on the database changed it (db/session-rows.ts SessionConflict): the kept copy is stale, and
      // the next use reads what is stored.
      if (err instanceof SessionConflict) this.kept.forget(id);
      const failure = writeFailure(err);
      for (const item of carried) item.reject(failure);
      return;
    }
    // Removed while this write was under way: remove() deletes the rows once this loop ends; nothing comes back.
    if (!this.listings.has(id)) {
      for (const item of carried) item.reject(new ValueError(SESSION_NOT_FOUND));
      return;
    }
    this.keep(stored);
    for (const item of carried) item.resolve(stored);
  }

  /**
   * Forget a deleted session for good: it leaves memory at once (no change can start on it any more), then,
   * once a write under way has ended, its rows go in bounded batches, other writes going between them
   * (db/purge.ts), and its record last. Only a session marked deleted can be removed, so a crash before the
   * record goes leaves it marked, and the next start purges the rest (sessions/deletion.ts). `batched` is told
   * after each batch (tests).
   */
  async remove(id: string, batched?: () => void): Promise<void> {
    if (!this.getDeleted(id)) throw new ValueError(SESSION_NOT_FOUND);
    this.listings.delete(id);
    this.listingsChanged();
    this.kept.forget(id);
    await this.queue.cancel(id, () => new ValueError(SESSION_NOT_FOUND));
    await purgeSessionRows(this.opened(), id, undefined, batched);
  }
}
