// Sessions in the state folder's database (db/), one transaction per change, serialized per session so two
// concurrent updates cannot lose each other's changes. Every session's listing is in memory from the start;
// a session's messages are read on its first use and kept (see `get`).
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { HttpError, isDiskFull, ValueError } from '../core/errors.js';
import type * as wire from '../core/wire.js';
import { log } from '../core/log.js';
import { listBackups, makeBackup, type BackupInfo, type BackupReason } from './db/backup.js';
import { Db, isDatabaseCorrupt, isDatabaseFull, type Queries } from './db/connection.js';
import { corruptDamage, DATABASE_DAMAGED, damageSentence, missingRowDamage, type DatabaseDamage, type UnreadableSession } from './db/damage.js';
import { DATABASE_REPLACING, openSessionDatabase } from './db/open.js';
import {
  deleteSession,
  headerOf,
  listingOf,
  pendingAttachmentTexts,
  readSession,
  SessionConflict,
  writeSession,
  type PendingAttachmentText,
  type SessionListing,
} from './db/session-rows.js';
import type { Message } from './messages.js';
import { indexAttachmentText, searchSessions, type SearchHits } from './search.js';
import { indexedAttachmentNames, type SearchScope } from './db/search.js';
import { appendStreamedText, readStreamedText, removeStreamedText, type StreamedText } from './streamed-text.js';
import { SearchReader } from './db/search-reader.js';
import { guardLockedFile } from './never-open.js';
import { listReceipts, recordReceipt, type ReceiptInput, type StoredReceipt } from './receipts.js';
import { refuseFullConversation, refuseOverCap } from './caps.js';
import { isUserRowAt, NO_SUCH_MESSAGE, refuseWhileTurnRuns, withNewVersion, type Fork } from './versions.js';
import { appendWritten } from './queued.js';

export type { Message } from './messages.js';

export const MAX_TITLE_CHARS = 200;
export const MAX_MESSAGE_CHARS = 100_000;
// The caps of a conversation live in caps.ts, the one rule the store and the handlers both ask.
export { MAX_ATTACHMENTS_PER_SESSION, MAX_MESSAGES_PER_SESSION } from './caps.js';
/** A model name: the longest ids listed by OpenRouter and Hugging Face-served models are under 100 characters. */
export const MAX_MODEL_CHARS = 200;
/**
 * A conversation's system prompt. Long personas and house rules run to a few thousand characters; 20,000 holds
 * those several times over while taking a tenth of the default per-turn context budget (200,000
 * characters, settings/table.ts), which the prompt is drawn from first (agent/input.ts).
 */
export const MAX_SYSTEM_PROMPT_CHARS = 20_000;
export const SYSTEM_PROMPT_TOO_LONG = `System prompt too long (max ${MAX_SYSTEM_PROMPT_CHARS} characters)`;
const SESSION_ID = /^[0-9a-f]{12}$/;
/**
 * Whole sessions kept in memory at most, the least recently used let go first (a later `get` reads it again).
 * Reading a conversation of 20 messages again costs about a millisecond; keeping every one ever opened grew the
 * server by the size of the person's whole history. 200 covers every conversation a person moves between in a day.
 */
export const MAX_KEPT_SESSIONS = 200;
/**
 * And at most this many characters of message text kept (`keptChars`; about 2 bytes each in memory, more for the
 * objects around them). The 10,000-message conversation of the benchmark holds 16 million: it must fit, or every
 * message typed in it would read it all again (about 300 ms).
 */
export const MAX_KEPT_CHARS = 32 * 2 ** 20;

/** Bounds of the sessions kept whole (tests make them small). */
export interface KeepLimits {
  sessions: number;
  chars: number;
}

/** The characters of text in `rows`: what MAX_KEPT_CHARS counts. */
function rowChars(rows: readonly Message[]): number {
  let chars = 0;
  for (const m of rows) {
    chars += typeof m.content === 'string' ? m.content.length : 0;
    if (typeof m.reasoning === 'string') chars += m.reasoning.length;
  }
  return chars;
}

