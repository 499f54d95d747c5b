// Deleting a session, with Undo. A delete only marks the session (store/sessions.ts `deleted_at`): from that
// moment it is answered as missing by every list, read, upload and MCP tool. Once the grace period has passed
// it is purged for good: its attachment folder (uploads, extractions, Office sidecars: attachments/layout.ts),
// its draft, and last its record. The record goes last so that a crash anywhere in between leaves a session
// still marked, which the next start purges again; a half-deleted session is never visible. The session's
// workspace is the person's folder and is never touched.
import { attachmentRoot } from '../attachments/layout.js';
import { forgetSessionFolder } from '../attachments/session-folders.js';
import { log } from '../core/log.js';
import { removeDraft } from '../drafts/store.js';
import { AnchoredDir, errno } from '../store/anchored.js';
import { isSessionId, SESSION_NOT_FOUND, type Session, type SessionStore } from '../store/sessions.js';
import { HttpError } from '../core/errors.js';

/**
 * How long a deleted session can still be restored. The UI offers Undo for 10 s (renderer/src/session-actions.ts
 * UNDO_TOAST_MS); 5 s more lets an Undo pressed in its last moment, on a slow machine, arrive before the purge.
 */
export const SESSION_DELETE_GRACE_MS = 15_000;

/** The session, as deleted: when it will be purged. */
export interface Deleted {
  session: Session;
  purgeAt: Date;
}

export class SessionDeletions {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Purges under way: a restore that arrives meanwhile finds the session gone. */
  private readonly purging = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(
    private readonly stateDir: string,
    private readonly sessions: SessionStore,
    private readonly graceMs = SESSION_DELETE_GRACE_MS,
  ) {}

  /** Schedule the purge of every session a previous run left deleted: due ones now, the others when due. */
  start(): void {
    for (const session of this.sessions.listDeleted()) this.schedule(session);
  }

  /** Mark the session deleted and schedule its purge. 404 when there is none, 409 while a turn runs. */
  async delete(id: string): Promise<Deleted> {
    const session = await this.sessions.markDeleted(id);
    return { session, purgeAt: this.schedule(session) };
  }

  /**
   * Undo: the session is back as it was. 404 once its grace period has passed (or when it is not deleted): a purge
   * may have begun then, in this run or in one that crashed between two of its batches (store/db/purge.ts),
   * and a conversation part purged must never come back.
   */
  async restore(id: string): Promise<Session> {
    const deleted = this.sessions.getDeleted(id);
    if (this.purging.has(id) || !deleted || Date.now() >= this.purgeTime(deleted).getTime()) throw new HttpError(404, SESSION_NOT_FOUND);
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    return this.sessions.restore(id);
  }

  /** Cancel the timers and wait for the purges under way; what is left is purged at the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.all(this.purging.values());
  }

  private schedule(session: Pick<Session, 'session_id' | 'deleted_at'>): Date {
    const id = session.session_id;
    const purgeAt = this.purgeTime(session);
    clearTimeout(this.timers.get(id));
    const timer = setTimeout(() => {
      this.timers.delete(id);
      void this.purge(id);
    }, Math.max(0, purgeAt.getTime() - Date.now()));
    // A pending purge must not keep a process alive that is otherwise done; the next start finishes it.
    timer.unref();
    this.timers.set(id, timer);
    return purgeAt;
  }

  /** When the session's purge is due: its grace period after it was deleted (now, for a mark unreadable). */
  private purgeTime(session: Pick<Session, 'deleted_at'>): Date {
    const deletedAt = Date.parse(session.deleted_at ?? '');
    return new Date((Number.isFinite(deletedAt) ? deletedAt : Date.now()) + this.graceMs);
  }

  private purge(id: string): Promise<void> {
    if (this.stopped || this.purging.has(id) || !this.sessions.getDeleted(id)) return Promise.resolve();
    const run = (async () => {
      try {
        await removeAttachmentFolder(this.stateDir, id);
        await removeDraft(this.stateDir, id);
        await this.sessions.remove(id);
        log.info(`deleted session ${id} purged`);
      } catch (err) {
        // Still marked, so still hidden: the next start tries again.
        log.warn(`could not purge deleted session ${id}; it stays hidden and is purged at the next start`, err);
      } finally {
        this.purging.delete(id);
      }
    })();
    this.purging.set(id, run);
    return run;
  }
}

/**
 * Remove `<attachment root>/<id>` and everything in it, walking from the root held open and never following a
 * symlink (AnchoredDir.removeTree): a link planted in the folder, even one to the workspace, is removed as a
 * link, and what it points at stays. No root, or no folder, is nothing to do.
 */
export async function removeAttachmentFolder(stateDir: string, id: string): Promise<void> {
  if (!isSessionId(id)) throw new HttpError(404, SESSION_NOT_FOUND);
  // The folder kept open for uploads (attachments/session-folders.ts) is closed, never lent again.
  forgetSessionFolder(stateDir, id);
  let root: AnchoredDir;
  try {
    root = await AnchoredDir.open(attachmentRoot(stateDir));
  } catch (err) {
    if (errno(err) === 'ENOENT') return;
    throw err;
  }
  try {
    await root.removeTree(id);
  } finally {
    await root.close();
  }
}
