// Conversation turns: start one (POST /api/chat/start), watch its frames over an EventSource, stop it, and
// pick a running turn up again after a reload (the session names its active stream). The frames fold into
// the store's `turn` (chat-state.ts); the thread view draws it. This module writes the store, never the DOM.
import { api, ApiError, type ChatFrameName, type NewVersion, type SentAttachment, type Session } from './api.js';
import { frameSeq, initialTurn, reduceFrame, type TurnState, usageLine } from './chat-state.js';
import { activeStream, versionBase } from './message-rows.js';
import { offsetOf, SESSION_PAGE_ROWS, withTail } from './session-pages.js';
import type { AppState, Store, TurnOutcome } from './store.js';

/** Every event the stream sends (docs/API.md, chat frames): EventSource only delivers named events it listens to. */
const FRAME_NAMES = ['token', 'reasoning', 'tool', 'tool_complete', 'title', 'metering', 'done', 'apperror', 'cancel', 'context', 'answered_by', 'stream_end'] as const satisfies readonly ChatFrameName[];

/**
 * While the server is out of reach, how often the ended turn's stored rows are asked for again: a restart takes
 * a second or two, and one small read a second costs nothing while the page has nothing else to do.
 */
export const RESTART_RETRY_MS = 1000;

/** The read failed because the server is not there (no answer), or is stopping (its 503): it will be back. */
export function serverAway(err: unknown): boolean {
  return err instanceof ApiError && (err.status === 0 || err.status === 503);
}

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
      // what happened. Otherwise the browser reconnects by itself, with Last-Event-ID: the server is away
      // meanwhile, and the turn says so instead of looking stuck.
      if (this.source !== source) return;
      if (source.readyState === EventSource.CLOSED) this.finish(source, this.store.state.turn);
      else this.markRestarting(streamId, true);
    });
    source.addEventListener('open', () => {
      if (this.source === source) this.markRestarting(streamId, false);
    });
  }

  private onFrame(source: EventSource, name: string, data: unknown, seq: number | null): void {
    const before = this.store.state.turn;
    if (this.source !== source || !before) return;
    const folded = reduceFrame(before, name, data, seq);
    if (folded === before) return;
    // A frame arrived: the server is there.
    const turn = folded.restarting ? { ...folded, restarting: false } : folded;
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
    this.settle(turn);
  }

  /**
   * Replace the ended turn by its stored rows. While the server is away (stopped or restarting: the turn ended
   * with its `cancel` of a shutdown, or its stream dropped), the turn stays on screen as it was, saying so, and
   * the rows are asked for again until the server answers: the person's message and the partial reply never
   * vanish for the seconds of a restart.
   */
  private settle(turn: TurnState): void {
    const ours = (s: AppState) => s.turn?.streamId === turn.streamId;
    const settle = (s: AppState) => (ours(s) ? null : s.turn);
    // Its newest rows, put after the older ones held (session-pages.ts): a long conversation is not read whole again.
    api.sessionPage(turn.sessionId, SESSION_PAGE_ROWS).then(
      ({ session }) =>
        this.store.update((s) => (s.session?.session_id === turn.sessionId ? { session: withTail(s.session, session), turn: settle(s) } : { turn: settle(s) })),
      (err: unknown) => {
        // Another conversation was opened meanwhile: nothing of this turn is on screen to keep.
        if (!ours(this.store.state)) return;
        if (serverAway(err)) {
          this.markRestarting(turn.streamId, true);
          setTimeout(() => {
            if (ours(this.store.state)) this.settle(turn);
          }, RESTART_RETRY_MS);
          return;
        }
        this.store.update((s) => ({ turn: settle(s) }));
        this.deps.refresh(turn.sessionId);
      },
    );
  }

  /** The turn of stream `streamId` (still the store's) says the server is away, or no longer does. */
  private markRestarting(streamId: string, restarting: boolean): void {
    this.store.update((s) => (s.turn?.streamId === streamId && Boolean(s.turn.restarting) !== restarting ? { turn: { ...s.turn, restarting } } : {}));
  }

  /** Stop watching the store's turn (its session left the screen). */
  private close(): void {
    this.source?.close();
    this.source = null;
    this.store.update({ turn: null });
  }
}