/** The characters of text a session holds (every row: done when a session is read from the database). */
export function keptChars(session: Session): number {
  return rowChars(session.messages);
}

/**
 * `after`'s characters from `before`'s, walking only the rows after the last one both share at the same place.
 * Every change replaces a tail of the rows (an append, a turn, a new version), never one in the middle, so this
 * is exact for them and costs the tail, not the conversation (a walk of 10,000 rows took 0.2 ms per write).
 */
function changedChars(before: { session: Session; chars: number }, after: Session): number {
  const old = before.session.messages;
  const now = after.messages;
  let common = Math.min(old.length, now.length);
  while (common > 0 && old[common - 1] !== now[common - 1]) common--;
  return before.chars - rowChars(old.slice(common)) + rowChars(now.slice(common));
}

/** The database file in the state folder: sessions, their messages and attachments, and the search index. */
export const SESSION_DB_FILE = 'satchel.db';

export { MAX_SESSION_FILE_BYTES, oversizedSessionWarning } from './db/import-json.js';
export type { SessionListing } from './db/session-rows.js';

/** Section 2: internal message fields, never part of a public projection (projections/sessions.ts `publicMessage`). */
export const INTERNAL_MESSAGE_FIELDS = [
  'api_content',
  '_row_id',
  '_state_db_row_id',
  '_db_row_id',
  'state_db_row_id',
  '_active_turn_token',
  '_active_turn_user',
  '_fork_child_turn',
  '_webui_trusted_agent_input_text',
  '_webui_unmatched_native_image_mirror',
  // Satchel's: the other versions of the conversation from this row on (versions.ts); the wire has `versions`.
  '_versions',
  // The Hermes mark of an answered turn (agent/hermes-continuity.ts).
  '_hermes_turn',
] as const;

/**
 * Internal session fields, never part of a public projection: a turn's fork until its rows are stored
 * (versions.ts); Hermes' session id and its counter (agent/hermes-continuity.ts); when the person deleted it
 * (sessions/deletion.ts), which a deleted session is never shown with anyway.
 */
export const INTERNAL_SESSION_FIELDS = ['_pending_versions', '_hermes', 'deleted_at'] as const;

export type Attachment = wire.Attachment;

/** A stored session: the wire shape, with stored messages. */
export interface Session extends Omit<wire.Session, 'messages' | 'queued_messages'> {
  messages: Message[];
  /** Rows written while a turn runs, stored after its rows when it ends (queued.ts). */
  queued_messages?: Message[];
  /** While a turn that makes a new version runs: the versions its first stored row will carry (versions.ts). */
  _pending_versions?: Fork;
  /** Deleted by the person at this time (ISO): hidden from every list and read until it is purged or restored. */
  deleted_at?: string;
}

export const SESSION_NOT_FOUND = 'Session not found';

/** What is stored with an attachment's record, in its transaction (SessionStore.addAttachment). */
export interface AttachmentAlongside {
  /** A further change to the session (the arrival row). */
  change?: (session: Session) => void;
  /** Further statements (the Inbox's record of the file's hash). */
  also?: (q: Queries) => Promise<void>;
}

/** What a store update may be: most changes are activity and move the session's `updated_at`; a flag is not. */
interface UpdateOptions {
  /** Set `updated_at` to now (default true). Pinning, archiving, deleting or restoring a session is no activity. */
  touch?: boolean;
  /** Apply the change to a deleted session too (only deletion's own steps do). */
  deleted?: boolean;
  /**
   * More statements for the transaction that stores this change (the Inbox's record of what it took): both
   * are committed or neither. Run only when the change itself was applied.
   */
  also?: (q: Queries) => Promise<void>;
}

export function isSessionId(id: unknown): id is string {
  return typeof id === 'string' && SESSION_ID.test(id);
}

/** A row's text: every row has one shape once loaded (messages.ts), so this is its `content`. */
export function messageText(message: wire.Message): string {
  return message.content;
}

