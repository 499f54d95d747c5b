// The thread on screen: the stored rows of the session, then the live turn. It follows the store by key: a
// row whose key and offered actions are unchanged keeps its element, so a newer copy of the session (after a
// turn, or another window's change) adds the new rows instead of rebuilding the conversation, and a finished
// turn is drawn once, from the stored session that replaces its live view.
import { visibleRows, type MessageRow } from './message-rows.js';
import { switcherPlaces, versionSwitcher, versionText } from './version-switcher.js';
import { actionButton, assistantMessage, userMessage } from './messages.js';
import { byId } from './dom.js';
import { ICONS } from './dom.js';
import type { AppState } from './store.js';
import { TurnView } from './turn-view.js';

/** How long a message a search result opened stays marked: long enough to find it on screen, then out of the way. */
export const FOUND_MARK_MS = 2000;

export interface ThreadActions {
  regenerate(): void;
  /** Put a message of the person's back in the composer: sending it makes a new version from there. */
  edit(row: MessageRow): void;
  /** Show version `version` of the conversation from the message at `index` on. */
  showVersion(index: number, version: number): void;
}

/** A stored row's identity: rows are appended, or a version replaced from some row on (new times, new versions). */
export function rowKey(sessionId: string, index: number, r: MessageRow): string {
  return [sessionId, index, r.role, r.time ?? '', r.text.length, r.partial, r.error, r.attachments.length, r.versions ? versionText(r.versions) : ''].join('|');
}

interface Placed {
  /** The key and what the row offers (Edit, Regenerate, the last outcome): a change rebuilds this row only. */
  signature: string;
  el: HTMLElement;
}

export class ThreadView {
  readonly el = byId('messages');
  private readonly empty = byId('empty-state');
  private rows = new Map<string, Placed>();
  private live: { streamId: string; view: TurnView } | null = null;
  /** What the stored rows were last drawn from: the same inputs draw the same rows, so a turn's frames skip them. */
  private drawnFrom: unknown[] = [];

  constructor(private readonly actions: ThreadActions) {}

  update(state: AppState): void {
    const session = state.session;
    const id = session?.session_id;
    const turn = state.turn && state.turn.sessionId === id ? state.turn : null;
    const busy = turn?.status === 'streaming' || Boolean(session?.active_stream_id);
    const outcome = state.outcome?.sessionId === id ? state.outcome : null;
    const inputs = [session, busy, outcome, state.agentReady, state.editing];
    let moved = false;
    if (inputs.some((v, i) => v !== this.drawnFrom[i])) {
      this.drawnFrom = inputs;
      moved = this.drawRows(state, busy);
    }
    moved = this.drawLive(turn) || moved;
    this.empty.hidden = this.rows.size > 0 || busy || Boolean(turn);
    if (moved) this.el.scrollTop = this.el.scrollHeight;
  }

  /** The stored rows, by key; true when any was added or removed. */
  private drawRows(state: AppState, busy: boolean): boolean {
    const session = state.session;
    const id = session?.session_id ?? '';
    const rows = visibleRows(session?.messages ?? []);
    const switchers = switcherPlaces(rows);
    const editing = state.editing?.sessionId === id ? state.editing.index : null;
    const outcome = state.outcome?.sessionId === id ? state.outcome : null;
    const canAsk = state.agentReady;
    const next = new Map<string, Placed>();
    let changed = false;
    rows.forEach((r, i) => {
      const key = rowKey(id, i, r);
      const last = i === rows.length - 1;
      const edit = r.role === 'user' && !busy;
      const regenerate = r.role !== 'user' && last && !busy && canAsk;
      const said = r.role !== 'user' && last ? [outcome?.usage] : [];
      const fork = switchers.get(i);
      const signature = JSON.stringify([key, edit, regenerate, said, fork && [fork.index, versionText(fork.versions!)], busy, editing === r.index]);
      const known = this.rows.get(key);
      if (known && known.signature === signature) {
        next.set(key, known);
        return;
      }
      const switcher = fork ? versionSwitcher(fork.versions!, (v) => this.actions.showVersion(fork.index, v), busy) : null;
      const el =
        r.role === 'user'
          ? userMessage(r.text, r.attachments, r.time, session?.session_id, switcher, edit ? actionButton('edit-message', 'Edit: send it again changed, as a new version', ICONS.edit, () => this.actions.edit(r)) : null)
          : assistantMessage(r, last, { busy, regenerate: regenerate ? () => this.actions.regenerate() : undefined, lastUsage: outcome?.usage, switcher }, session?.session_id);
      // The message being edited is marked, so the person sees which one Send will replace.
      if (editing === r.index && r.role === 'user') el.classList.add('msg-editing');
      el.dataset.messageIndex = String(r.index);
      if (known) known.el.replaceWith(el);
      else changed = true;
      next.set(key, { signature, el });
    });
    for (const [key, placed] of this.rows) {
      if (!next.has(key)) {
        placed.el.remove();
        changed = true;
      }
    }
    this.rows = next;
    // In order, before the live turn: only an element out of place moves.
    let at: ChildNode | null = this.el.firstChild;
    for (const { el } of next.values()) {
      if (at === el) at = el.nextSibling;
      else this.el.insertBefore(el, at);
    }
    return changed;
  }

  // Search (issue 24): bring the stored row at `messageIndex` of session.messages into view and mark it for
  // FOUND_MARK_MS. A minimal version over the rows drawn now; the virtualized thread (i24-virtual) keeps its own.
  private foundTimer: ReturnType<typeof setTimeout> | undefined;
  reveal(messageIndex: number): boolean {
    const row = Number.isInteger(messageIndex) ? this.el.querySelector<HTMLElement>(`[data-message-index="${messageIndex}"]`) : null;
    if (!row) return false;
    row.scrollIntoView({ block: 'center' });
    this.el.querySelectorAll('.msg-found').forEach((el) => el.classList.remove('msg-found'));
    row.classList.add('msg-found');
    clearTimeout(this.foundTimer);
    this.foundTimer = setTimeout(() => row.classList.remove('msg-found'), FOUND_MARK_MS);
    return true;
  }

  /** The live turn below the rows: kept while its stream is the store's turn; true when it came or went. */
  private drawLive(turn: AppState['turn']): boolean {
    if (this.live && this.live.streamId !== turn?.streamId) {
      this.live.view.el.remove();
      this.live = null;
      if (!turn) return true;
    }
    if (!turn) return false;
    if (this.live) {
      this.live.view.update(turn);
      if (turn.ended) this.live.view.flush();
      return false;
    }
    this.live = { streamId: turn.streamId, view: new TurnView(turn) };
    this.el.appendChild(this.live.view.el);
    return true;
  }
}
