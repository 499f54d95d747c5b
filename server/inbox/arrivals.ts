// What arrived in the Inbox, as rows of its conversation (issue 26): "report.pdf arrived from Downloads" with
// the file's chip, in time order, so the thread, search, export and the agent's history all read one list.
// An arrival row is a `system` row with an `arrival` field (wire.d.ts `Arrival`) carrying the stored files; its
// `timestamp` is its first file's, `arrival.last_at` its last's.
//
// Bursts: files are held here for ARRIVAL_FLUSH_MS and written together, one store write per flush (not one per
// file), and arrivals from the same place within ARRIVAL_GROUP_MS of a row's first file join that row while it
// is still the conversation's last ("3 files arrived from Downloads"). A flush replaces at most that last row
// and appends, so 1,000 files make a few dozen small row writes, and the window gets one `session_updated` per
// flush instead of a thousand. The watcher and "Open with" write a file's row in the very transaction that
// records the file (`arrivalRow`, issue 33), so a crash never leaves a stored arrival without its row; only the
// window's `session_updated` is held for the flush (`announce`). `record` (a row written later) stays for
// callers with no transaction of their own.
import type { Arrival, FileAttachment } from '../core/wire.js';
import type { EventBus } from '../store/events.js';
import type { Message, Session, SessionStore } from '../store/sessions.js';
import { refuseFullConversation } from '../store/caps.js';
import { log } from '../core/log.js';
import { queueHasRoom, writableRows } from '../store/queued.js';

/** Files that arrive within this long are written in one store write: a burst costs a few writes, not one each. */
export const ARRIVAL_FLUSH_MS = 500;
/** A row gathers the arrivals from one place for this long after its first file, then a new row starts. */
export const ARRIVAL_GROUP_MS = 60_000;
/** A row holds at most this many files: the row is rewritten as it grows, so its size bounds every flush. */
export const MAX_FILES_PER_ARRIVAL_ROW = 500;

/** A folder name longer than this in an imported row is no arrival (a real one is a path segment: 255 bytes). */
const MAX_FROM_CHARS = 255;

/** `raw` (an imported export's `arrival`) when it is one this version writes, else undefined: the row stays a note. */
export function arrivalFrom(raw: unknown): Arrival | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const { source, from, last_at } = raw as Record<string, unknown>;
  if (source !== 'folder' && source !== 'open-with') return undefined;
  if (typeof last_at !== 'number' || !Number.isFinite(last_at)) return undefined;
  if (from !== undefined && (typeof from !== 'string' || from.length > MAX_FROM_CHARS)) return undefined;
  return { source, ...(typeof from === 'string' ? { from } : {}), last_at };
}

/** Where a file came from, as its row says it. */
export type ArrivalSource = Pick<Arrival, 'source' | 'from'>;

interface Held {
  profile: string;
  items: { source: ArrivalSource; file: FileAttachment; at: number }[];
  timer?: NodeJS.Timeout;
}

/** The row's words: "report.pdf arrived from Downloads", "3 files arrived from Downloads", "… (opened with Satchel)". */
export function arrivalText(source: ArrivalSource, files: readonly { filename: string }[]): string {
  const what = files.length === 1 ? files[0]!.filename : `${files.length.toLocaleString('en-US')} files`;
  return source.source === 'folder' ? `${what} arrived from ${source.from}` : `${what} arrived (opened with Satchel)`;
}

/** The stored arrival row at the end of `messages` that a file from `source` at `at` (epoch s) may join, or -1. */
export function joinableRow(messages: readonly Message[], source: ArrivalSource, at: number): number {
  const i = messages.length - 1;
  const last = messages[i];
  const a = last?.arrival;
  if (!last || last.role !== 'system' || !a || a.source !== source.source || a.from !== source.from) return -1;
  if ((last.attachments?.length ?? 0) >= MAX_FILES_PER_ARRIVAL_ROW) return -1;
  return at - (last.timestamp ?? 0) <= ARRIVAL_GROUP_MS / 1000 ? i : -1;
}

/**
 * Add the held `items` to the session's rows: into the last row while it may take them, else in new rows. While a
 * turn runs there, the rows are the ones waiting for it (store/queued.ts: stored after the turn's rows).
 */