export function sessionSummary(s: Session): wire.SessionSummary {
  return {
    session_id: s.session_id,
    title: s.title,
    workspace: s.workspace,
    profile: s.profile,
    created_at: s.created_at,
    updated_at: s.updated_at,
    message_count: s.messages.length,
    ...(s.pinned ? { pinned: true } : {}),
    ...(s.archived ? { archived: true } : {}),
  };
}

/** A change waiting for the next write of its session, with the caller's promise. */
interface PendingChange {
  change: (session: Session) => void;
  resolve: (session: Session) => void;
  reject: (err: unknown) => void;
  touch: boolean;
  also?: (q: Queries) => Promise<void>;
}

export const DISK_FULL_SESSION = 'Not enough disk space to save the session';

/** A failed session write: a full disk is 507 with its own text, anything else goes on as it is. */
function writeFailure(err: unknown): unknown {
  if (isDatabaseCorrupt(err)) return new HttpError(503, DATABASE_DAMAGED);
  return isDiskFull(err) || isDatabaseFull(err) ? new HttpError(507, DISK_FULL_SESSION) : err;
}

/** Freeze a stored row and everything in it: the store compares rows by identity (db/session-rows.ts). */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * `session` as the store keeps it: each message and attachment a frozen object no one else holds. Rows already
 * frozen are stored ones and are kept as they are; a new one (made by a change) is copied first, so its maker
 * may go on changing its own object without reaching into the store.
 */
function sealRows(session: Session): Session {
  const seal = <T>(row: T): T => (Object.isFrozen(row) ? row : deepFreeze(structuredClone(row)));
  session.messages = session.messages.map(seal);
  session.attachments = session.attachments.map(seal);
  return session;
}

/**
 * A draft of `base` for a change: its header a deep copy, its message and attachment lists new arrays of the
 * same (frozen) rows. A copy of every row cost 15-50 ms at 10,000 messages; this costs a pointer per row. A
 * change replaces a row to change it (assigning into a frozen row throws, and the change is rejected alone).
 */
function draftOf(base: Session): Session {
  return { ...structuredClone(headerOf(base)), messages: base.messages.slice(), attachments: base.attachments.slice() };
}

/**
 * The batch applied to a copy of `base`. One copy per batch, not per change: a copy is as large as the session,
 * and 32 uploads into a session of 1,000 attachments copied it 32 times. A change that throws halfway may leave
 * part of itself in a shared copy, so then the batch is applied again with a copy per change, and the change
 * that throws (it does so again, on the same session) is rejected alone.
 */
function applyChanges(base: Session, batch: PendingChange[]): { draft: Session; carried: PendingChange[] } {
  const shared = draftOf(base);
  try {
    for (const item of batch) item.change(shared);
    return { draft: shared, carried: batch };
  } catch {
    // Below, change by change.
  }
  let draft = base;
  const carried: PendingChange[] = [];
  for (const item of batch) {
    const next = draftOf(draft);
    try {
      item.change(next);
    } catch (err) {
      item.reject(err);
      continue;
    }
    draft = next;
    carried.push(item);
  }
  return { draft, carried };
}

/** Connections to a damaged database, let go but never closed (SessionStore.close). */
const LET_GO: Db[] = [];

