// Conversation turns: start one (POST /api/chat/start), watch its frames over an EventSource, stop it, and
// pick a running turn up again after a reload (the session names its active stream; the page also remembers
// it per session). The frames fold into a TurnState (chat-state.ts) that a TurnView draws.
import { api, type ChatAttachment, type Message, type Session } from './api.js';
import { frameSeq, initialTurn, reduceFrame, type TurnState, usageLine } from './chat-state.js';
import { activeStream } from './message-rows.js';
import { TurnView } from './turn-view.js';

const STREAM_KEY_PREFIX = 'satchel.stream.';
/** Every event the stream sends (../shared/spec/agent.md): EventSource only delivers named events it listens to. */
const FRAME_NAMES = ['token', 'reasoning', 'tool', 'tool_complete', 'title', 'metering', 'done', 'apperror', 'cancel', 'stream_end'] as const;

export interface ChatDeps {
  /** The session on screen. */
  current(): Session | null;
  /** Show this stored session (read once its turn has ended). */
  show(session: Session): void;
  /** Reload a session from the server and show it when it is on screen. */
  refresh(sessionId: string): void;
  applyTitle(sessionId: string, title: string): void;
  /** A turn started or ended: the composer's Send/Stop and the thread's actions follow. */
  changed(): void;
}

interface Watch {
  state: TurnState;
  view: TurnView;
  source: EventSource;
}

/** Where the last exchange begins, as the server counts it: the last user row (tool rows included). */
function lastExchangeStart(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === 'user') return i;
  return messages.length;
}

function remember(sessionId: string, streamId: string | null): void {
  try {
    if (streamId) localStorage.setItem(STREAM_KEY_PREFIX + sessionId, streamId);
    else localStorage.removeItem(STREAM_KEY_PREFIX + sessionId);
  } catch {
    // storage off: the session's own active_stream_id still finds the turn
  }
}

function remembered(sessionId: string): string | null {
  try {
    return localStorage.getItem(STREAM_KEY_PREFIX + sessionId);
  } catch {
    return null;
  }
}

export class Chat {
  /** The watched turn, at most one: the one of the session on screen. */
  private watch: Watch | null = null;
  /** Streams this page saw end: a session still naming one (its answer could not be stored) is not replayed again. */
  private readonly ended = new Set<string>();
  /**
   * An ended turn's view, kept on screen until the stored session replaces it: `done` carries only the
   * session's summary (a reply may be megabytes), so the session is read after it, and redrawing the thread
   * in between from the session as it was would blink the turn away.
   */
  private settling: { sessionId: string; el: HTMLElement } | null = null;
  /** How the last ended turn of each session went, for the thread to explain (not stored with the rows). */
  readonly outcomes = new Map<string, { error?: { type: string; hint?: string }; usage?: string }>();
  /** The session whose last message is back in the composer (Edit): its next turn replaces that exchange. */
  private editing: string | null = null;

  constructor(private readonly deps: ChatDeps) {}

  /** A turn of `sessionId` is running (as far as this page knows). */
  running(sessionId: string | undefined): boolean {
    return Boolean(sessionId && this.watch && this.watch.state.sessionId === sessionId && this.watch.state.status === 'streaming');
  }

  /** Edit and resend: the next turn of `sessionId` replaces its last exchange instead of adding one. */
  editLast(sessionId: string): void {
    this.editing = sessionId;
  }

  /** `replaceLast` (Regenerate): the turn replaces the last exchange; so does the first turn after Edit. */
  async start(sessionId: string, text: string, attachments: ChatAttachment[], opts: { replaceLast?: boolean } = {}): Promise<void> {
    const replaceLast = opts.replaceLast === true || this.editing === sessionId;
    const started = await api.startChat(sessionId, text, attachments, replaceLast);
    if (!('stream_id' in started)) return; // a silent control message: nothing runs
    if (replaceLast) {
      if (this.editing === sessionId) this.editing = null;
      // The server dropped the exchange; the thread drops it too, so only the new one shows while it streams.
      const shown = this.deps.current();
      if (shown?.session_id === sessionId) shown.messages = shown.messages.slice(0, lastExchangeStart(shown.messages));
    }
    this.outcomes.delete(sessionId);
    remember(sessionId, started.stream_id);
    this.follow(started.stream_id, sessionId, text, attachments);
    this.deps.changed();
  }

  async stop(): Promise<void> {
    const w = this.watch;
    if (w && w.state.status === 'streaming') await api.cancelChat(w.state.streamId);
  }

