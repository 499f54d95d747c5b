// The page's one state and its one owner: every view reads what it shows from here and changes it only
// through update(), and every change reaches every subscriber (views are `{ el, update(state) }`, as in
// redom). Views keep their own DOM, never state of their own that another view needs.
import type { ExtractedAttachment, ExtractResult, SentAttachment, Session } from './api.js';
import type { TurnState } from './chat-state.js';

/** Where a composer chip came from, which decides what Extract and Remove do with it. */
export type ChipOrigin =
  /** Picked, dropped or pasted in this page: its bytes are here until the upload stores them. */
  | { kind: 'picked' }
  /** Brought back from the session's stored draft: stored already; removing it deletes the stored file. */
  | { kind: 'restored' }
  /** Brought back from a sent message by Edit: stored already, and never deleted (the message refers to it). */
  | { kind: 'carried' };

export interface ChipExtraction {
  status: 'running' | 'done' | 'error';
  result?: ExtractResult;
  error?: string;
  /** Brought back by Edit: the sent message's own reference to the extraction, sent again as it was. */
  sent?: ExtractedAttachment;
}

/** One attachment chip in the composer, as data (its element and upload handle are the composer's). */
export interface Chip {
  id: number;
  name: string;
  size: number;
  origin: ChipOrigin;
  status: 'queued' | 'uploading' | 'done' | 'error';
  /** Bytes uploaded so far. */
  loaded: number;
  /** The stored attachment, once uploaded (or when brought back stored). */
  result?: SentAttachment;
  error?: string;
  /** An image's thumbnail: the picked file's blob URL, or the stored bytes' URL. */
  thumbUrl?: string;
  extract?: ChipExtraction;
}

/** What the composer holds: the draft of one session (null before the first drop creates one). */
export interface Draft {
  owner: string | null;
  text: string;
  chips: readonly Chip[];
}

/** How the last ended turn of a session went, for the thread to explain (not stored with the rows). */
export interface TurnOutcome {
  sessionId: string;
  usage?: string;
}

/** An Edit under way: whose message, where, and the composer as it was before (Esc or Send gives it back). */
export interface Editing {
  sessionId: string;
  /** The message's index in the session's `messages`. */
  index: number;
  saved: { text: string; chips: readonly Chip[] };
}

export interface AppState {
  /** The session on screen. */
  session: Session | null;
  /** The live turn of the session on screen: streaming, or ended and kept until its stored rows arrive. */
  turn: TurnState | null;
  outcome: TurnOutcome | null;
  /** A sent message back in the composer (Edit): sending it makes a new version from there on. */
  editing: Editing | null;
  draft: Draft;
  /** The live-updates stream (GET /api/events). */
  connection: 'connecting' | 'live' | 'reconnecting';
  /** An agent is configured: Send starts a turn, and Regenerate is offered. */
  agentReady: boolean;
}

export type Listener<S> = (state: S, previous: S) => void;

export class Store<S extends object> {
  private listeners: Listener<S>[] = [];
  /** The state the subscribers last heard of. */
  private notified: S;
  private notifying = false;

  constructor(private current: S) {
    this.notified = current;
  }

  get state(): S {
    return this.current;
  }

  /**
   * Replace some fields (or compute them from the state now). Subscribers hear of each change in order: an
   * update made by a subscriber while they are being told is applied at once and told after the current round,
   * so no subscriber sees the states out of order.
   */
  update(change: Partial<S> | ((state: S) => Partial<S>)): void {
    const patch = typeof change === 'function' ? change(this.current) : change;
    this.current = { ...this.current, ...patch };
    if (this.notifying) return;
    this.notifying = true;
    try {
      while (this.notified !== this.current) {
        const previous = this.notified;
        const now = this.current;
        this.notified = now;
        for (const listener of this.listeners) listener(now, previous);
      }
    } finally {
      this.notifying = false;
    }
  }

  subscribe(listener: Listener<S>): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }
}

export function initialState(): AppState {
  return {
    session: null,
    turn: null,
    outcome: null,
    editing: null,
    draft: { owner: null, text: '', chips: [] },
    connection: 'connecting',
    agentReady: false,
  };
}

/** Change one chip of the draft (a chip no longer in the draft is left alone). */
export function withChip(draft: Draft, id: number, change: (chip: Chip) => Chip): Draft {
  return { ...draft, chips: draft.chips.map((c) => (c.id === id ? change(c) : c)) };
}

/** A turn of `sessionId` is streaming, as far as this page knows. */
export function turnRunning(state: AppState, sessionId = state.session?.session_id): boolean {
  return Boolean(sessionId && state.turn?.sessionId === sessionId && state.turn.status === 'streaming');
}