export class SessionStore {
  private db: Db | undefined;
  /** Searches' own read-only connection (db/search-reader.ts): a search never holds a write. */
  private reader: SearchReader | undefined;
  /** Every session's listing (its header and counts), as stored; a deleted one too, until it is removed. */
  private readonly listings = new Map<string, SessionListing>();
  /**
   * Sessions read whole, as stored, the least recently used first (Map order): a change shows here only once its
   * transaction has committed. At most `limits` of them (evict()); each with its `keptChars`.
   */
  private readonly sessions = new Map<string, { session: Session; chars: number }>();
  private keptTotal = 0;
  private readonly limits: KeepLimits;
  /** Bumped whenever a listing changes: GET /api/sessions keeps its body until then (projections/session-list.ts). */
  private version = 0;
  /** list()'s answer until a listing changes. */
  private sorted: SessionListing[] | undefined;
  /** Sessions being read whole, so two first uses read once. */
  private readonly reading = new Map<string, Promise<Session | undefined>>();
  /** Changes that arrived while a write of their session was under way; the next write takes them all. */
  private readonly pending = new Map<string, PendingChange[]>();
  private readonly writing = new Set<string>();
  /** The write loop of a session while one runs: remove() waits for it before the rows go, close() for all. */
  private readonly draining = new Map<string, Promise<void>>();
  private readonly stateDir: string;
  /** Set once the database is found damaged (db/damage.ts): nothing is written from then on. */
  damage: DatabaseDamage | undefined;
  /** Conversations whose header could not be read at load: left in the database, not listed (db/damage.ts). */
  unreadable: UnreadableSession[] = [];
  /** Ends the database file's guard (store/never-open.ts) once the connection is closed. */
  private unguard: (() => void) | undefined;

  constructor(stateDir: string, limits: KeepLimits = { sessions: MAX_KEPT_SESSIONS, chars: MAX_KEPT_CHARS }) {
    this.stateDir = stateDir;
    this.limits = limits;
  }

  /** Changes whenever any listing does (a session created, changed, deleted or removed). */
  get listVersion(): number {
    return this.version;
  }

  /** Whether the session is kept whole in memory now (tests of eviction; `get` answers either way). */
  isKept(id: string): boolean {
    return this.sessions.has(id);
  }

  /** The characters of text of the sessions kept whole now (what MAX_KEPT_CHARS bounds). */
  get keptCharacters(): number {
    return this.keptTotal;
  }

  /** How many sessions are kept whole now. */
  get keptCount(): number {
    return this.sessions.size;
  }

  private setListing(listing: SessionListing): void {
    this.listings.set(listing.session_id, listing);
    this.version++;
    this.sorted = undefined;
  }

  private dropListing(id: string): void {
    this.listings.delete(id);
    this.version++;
    this.sorted = undefined;
  }

  /** Keep `session` as the most recently used, then let go of the least recently used beyond the limits. */
  private hold(session: Session): void {
    const id = session.session_id;
    const previous = this.sessions.get(id);
    const chars = previous ? changedChars(previous, session) : keptChars(session);
    this.forget(id);
    this.sessions.set(id, { session, chars });
    this.keptTotal += chars;
    this.evict();
  }

  private forget(id: string): void {
    const kept = this.sessions.get(id);
    if (!kept) return;
    this.sessions.delete(id);
    this.keptTotal -= kept.chars;
  }

  /**
   * Let go of the least recently used sessions until the limits hold. Never the most recent (the one just read
   * or written), one being written or with changes waiting (its write reads its base from here), nor one with a
   * turn running (each of its rows is a write). A request that got a session before it was let go keeps its own
   * reference: only the store's goes, and a later `get` reads the session again from the database.
   */
  private evict(): void {
    if (this.sessions.size <= this.limits.sessions && this.keptTotal <= this.limits.chars) return;
    let room = this.sessions.size - 1;
    for (const [id, { session }] of this.sessions) {
      if (room-- <= 0 || (this.sessions.size <= this.limits.sessions && this.keptTotal <= this.limits.chars)) break;
      if (this.writing.has(id) || this.pending.has(id) || session.active_stream_id !== undefined) continue;
      this.forget(id);
    }
  }

  /** The database file. */
  get file(): string {
    return path.join(this.stateDir, SESSION_DB_FILE);
  }

