// A conversation made here and left untouched is not kept (issue 38: every Ctrl+Shift+O left an "Untitled" one
// behind, even when nothing was sent). Made in this page and then left (another conversation opened, or another
// new one made) with nothing in it — no message, no file, nothing typed, nothing changed since it was made — it is
// deleted quietly. What the server holds decides, not this page's copy: another window may have written to it.
import type { Session } from './api.js';
import type { Draft } from './store.js';

/** The server's copy says nothing was done with the conversation since it was made as `made`. */
export function untouched(made: Pick<Session, 'session_id' | 'updated_at'>, now: Session): boolean {
  return (
    now.session_id === made.session_id &&
    now.updated_at === made.updated_at &&
    now.messages.length === 0 &&
    (now.messages_offset ?? 0) === 0 &&
    now.attachments.length === 0 &&
    !now.active_stream_id &&
    !now.pending_user_message &&
    !(now.queued_messages?.length ?? 0) &&
    !now.pinned &&
    !now.archived
  );
}

/** The composer holds something for conversation `id`: typed text or a file. */
export function draftTouches(draft: Draft, id: string): boolean {
  return draft.owner === id && (draft.text.trim() !== '' || draft.chips.length > 0);
}

export interface FreshDeps {
  /** The conversation as the server holds it now (its newest rows are enough). */
  read(id: string): Promise<Session>;
  /** The conversation's kept draft text and files. */
  draft(id: string): Promise<{ text: string; attachments: readonly unknown[] }>;
  remove(id: string): Promise<void>;
}

export class FreshSessions {
  /** The conversation made here last, as it was made, while nothing was done with it. */
  private fresh: Pick<Session, 'session_id' | 'updated_at'> | null = null;

  constructor(private readonly deps: FreshDeps) {}

  made(session: Pick<Session, 'session_id' | 'updated_at'>): void {
    this.fresh = { session_id: session.session_id, updated_at: session.updated_at };
  }

  /** Something was typed or dropped for it: it is kept, whatever happens next. */
  noteDraft(draft: Draft): void {
    if (this.fresh && draftTouches(draft, this.fresh.session_id)) this.fresh = null;
  }

  /** Conversation `leftId` left the screen; resolves true when it was the untouched new one and is deleted now. */
  async left(leftId: string | undefined, shownId: string | undefined): Promise<boolean> {
    const made = this.fresh;
    if (!made || leftId !== made.session_id || shownId === made.session_id) return false;
    this.fresh = null;
    try {
      const [now, draft] = await Promise.all([this.deps.read(made.session_id), this.deps.draft(made.session_id)]);
      if (!untouched(made, now) || draft.text.trim() !== '' || draft.attachments.length > 0) return false;
      await this.deps.remove(made.session_id);
      return true;
    } catch {
      return false; // gone already, refused, or the server is away: kept, as anything unsure is
    }
  }
}