export function appendArrivals(s: Session, items: Held['items']): void {
  const rows = writableRows(s);
  for (const { source, file, at } of items) {
    const i = joinableRow(rows, source, at);
    if (i >= 0) {
      // Stored rows are frozen: the row is replaced, never changed in place.
      const row = rows[i]!;
      const files = [...(row.attachments ?? []), file] as FileAttachment[];
      rows[i] = { ...row, content: arrivalText(source, files), attachments: files, arrival: { ...row.arrival!, last_at: at } };
      continue;
    }
    // A full conversation refuses the file as every writer is refused (store/caps.ts): in the file's own
    // transaction (arrivalRow) the file is then not recorded, and the watcher counts it refused, left in its folder.
    refuseFullConversation(s);
    if (!queueHasRoom(s)) {
      log.warn('inbox: the rows waiting for a reply fill the queue; the file is kept in its attachments without a row');
      continue;
    }
    const arrival: Arrival = { ...source, last_at: at };
    rows.push({ role: 'system', content: arrivalText(source, [file]), timestamp: at, attachments: [file], arrival });
  }
}

/** The change that adds `file` (just recorded) from `source` as an arrival row: for the file's own store write. */
export function arrivalRow(source: ArrivalSource, file: FileAttachment | Omit<FileAttachment, 'kind'>, at: number = Date.now() / 1000): (s: Session) => void {
  return (s) => appendArrivals(s, [{ source, file: { ...file, kind: 'file' }, at }]);
}

/** The arrival rows of the running server: held per conversation, written together. */
export class ArrivalLog {
  private readonly held = new Map<string, Held>();
  private readonly writes = new Set<Promise<void>>();
  /** Conversations whose rows were written with their files and whose `session_updated` waits for the flush. */
  private readonly announcing = new Map<string, { profile: string; timer: NodeJS.Timeout }>();
  /** Store writes made (tests and the burst measurement read it). */
  writeCount = 0;

  constructor(
    private readonly sessions: SessionStore,
    private readonly events: EventBus,
    private readonly flushMs = ARRIVAL_FLUSH_MS,
  ) {}

  /** `file` (already stored and recorded in the session's attachments) arrived in `sessionId` from `source`. */
  record(profile: string, sessionId: string, source: ArrivalSource, file: FileAttachment | Omit<FileAttachment, 'kind'>): void {
    let held = this.held.get(sessionId);
    if (!held) {
      held = { profile, items: [] };
      this.held.set(sessionId, held);
    }
    held.items.push({ source, file: { ...file, kind: 'file' }, at: Date.now() / 1000 });
    held.timer ??= setTimeout(() => this.write(sessionId), this.flushMs).unref();
  }

  /** A row was written with its file (arrivalRow): the window hears of it once per flush, not once per file. */
  announce(profile: string, sessionId: string): void {
    if (this.announcing.has(sessionId)) return;
    const timer = setTimeout(() => {
      this.announcing.delete(sessionId);
      this.publishUpdate(profile, sessionId);
    }, this.flushMs).unref();
    this.announcing.set(sessionId, { profile, timer });
  }

  private publishUpdate(profile: string, sessionId: string): void {
    const run = this.sessions
      .get(sessionId)
      .then((s) => {
        if (s) this.events.publish({ name: 'session_updated', profile, data: { session_id: sessionId, updated_at: s.updated_at } });
      })
      .catch((err: unknown) => log.debug('inbox: an arrival could not be announced', err));
    this.writes.add(run);
    void run.finally(() => this.writes.delete(run));
  }

  private write(sessionId: string): Promise<void> {
    const held = this.held.get(sessionId);
    if (!held) return Promise.resolve();
    this.held.delete(sessionId);
    clearTimeout(held.timer);
    this.writeCount++;
    const run = this.sessions
      .update(sessionId, (s) => appendArrivals(s, held.items))
      .then((s) => this.events.publish({ name: 'session_updated', profile: held.profile, data: { session_id: sessionId, updated_at: s.updated_at } }))
      // The Inbox was deleted meanwhile, or the disk is full: the files stay recorded; only the row is missing.
      .catch((err: unknown) => log.warn(`inbox: ${held.items.length} arrival row(s) could not be written`, err));
    this.writes.add(run);
    void run.finally(() => this.writes.delete(run));
    return run;
  }

  /** Write every held arrival now and wait for every write (the server's stop, and tests). */
  async flush(): Promise<void> {
    for (const [id, { profile, timer }] of this.announcing) {
      clearTimeout(timer);
      this.publishUpdate(profile, id);
    }
    this.announcing.clear();
    await Promise.all([...this.held.keys()].map((id) => this.write(id)));
    await Promise.all([...this.writes]);
  }
}
