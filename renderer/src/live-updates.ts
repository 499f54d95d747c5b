// What the page does with each server-sent event (GET /api/events): which view reads what again. Apart from
// app.ts, which composes the views, so the rules of following another window's changes are one file, tested in
// node with a stand-in event stream (live-updates.test.ts). The events' data is typed by the server's own map
// (events.ts EventHandlers), so nothing here casts or guesses a shape.
import type { Session } from './api.js';
import { connectEvents, type EventHandlers } from './events.js';

/** Server-sent events come in bursts (a message with attachments fires several): one reload per burst. */
export const EVENT_RELOAD_DEBOUNCE_MS = 100;

/** What the events change: the app's own operations, named by what they do. */
export interface LiveTargets {
  /** The conversation on screen. */
  current(): Session | null;
  /** Read the session list again. */
  reloadList(): Promise<void>;
  /** Read conversation `id` again and show it. */
  open(id: string): Promise<void>;
  /** Read the list again and show `id`, the one on screen, or the newest. */
  reloadAll(id: string | null): Promise<void>;
  applyTitle(id: string, title: string): void;
  /** The workspace of the conversation on screen changed. */
  workspaceChanged(): void;
  /** An MCP client read something of the conversation on screen. */
  receiptsChanged(): void;
  /** An MCP client read something of any conversation (the MCP panel's timeline follows). */
  mcpRead(): void;
  /** The stream is live, or is being reopened. */
  status(status: 'live' | 'reconnecting'): void;
}

/**
 * The `updated_at` a run of session_updated events leaves the conversation at: the newest one named, or null as
 * soon as one named none (then only reading it again tells). `pending` undefined: none since the last read.
 */
export function foldUpdatedAt(pending: string | null | undefined, at: string | undefined): string | null {
  return pending === null || at === undefined ? null : at;
}

/** The copy on screen is behind what the events said: it must be read again. */
export function behind(pending: string | null | undefined, shown: Session | null): boolean {
  return !pending || shown?.updated_at !== pending;
}

/** Follow the server's events into `targets` until closed. `connect`: the event stream (a stand-in in tests). */
export function followServer(targets: LiveTargets, connect = connectEvents): { close(): void } {
  const ignore = () => undefined;
  const forCurrent = (data: { session_id: string }) => {
    const id = targets.current()?.session_id;
    return id !== undefined && data.session_id === id;
  };
  const refreshList = debounce(() => void targets.reloadList().catch(ignore), EVENT_RELOAD_DEBOUNCE_MS);
  // A search across conversations announces one read per conversation found: one look at the timeline per burst.
  const mcpRead = debounce(() => targets.mcpRead(), EVENT_RELOAD_DEBOUNCE_MS);
  const refreshCurrent = debounce(() => {
    const id = targets.current()?.session_id;
    if (id) void targets.open(id).catch(ignore);
  }, EVENT_RELOAD_DEBOUNCE_MS);
  // The newest `updated_at` the current session's change events named since the last re-read; null: one named none.
  let updatedTo: string | null | undefined;
  // The current session changed: read it again, unless every change since the last read named the `updated_at`
  // it left, and this window already holds that (it folded its own message in: foldMessage).
  const refreshIfBehind = debounce(() => {
    const to = updatedTo;
    updatedTo = undefined;
    const shown = targets.current();
    if (shown && behind(to, shown)) void targets.open(shown.session_id).catch(ignore);
  }, EVENT_RELOAD_DEBOUNCE_MS);

  const handlers: EventHandlers = {
    session_created: () => refreshList(),
    // Another window deleted or restored one (this window's own action already shows it).
    session_deleted: (data) => {
      refreshList();
      if (forCurrent(data)) void targets.reloadAll(null).catch(ignore);
    },
    session_restored: () => refreshList(),
    // A folder made, renamed or deleted in another window: the list (and its folders) read again.
    folders_changed: () => refreshList(),
    session_renamed: (data) => targets.applyTitle(data.session_id, data.title),
    session_updated: (data) => {
      refreshList();
      if (!forCurrent(data)) return;
      updatedTo = foldUpdatedAt(updatedTo, data.updated_at);
      refreshIfBehind();
    },
    attachment_added: (data) => {
      if (forCurrent(data)) refreshCurrent();
    },
    workspace_changed: (data) => {
      if (forCurrent(data)) targets.workspaceChanged();
    },
    // The quick-capture window asked the agent: this window shows that new conversation and its reply.
    capture_sent: (data) => {
      refreshList();
      if (data.destination === 'ask') void targets.open(data.session_id).catch(ignore);
      else if (forCurrent(data)) refreshCurrent();
    },
    // An MCP client read something of the conversation on screen: its receipts line says so at once.
    mcp_read: (data) => {
      if (forCurrent(data)) targets.receiptsChanged();
    },
    // Any MCP call was recorded (a listing, a search across conversations, a refusal too): the timeline adds it.
    mcp_ledger_added: () => mcpRead(),
  };
  return connect(handlers, {
    onStatus: (s) => targets.status(s),
    // Events may have been missed while the stream was down: everything shown is read again.
    onResync: () => {
      void targets.reloadAll(targets.current()?.session_id ?? null).catch(ignore);
      targets.workspaceChanged();
      targets.receiptsChanged();
    },
  });
}

function debounce(fn: () => void, ms: number): () => void {
  let t: ReturnType<typeof setTimeout> | undefined;
  return () => {
    clearTimeout(t);
    t = setTimeout(fn, ms);
  };
}
