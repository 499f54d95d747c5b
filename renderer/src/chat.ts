// Conversation turns: start one (POST /api/chat/start), watch its frames over an EventSource, stop it, and
// pick a running turn up again after a reload (the session names its active stream). The frames fold into
// the store's `turn` (chat-state.ts); the thread view draws it. This module writes the store, never the DOM.
import { api, type ChatFrameName, type NewVersion, type SentAttachment, type Session } from './api.js';
import { frameSeq, initialTurn, reduceFrame, type TurnState, usageLine } from './chat-state.js';
import { activeStream, versionBase } from './message-rows.js';
import { offsetOf, SESSION_PAGE_ROWS, withTail } from './session-pages.js';
import type { AppState, Store, TurnOutcome } from './store.js';

/** Every event the stream sends (docs/API.md, chat frames): EventSource only delivers named events it listens to. */
const FRAME_NAMES = ['token', 'reasoning', 'tool', 'tool_complete', 'title', 'metering', 'done', 'apperror', 'cancel', 'context', 'stream_end'] as const satisfies readonly ChatFrameName[];

export interface ChatDeps {
  /** The stored session could not be read after its turn ended: read it again when it is on screen. */
  refresh(sessionId: string): void;
  applyTitle(sessionId: string, title: string): void;
}

function outcomeOf(turn: TurnState): TurnOutcome {
  return {
    sessionId: turn.sessionId,
    usage: usageLine(turn.usage, turn.tps) || undefined,
  };
}

/**
 * The stream's address. No `after_seq`: a fresh stream replays the turn from its first frame (a reload draws
 * it again from its first token), and when the connection drops the browser reconnects by itself with
 * `Last-Event-ID` (the id of the last frame it received), which the server honours only when the address
 * names no resume point. So a reconnect resumes after the last frame received instead of replaying the
 * turn from the start (up to the server's 2 MiB replay log).
 */
export function streamUrl(streamId: string): string {
  return `/api/chat/stream?${new URLSearchParams({ stream_id: streamId })}`;
}

export class Chat {
  /** The stream of the store's turn while it runs: at most one, the turn of the session on screen. */
  private source: EventSource | null = null;
  /** Streams this page saw end: a session still naming one (its answer could not be stored) is not replayed again. */
  private readonly ended = new Set<string>();

  constructor(
    private readonly store: Store<AppState>,
    private readonly deps: ChatDeps,
  ) {
    store.subscribe((state, previous) => {
      if (state.session !== previous.session) this.attach(state.session);
    });
  }

  /**
   * Start a turn. `regenerate` (as docs/API.md names it): the turn makes a new version of the conversation from
   * the last message of the person's on, or from the one at `messageIndex` (Edit); the server keeps the old one.
   */
  async start(sessionId: string, text: string, attachments: SentAttachment[], opts: NewVersion = {}): Promise<void> {
    const started = await api.startChat(sessionId, text, attachments, opts);
    if (!('stream_id' in started)) return; // a silent control message: nothing runs
    this.follow(started.stream_id, sessionId, text, attachments, (s) => {
      if (!opts.regenerate) return {};
      // The server set the replaced version aside; the thread does too, so only the new one shows while it streams.
      const shown = s.session?.session_id === sessionId ? s.session : null;
      const at = opts.messageIndex === undefined ? undefined : Math.max(0, opts.messageIndex - offsetOf(shown));
      return { session: shown ? { ...shown, messages: versionBase(shown.messages, at) } : s.session };
    });
  }

  /** Show another version of the conversation from the message at `index` on (‹ › on a message). */
  async showVersion(sessionId: string, index: number, version: number): Promise<void> {
    const { session } = await api.showVersion(sessionId, index, version);
    this.store.update((s) => (s.session?.session_id === sessionId ? { session } : {}));
  }

  async stop(): Promise<void> {
    const turn = this.store.state.turn;
    if (turn && turn.status === 'streaming') await api.cancelChat(turn.streamId);
  }

  /**
   * Another session (or a newer copy of this one) is on screen: a turn of another session is no longer
   * watched, and a turn that runs without this page watching it (a reload, another window) is picked up by
   * replaying it from its first frame.
   */
  private attach(session: Session | null): void {
    const state = this.store.state;
    if (state.turn && state.turn.sessionId !== session?.session_id) this.close();
    if (!session || this.store.state.turn) return;
    const id = activeStream(session);
    if (id && !this.ended.has(id)) this.follow(id, session.session_id, session.pending_user_message ?? '', session.pending_attachments ?? []);
  }

  private follow(streamId: string, sessionId: string, userText: string, attachments: readonly SentAttachment[], also: (s: AppState) => Partial<AppState> = () => ({})): void {
    this.source?.close();
    const source = new EventSource(streamUrl(streamId));
    this.source = source;
    const turn = initialTurn(streamId, sessionId, userText, attachments);
    this.store.update((s) => ({ ...also(s), turn, outcome: s.outcome?.sessionId === sessionId ? null : s.outcome }));
    for (const name of FRAME_NAMES) {
      source.addEventListener(name, (e) => {
        const ev = e as MessageEvent<string>;
        let data: unknown;
        try {
          data = JSON.parse(ev.data);
        } catch {
          return;
        }
        this.onFrame(source, name, data, frameSeq(ev.lastEventId, streamId));
      });
    }
    source.addEventListener('error', () => {
      // CLOSED: the server refused the stream (404: it ended long ago, or never was); the stored session says
      // what happened. Otherwise the browser reconnects by itself, with Last-Event-ID.
      if (source.readyState === EventSource.CLOSED && this.source === source) this.finish(source, this.store.state.turn);
    });
  }

  private onFrame(source: EventSource, name: string, data: unknown, seq: number | null): void {
    const before = this.store.state.turn;
    if (this.source !== source || !before) return;
    const turn = reduceFrame(before, name, data, seq);
    if (turn === before) return;
    this.store.update({ turn });
    if (name === 'title' && turn.title) this.deps.applyTitle(turn.sessionId, turn.title);
    if (turn.ended) this.finish(source, turn);
  }

  /**
   * The turn ended. It stays on screen as it is until the stored session replaces it: `done` carries only the
   * session's summary (a reply may be megabytes), so the session is read once, after it, and shown once.
   */
  private finish(source: EventSource, turn: TurnState | null): void {
    source.close();
    this.source = null;
    if (!turn) return;
    this.ended.add(turn.streamId);
    const ended = turn.status === 'streaming' ? { ...turn, status: 'done' as const, ended: true } : turn;
    this.store.update({ turn: ended, outcome: outcomeOf(turn) });
    const settle = (s: AppState) => (s.turn?.streamId === turn.streamId ? null : s.turn);
    // Its newest rows, put after the older ones held (session-pages.ts): a long conversation is not read whole again.
    api.sessionPage(turn.sessionId, SESSION_PAGE_ROWS).then(
      ({ session }) =>
        this.store.update((s) => (s.session?.session_id === turn.sessionId ? { session: withTail(s.session, session), turn: settle(s) } : { turn: settle(s) })),
      () => {
        this.store.update((s) => ({ turn: settle(s) }));
        this.deps.refresh(turn.sessionId);
      },
    );
  }

  /** Stop watching the store's turn (its session left the screen). */
  private close(): void {
    this.source?.close();
    this.source = null;
    this.store.update({ turn: null });
  }
}
