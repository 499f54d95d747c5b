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
  /** Take the session off the list (and off the screen) now. */
  removed(id: string): void;
  /** The delete was refused or Undo pressed: show the list as the server has it, with `id` on screen. */
  restored(id: string): void;
  /** A flag changed: the list shows the session's new summary. */
  changed(summary: SessionSummary): void;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const titleOf = (s: SessionSummary) => s.title || 'Untitled';

export async function deleteWithUndo(session: SessionSummary, deps: SessionActionDeps): Promise<void> {
  const id = session.session_id;
  await deps.beforeDelete(id).catch(() => undefined);
  deps.removed(id);
  try {
    await api.deleteSession(id);
  } catch (err) {
    // Refused (a reply is being written) or failed: it was never deleted, so it comes back as it was.
    notify(message(err), 'error');
    deps.restored(id);
    return;
  }
  notifyAction(
    `Deleted “${titleOf(session)}”`,
    {
      label: 'Undo',
      testid: 'undo-delete',
      run: () => {
        api.restoreSession(id).then(
          () => deps.restored(id),
          (err: unknown) => notify(err instanceof ApiError && err.status === 404 ? UNDO_TOO_LATE : message(err), 'error'),
        );
      },
    },
    UNDO_TOAST_MS,
  );
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
