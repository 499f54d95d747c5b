// What the session list's buttons do: pin, archive, and delete with Undo. A delete takes the session off the
// list at once and offers Undo for UNDO_TOAST_MS; the server keeps it restorable a little longer than that
// (server/sessions/deletion.ts SESSION_DELETE_GRACE_MS), so an Undo pressed at the last moment still lands.
import { api, ApiError, type SessionSummary } from './api.js';
import { notify, notifyAction } from './toast.js';

/** How long the Undo notice stays. Ten seconds: time to notice a slip, short enough that "deleted" means it. */
export const UNDO_TOAST_MS = 10_000;
export const UNDO_TOO_LATE = 'Too late to undo: that session has been deleted for good.';

export interface SessionActionDeps {
  /** Before the delete is sent: the composer's draft of that session is saved, so Undo brings it back too. */
  beforeDelete(id: string): Promise<void>;
  /** Take the sessions off the list (and off the screen) now. */
  removed(ids: string[]): void;
  /** The delete was refused or Undo pressed: show the list as the server has it, with these back. */
  restored(ids: string[]): void;
  /** A flag changed: the list shows the session's new summary. */
  changed(summary: SessionSummary): void;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const titleOf = (s: SessionSummary) => s.title || 'Untitled';

/** What the Undo notice says: the title of one, the count of several. */
export function deletedText(sessions: readonly SessionSummary[]): string {
  return sessions.length === 1 ? `Deleted “${titleOf(sessions[0]!)}”` : `Deleted ${sessions.length} conversations`;
}

/**
 * Delete one conversation or the selected ones, with one Undo for all. Sent one after another: each delete is
 * a small request, and a refusal (a reply being written) names its conversation and brings only it back.
 */
export async function deleteWithUndo(sessions: readonly SessionSummary[], deps: SessionActionDeps): Promise<void> {
  if (sessions.length === 0) return;
  for (const s of sessions) await deps.beforeDelete(s.session_id).catch(() => undefined);
  deps.removed(sessions.map((s) => s.session_id));
  const deleted: SessionSummary[] = [];
  const refused: string[] = [];
  for (const s of sessions) {
    try {
      await api.deleteSession(s.session_id);
      deleted.push(s);
    } catch (err) {
      // Refused (a reply is being written) or failed: it was never deleted, so it comes back as it was.
      refused.push(s.session_id);
      notify(sessions.length === 1 ? message(err) : `“${titleOf(s)}”: ${message(err)}`, 'error');
    }
  }
  if (refused.length > 0) deps.restored(refused);
  if (deleted.length === 0) return;
  notifyAction(
    deletedText(deleted),
    {
      label: 'Undo',
      testid: 'undo-delete',
      run: () => void undo(deleted, deps),
    },
    UNDO_TOAST_MS,
  );
}

async function undo(deleted: readonly SessionSummary[], deps: Pick<SessionActionDeps, 'restored'>): Promise<void> {
  const back: string[] = [];
  let failure: unknown;
  for (const s of deleted) {
    try {
      await api.restoreSession(s.session_id);
      back.push(s.session_id);
    } catch (err) {
      failure ??= err;
    }
  }
  if (back.length > 0) deps.restored(back);
  if (failure !== undefined) notify(failure instanceof ApiError && failure.status === 404 ? UNDO_TOO_LATE : message(failure), 'error');
}

export async function setPinned(session: SessionSummary, pinned: boolean, deps: Pick<SessionActionDeps, 'changed'>): Promise<void> {
  try {
    deps.changed((await api.pinSession(session.session_id, pinned)).session);
  } catch (err) {
    notify(message(err), 'error');
  }
}

export async function setArchived(session: SessionSummary, archived: boolean, deps: Pick<SessionActionDeps, 'changed'>): Promise<void> {
  try {
    deps.changed((await api.archiveSession(session.session_id, archived)).session);
  } catch (err) {
    notify(message(err), 'error');
  }
}
