// The composer's draft on the server (GET/PUT /api/session/draft, docs/API.md): saved a moment after each
// change, at once when the composer moves to another session, and with a keepalive request when the page
// goes away, so a reload or a restart of Satchel finds the text and the chips again.
import { ApiError, errorDetails, errorText, type DraftExtraction, type Session, type SessionDraft } from './api.js';

/** Typing saves this long after the last key, not on every key. */
export const DRAFT_SAVE_DEBOUNCE_MS = 400;

/** One chip as the server keeps it: the stored upload's path and the extraction it made, if any. */
export interface DraftItem {
  path: string;
  extract?: DraftExtraction;
}

export interface DraftContent {
  text: string;
  attachments: DraftItem[];
}

async function call<T>(method: 'GET' | 'PUT' | 'DELETE', url: string, body?: unknown, keepalive = false): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      credentials: 'same-origin',
      keepalive,
      headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, errorText(0, ''));
  }
  const text = await res.text();
  if (!res.ok) throw new ApiError(res.status, errorText(res.status, text), errorDetails(text));
  return JSON.parse(text) as T;
}

export const draftApi = {
  load: (sessionId: string) =>
    call<{ draft: SessionDraft }>('GET', `/api/session/draft?${new URLSearchParams({ session_id: sessionId })}`).then((r) => r.draft),
  save: (sessionId: string, draft: DraftContent, keepalive = false) =>
    call<{ draft: SessionDraft }>('PUT', '/api/session/draft', { session_id: sessionId, ...draft }, keepalive),
  /** Delete an unsent upload (a chip taken off the draft); the server refuses one a sent message refers to. */
  deleteAttachment: (sessionId: string, path: string) =>
    call<{ ok: true; session: Session }>('DELETE', `/api/session/attachment?${new URLSearchParams({ session_id: sessionId, path })}`),
};

/**
 * Debounced saving of one composer's draft. `read` gives what the composer holds now and for which session
 * (null: nothing to save, e.g. no session yet); a save always goes to the session the content belongs to.
 */
export class DraftSaver {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The last content saved per session, so an unchanged draft is not written again. */
  private readonly saved = new Map<string, string>();

  constructor(private readonly read: () => { sessionId: string; content: DraftContent } | null) {
    window.addEventListener('pagehide', () => this.flush(true));
  }

  /** Something changed: save a moment from now. */
  schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), DRAFT_SAVE_DEBOUNCE_MS);
  }

  /** Save now what a pending save would have saved (before the composer changes sessions or the page goes). */
  flush(keepalive = false): Promise<void> {
    const pending = this.timer !== undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!pending) return Promise.resolve();
    const now = this.read();
    return now ? this.save(now.sessionId, now.content, keepalive) : Promise.resolve();
  }

  /** Save `content` for `sessionId` at once (e.g. the empty draft after sending). */
  async save(sessionId: string, content: DraftContent, keepalive = false): Promise<void> {
    const key = JSON.stringify(content);
    if (this.saved.get(sessionId) === key) return;
    this.saved.set(sessionId, key);
    try {
      await draftApi.save(sessionId, content, keepalive);
    } catch {
      // Not saved (the server is gone, the session too): the next change tries again.
      this.saved.delete(sessionId);
    }
  }

  /** What the server holds for `sessionId` now (after loading it): no need to write it back. */
  known(sessionId: string, content: DraftContent): void {
    this.saved.set(sessionId, JSON.stringify(content));
  }

  /** Forget a pending save (its content is gone with what it belonged to). */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