  /**
   * The session is on screen: keep its live turn below the stored rows, or pick up a turn that runs without
   * this page watching it (a reload, another window) by replaying it from its first frame.
   */
  attach(box: HTMLElement, session: Session | null): void {
    const w = this.watch;
    if (w && w.state.sessionId !== session?.session_id) this.close();
    if (this.settling && this.settling.sessionId !== session?.session_id) this.unsettle(this.settling.el);
    if (this.settling && !this.watch) box.appendChild(this.settling.el);
    // An edit belongs to the session it was started in: going elsewhere abandons it.
    if (this.editing && this.editing !== session?.session_id) this.editing = null;
    if (!session) return;
    if (this.watch) {
      if (this.watch.state.status === 'streaming') box.appendChild(this.watch.view.el);
      return;
    }
    const id = activeStream(session);
    if (id && !this.ended.has(id)) {
      this.follow(id, session.session_id, session.pending_user_message ?? '', session.pending_attachments ?? []);
      box.appendChild(this.watch!.view.el);
      return;
    }
    // A turn this page started may still be running on an older server that does not name it in the session.
    const mine = remembered(session.session_id);
    if (mine) {
      void api.streamStatus(mine).then(
        (st) => {
          if (st.active && !this.watch && this.deps.current()?.session_id === session.session_id) this.deps.refresh(session.session_id);
          else if (!st.active) remember(session.session_id, null);
        },
        () => remember(session.session_id, null),
      );
    }
  }

  private follow(streamId: string, sessionId: string, userText: string, attachments: ChatAttachment[]): void {
    this.close();
    // after_seq=0 replays the whole turn, so a reload draws it again from its first token; reconnects after
    // that are the browser's own, with Last-Event-ID.
    const source = new EventSource(`/api/chat/stream?${new URLSearchParams({ stream_id: streamId, after_seq: '0' })}`);
    const w: Watch = { state: initialTurn(streamId, sessionId), view: new TurnView(userText, attachments, sessionId), source };
    this.watch = w;
    for (const name of FRAME_NAMES) {
      source.addEventListener(name, (e) => {
        const ev = e as MessageEvent<string>;
        let data: unknown;
        try {
          data = JSON.parse(ev.data);
        } catch {
          return;
        }
        this.onFrame(w, name, data, frameSeq(ev.lastEventId, streamId));
      });
    }
    source.addEventListener('error', () => {
      // CLOSED: the server refused the stream (404: it ended long ago, or never was); the stored session says
      // what happened. Otherwise the browser reconnects by itself.
      if (source.readyState === EventSource.CLOSED && this.watch === w) this.finish(w);
    });
  }

  private onFrame(w: Watch, name: string, data: unknown, seq: number | null): void {
    if (this.watch !== w) return;
    const before = w.state;
    w.state = reduceFrame(w.state, name, data, seq);
    if (w.state === before) return;
    w.view.update(w.state);
    if (name === 'title' && w.state.title) this.deps.applyTitle(w.state.sessionId, w.state.title);
    if (before.status === 'streaming' && w.state.status !== 'streaming') this.deps.changed();
    if (w.state.ended) this.finish(w);
  }

  /** The turn ended: the stored session, read from the server, replaces the live view. */
  private finish(w: Watch): void {
    const st = w.state;
    w.view.flush();
    w.source.close();
    this.watch = null;
    this.ended.add(st.streamId);
    remember(st.sessionId, null);
    this.outcomes.set(st.sessionId, {
      error: st.status === 'error' && st.error ? { type: st.error.type, hint: st.error.hint } : undefined,
      usage: usageLine(st.usage, st.tps) || undefined,
    });
    const onScreen = () => this.deps.current()?.session_id === st.sessionId;
    if (onScreen()) this.settling = { sessionId: st.sessionId, el: w.view.el };
    else w.view.el.remove();
    this.deps.changed();
    void api
      .session(st.sessionId)
      .then(
        ({ session }) => {
          this.unsettle(w.view.el);
          if (onScreen()) this.deps.show(session);
        },
        () => this.deps.refresh(st.sessionId),
      )
      .finally(() => this.unsettle(w.view.el));
  }

  /** The settling view `el` leaves the screen (its stored session is shown, or another session is). */
  private unsettle(el: HTMLElement): void {
    if (this.settling?.el !== el) return;
    this.settling = null;
    el.remove();
  }

  private close(): void {
    const w = this.watch;
    if (!w) return;
    w.source.close();
    w.view.el.remove();
    this.watch = null;
  }
}