  /**
   * Open the database (created on first start), bring its schema up to date, move in any JSON session files an
   * older Satchel left (db/import-json.ts), and read every session's listing: no message is read here.
   */
  async load(): Promise<void> {
    // A damaged database (db/damage.ts) still loads: what can be read is listed, nothing is written.
    const opened = await openSessionDatabase(this.stateDir, this.file, (err) => this.damaged(corruptDamage(this.file, err)));
    for (const listing of opened.listings) this.setListing(listing);
    this.unreadable = opened.unreadable;
    this.db = opened.db;
    if (opened.damage) this.damaged(opened.damage);
    // SQLite's locks on the file go with any close of it in this process: nothing else here may open it.
    this.unguard = await fsp.stat(this.file).then(guardLockedFile, () => undefined);
    // Searches read on a connection of their own (db/search-reader.ts); a damaged file may refuse one, and then
    // a search answers as every other read of a damaged database does.
    this.reader = await SearchReader.open(this.file).catch((err: unknown) => {
      if (this.damage) return undefined;
      throw err;
    });
  }

  /** Found damaged (db/damage.ts), the first time: every write refused from now on, and said once in the log. */
  damaged(found: DatabaseDamage): void {
    if (this.damage) return;
    this.damage = found;
    this.db?.refuseWrites(new HttpError(503, DATABASE_DAMAGED));
    void listBackups(this.stateDir)
      .catch(() => [])
      .then((backups) => log.error(damageSentence(found, backups[0]?.created_at)));
  }

  /** Close the database; waits for the writes under way. A damaged one is let go, not closed (below). */
  async close(): Promise<void> {
    const db = this.db;
    if (!db) return;
    // A search under way is stopped at once: stopping never waits on one.
    const reader = this.reader;
    this.reader = undefined;
    await reader?.close();
    // Writes under way finish first (a stopping turn stores its rows); none can start after.
    while (this.draining.size > 0) await Promise.allSettled([...this.draining.values()]);
    this.db = undefined;
    // Closing checkpoints the WAL into the file: a damaged file and its WAL are left exactly as they were found.
    // A connection let go stays referenced for the life of the process: node-sqlite3 closes a collected one, and
    // that close would checkpoint into the damaged file and remove `-wal`/`-shm` by name, which after a restore
    // are the restored database's.
    // (A let-go connection keeps its locks, so its file stays guarded.)
    if (this.damage) LET_GO.push(db);
    else {
      await db.close();
      this.unguard?.();
    }
    this.unguard = undefined;
  }

  /**
   * Put another database in place (a restore, db/backup.ts): writes stop, the connection is closed (let go if
   * damaged), `swap` replaces the files, and the store loads again from them as at start.
   */
  async replaceDatabase(swap: () => Promise<void>): Promise<void> {
    this.db?.refuseWrites(new HttpError(503, DATABASE_REPLACING));
    await this.close();
    await swap();
    this.listings.clear();
    this.sessions.clear();
    this.keptTotal = 0;
    this.version++;
    this.sorted = undefined;
    this.damage = undefined;
    await this.load();
  }

  /** A checked backup of the database in backups/ (db/backup.ts). */
  backup(reason: BackupReason, now?: Date): Promise<BackupInfo> {
    return makeBackup(this.opened(), this.stateDir, reason, now);
  }

  private opened(): Db {
    if (!this.db) throw this.damage ? new HttpError(503, DATABASE_DAMAGED) : new Error('the session store is not open');
    return this.db;
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
  getDeleted(id: unknown): SessionListing | undefined {
    const listing = isSessionId(id) ? this.listings.get(id) : undefined;
    return listing?.deleted_at !== undefined ? listing : undefined;
  }

  /** The session whole, deleted or not. */
  private read(id: string): Promise<Session | undefined> {
    if (!this.listings.has(id)) return Promise.resolve(undefined);
    const kept = this.sessions.get(id);
    if (kept) {
      // The most recently used now (Map order).
      this.sessions.delete(id);
      this.sessions.set(id, kept);
      return Promise.resolve(kept.session);
    }
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
          const known = this.sessions.get(id);
          if (known) return known.session;
          this.hold(sealRows(session));
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

  /** Several whole sessions made elsewhere (an "Export all" archive imported), in one transaction: all or none. */
  async insertAll(sessions: readonly Session[]): Promise<Session[]> {
    const ids = new Set<string>();
    for (const s of sessions) {
      if (!isSessionId(s.session_id) || this.listings.has(s.session_id) || ids.has(s.session_id)) throw new ValueError('Session id already in use');
      ids.add(s.session_id);
    }
    const sealed = sessions.map((s) => sealRows({ ...s, messages: s.messages.slice(), attachments: s.attachments.slice() }));
    await this.opened()
      .transaction(async (q) => {
        for (const s of sealed) await writeSession(q, undefined, s);
      })
      .catch((err: unknown) => {
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
    this.hold(session);
  }

  /**
   * Apply `change` to the session and store it; the kept session changes only once the transaction has
   * committed, so what the API shows is what is on disk. Writes are grouped: while one is under way, every
   * further change joins a single follow-up transaction, so 32 concurrent uploads cost two commits, not 32.
   * A change that throws is rejected alone; a write that fails rejects every change it carried (507 for a
   * full disk) and leaves the session as it was. A change replaces a message or attachment to change it:
   * stored rows are frozen (draftOf).
   */
  update(id: string, change: (session: Session) => void, opts: UpdateOptions = {}): Promise<Session> {
    const current = this.listings.get(id);
    if (!current || (current.deleted_at !== undefined && !opts.deleted)) return Promise.reject(new ValueError(SESSION_NOT_FOUND));
    return new Promise<Session>((resolve, reject) => {
      const queue = this.pending.get(id) ?? [];
      queue.push({ change, resolve, reject, touch: opts.touch ?? true, also: opts.also });
      this.pending.set(id, queue);
      if (!this.writing.has(id)) void this.drain(id);
    });
  }

  private drain(id: string): Promise<void> {
    this.writing.add(id);
    const run = (async () => {
      try {
        for (let batch = this.take(id); batch.length > 0; batch = this.take(id)) await this.writeBatch(id, batch);
      } finally {
        this.writing.delete(id);
        this.draining.delete(id);
      }
    })();
    // Set after the loop's first step, but before its end: an await always comes between them.
    this.draining.set(id, run);
    return run;
  }

  private take(id: string): PendingChange[] {
    const batch = this.pending.get(id) ?? [];
    this.pending.delete(id);
    return batch;
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
      if (err instanceof SessionConflict) this.forget(id);
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

  async rename(id: string, title: string): Promise<Session> {
    const clean = title.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, MAX_TITLE_CHARS);
    if (!clean) throw new ValueError('Title must not be empty');
    return this.update(id, (s) => {
      s.title = clean;
    });
  }

  /** Pin or archive a session, or take that back: flags, not activity, so its place by last activity stays. */
  setFlags(id: string, flags: { pinned?: boolean; archived?: boolean }): Promise<Session> {
    return this.update(
      id,
      (s) => {
        for (const key of ['pinned', 'archived'] as const) {
          if (flags[key] === true) s[key] = true;
          else if (flags[key] === false) delete s[key];
        }
      },
      { touch: false },
    );
  }

  /**
   * Mark a session deleted: from now on it is answered as missing everywhere, until restore() or remove().
   * Refused while a turn runs (SessionBusy, 409): that turn would go on storing rows into a hidden session.
   */
  markDeleted(id: string, at: Date = new Date()): Promise<Session> {
    return this.update(
      id,
      (s) => {
        refuseWhileTurnRuns(s);
        s.deleted_at = at.toISOString();
      },
      { touch: false },
    );
  }

  /** Take a deletion back (Undo): the session is shown again as it was. Not found unless it is deleted. */
  restore(id: string): Promise<Session> {
    if (!this.getDeleted(id)) return Promise.reject(new ValueError(SESSION_NOT_FOUND));
    return this.update(
      id,
      (s) => {
        delete s.deleted_at;
      },
      { touch: false, deleted: true },
    );
  }

  /**
   * Forget a deleted session for good: it leaves memory at once (no change can start on it any more), then,
   * once a write under way has ended, its rows go in one transaction (messages, attachments and index entries
   * by cascade). Only a session marked deleted can be removed, so the record is the last thing a purge takes
   * (sessions/deletion.ts): a crash before it leaves it marked.
   */
  async remove(id: string): Promise<void> {
    if (!this.getDeleted(id)) throw new ValueError(SESSION_NOT_FOUND);
    this.dropListing(id);
    this.forget(id);
    this.pending.get(id)?.forEach((item) => item.reject(new ValueError(SESSION_NOT_FOUND)));
    this.pending.delete(id);
    await this.draining.get(id);
    await this.opened().transaction((q) => deleteSession(q, id));
  }

  /**
   * The conversation's own model and system prompt (POST /api/session/settings). A field left undefined is kept;
   * null or blank removes it, so the agent settings' model (or no system prompt) applies again.
   */
  async setConversation(
    id: string,
    change: { model?: string | null; system_prompt?: string | null; connection?: string | null; keep_out_of_mcp?: boolean },
  ): Promise<Session> {
    const model = change.model?.replace(/[\u0000-\u001f\u007f]/g, '').trim();
    if (model !== undefined && model.length > MAX_MODEL_CHARS) throw new ValueError(`Model name too long (max ${MAX_MODEL_CHARS} characters)`);
    const prompt = change.system_prompt;
    if (prompt && prompt.length > MAX_SYSTEM_PROMPT_CHARS) throw new ValueError(SYSTEM_PROMPT_TOO_LONG);
    return this.update(id, (s) => {
      if (change.model !== undefined) {
        if (model) s.model = model;
        else delete s.model;
      }
      if (prompt !== undefined) {
        if (prompt?.trim()) s.system_prompt = prompt;
        else delete s.system_prompt;
      }
      if (change.connection !== undefined && (change.connection || undefined) !== s.connection) {
        // The model picked belongs to the connection left: the new one's own model applies unless one is given.
        if (change.model === undefined) delete s.model;
        if (change.connection) s.connection = change.connection;
        else delete s.connection;
      }
      // Stored only when on, so a conversation never switched has no field (and exports as before).
      if (change.keep_out_of_mcp === true) s.keep_out_of_mcp = true;
      else if (change.keep_out_of_mcp === false) delete s.keep_out_of_mcp;
    });
  }

  /** Record an MCP client's read of the session (store/receipts.ts), coalesced and bounded there. */
  recordReceipt(id: string, read: ReceiptInput, now?: number): Promise<StoredReceipt> {
    return this.opened().transaction((q) => recordReceipt(q, id, read, now));
  }

  /** Keep one batch of a streaming reply's shown text (store/streamed-text.ts). */
  async appendStreamedText(id: string, streamId: string, batch: StreamedText): Promise<void> {
    return this.opened().transaction((q) => appendStreamedText(q, id, streamId, batch));
  }

  /** The shown text kept of a stream (its turn interrupted by a crash). */
  async streamedText(id: string, streamId: string): Promise<StreamedText> {
    return readStreamedText(this.opened(), id, streamId);
  }

  /** Drop the kept text of one stream (its rows are stored), or of all (at start, after recovery). */
  async removeStreamedText(stream?: { sessionId: string; streamId: string }): Promise<void> {
    return this.opened().transaction((q) => removeStreamedText(q, stream));
  }

  /** The session's MCP read receipts, the latest first. */
  receipts(id: string): Promise<StoredReceipt[]> {
    return listReceipts(this.opened(), id);
  }

  /**
   * Store a message without asking the agent (POST /api/session/message, quick capture), as a user row of the one
   * stored shape (`{role, content, timestamp, attachments}`); while a turn runs it waits for the turn's rows
   * (queued.ts: `queued` says so). A conversation turn stores its rows through turns.ts.
   */
  async addMessage(id: string, text: string, attachments: wire.ChatAttachment[]): Promise<{ session: Session; queued: boolean }> {
    if (text.length > MAX_MESSAGE_CHARS) throw new ValueError(`Message too long (max ${MAX_MESSAGE_CHARS} characters)`);
    let queued = false;
    const session = await this.update(id, (s) => {
      refuseFullConversation(s);
      queued = appendWritten(s, { role: 'user', content: text, timestamp: Date.now() / 1000, attachments }) === 'queued';
    });
    return { session, queued };
  }

  /**
   * Store a message without asking the agent as a new version of the conversation from the user row at `at`
   * on (Edit with no agent connected): the version it replaces is kept (versions.ts). Refused while a turn runs.
   */
  async addVersion(id: string, at: unknown, text: string, attachments: wire.ChatAttachment[]): Promise<Session> {
    if (text.length > MAX_MESSAGE_CHARS) throw new ValueError(`Message too long (max ${MAX_MESSAGE_CHARS} characters)`);
    return this.update(id, (s) => {
      refuseWhileTurnRuns(s);
      if (!isUserRowAt(s.messages, at)) throw new ValueError(NO_SUCH_MESSAGE);
      s.messages = withNewVersion(s.messages, at, [{ role: 'user', content: text, timestamp: Date.now() / 1000, attachments }]);
    });
  }

  /**
   * The best `limit` hits of the person's words `query` in `profile`'s sessions, deleted ones never (search.ts):
   * titles, messages, attachment names and the text the agent got from attachments.
   */
  search(profile: string, query: string, limit: number, only: Pick<SearchScope, 'sessionId' | 'kinds'> = {}, signal?: AbortSignal): Promise<SearchHits> {
    if (!this.reader) throw this.damage ? new HttpError(503, DATABASE_DAMAGED) : new Error('the session store is not open');
    return searchSessions(this.opened(), this.reader, (id) => this.listings.get(id), query, { profile, limit, ...only }, signal);
  }

  /** The stored names of the session's attachments whose text the index holds (MCP's search walks the others). */
  indexedAttachmentNames(id: string): Promise<string[]> {
    return indexedAttachmentNames(this.opened(), id);
  }

  /**
   * Index the text the agent got from the session's attachment stored at `attachmentPath` (its Office sidecar,
   * its text, its transcript), replacing what was indexed of it; `settle` clears the backfill's mark at that
   * position (search/backfill.ts). False when the session (or the attachment) is not stored.
   */
  async indexAttachmentText(id: string, attachmentPath: string | null, text: string, settle?: number): Promise<boolean> {
    // A session removed from memory only awaits its rows' cascade: nothing to index, a mark only to clear.
    if (!this.listings.has(id)) return settle === undefined ? false : indexAttachmentText(this.opened(), id, null, '', settle);
    return indexAttachmentText(this.opened(), id, attachmentPath, text, settle);
  }

  /** Attachments stored before the index took their text (schema 2), at most `limit` (search/backfill.ts). */
  pendingAttachmentTexts(limit: number): Promise<PendingAttachmentText[]> {
    return pendingAttachmentTexts(this.opened(), limit);
  }

  /**
   * Record `attachment` in the session; `alongside` adds to the same transaction (the Inbox: the file's arrival
   * row and the record that it was taken), so the file is never recorded without them, nor they without it.
   */
  addAttachment(id: string, attachment: Attachment, alongside: AttachmentAlongside = {}): Promise<Session> {
    return this.update(
      id,
      (s) => {
        // Refused, not dropped: the caller removes the file it placed (attachments/store-upload.ts).
        refuseOverCap('attachments', s.attachments.length);
        s.attachments.push(attachment);
        // Only with the record: a row never names a file the session does not hold.
        alongside.change?.(s);
      },
      { also: alongside.also },
    );
  }

  /** Read from the database outside any session (the Inbox's record at start). */
  query<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    return work(this.opened());
  }

  /** One transaction of the caller's own statements (the Inbox's record moved in from inbox.json). */
  transaction<T>(work: (q: Queries) => Promise<T>): Promise<T> {
    return this.opened().transaction(work);
  }
}
