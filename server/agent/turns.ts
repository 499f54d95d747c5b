// The turn manager (docs/spec-notes.md, "Chat: browser side"): one turn at a time per session, a bound on turns
// across the server, the pending turn recorded before the agent is asked, upstream events numbered as frames
// for every listener and kept for replay, and the outcome (answer, failure, cancel) stored in the session.
// It knows nothing of HTTP: handlers/chat.ts serves its frames. Its shapes are in turn-shapes.ts, the rows it
// writes in turn-rows.ts, the recovery of a turn a crash cut off in turn-recover.ts.
import { randomBytes } from 'node:crypto';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { HttpError, ValueError } from '../core/errors.js';
import { log } from '../core/log.js';
import type { EventBus } from '../store/events.js';
import { messageText, sessionSummary, type Session, type SessionStore, type Message } from '../store/sessions.js';
import { lastExchangeStart } from '../store/messages.js';
import { branchForRegenerate } from '../store/versions.js';
import { refuseFullConversation, ROWS_PER_TURN } from '../store/caps.js';
import type * as wire from '../core/wire.js';
import { abortable, untilAborted } from './abortable.js';
import { Turn } from './turn.js';
import { answeredBy, clearPending, failureRow, now, pushRows, signed, stopRow } from './turn-rows.js';
import { StreamedBatches } from './streamed-batches.js';
import { CANCELLED_BY_STOP, CANCELLED_BY_USER, CANCELLED_TEXT, DISK_FULL_HINT, NO_AGENT, NO_AGENT_HINT, NOT_SAVED, NOT_SAVED_DISK_FULL, ACTIVE_STREAM, NOTHING_TO_REGENERATE, turnDeadlineText, TURN_DEADLINE_HINT } from './turn-texts.js';
import { RETRY_HINT } from './upstream-errors.js';
import { MAX_REPLY_BYTES, Reply } from './stream/reply.js';
import { AgentError, type AgentConfig, type StreamTurn, type TurnRequest } from './types.js';
import { DEFAULT_AGENT_TURN_MAX_MS } from '../settings/table.js';
import { BackgroundTitles } from './turn-title.js';
import { titleFrom, UNTITLED } from './title.js';
import { beginHermesTurn, markHermesAnswer, type HermesTurn } from './hermes-continuity.js';
import { toolTurn } from './tools/loop.js';
import { ChatRefusal, MESSAGE_REQUIRED, type BuildRequestInput, type StartInput, type StartResult, type TurnDependencies } from './turn-shapes.js';

export { ChatRefusal, MESSAGE_REQUIRED } from './turn-shapes.js';
export type { BuildRequestInput, FinishedReply, FrameListener, StartInput, StartResult, TurnDependencies } from './turn-shapes.js';
export { recoverInterruptedTurns } from './turn-recover.js';

/**
 * Turns running at once across the server. Each holds an upstream socket, its replay log (up to
 * REPLAY_MAX_BYTES) and a session write at its end; one person rarely runs more than a few conversations at
 * once, and the local model servers Satchel talks to (Ollama, llama.cpp, LM Studio) serve only a few requests
 * in parallel anyway, queueing the rest while the person waits with no sign of why.
 */
export const MAX_CONCURRENT_TURNS = 8;
/** Ended turns kept for replay (a tab that reloads right after the answer), oldest dropped first. */
export const ENDED_TURNS_KEPT = 16;
/** An ended turn is replayable for this long. */
export const ENDED_TURN_TTL_MS = 15 * 60_000;
/**
 * Milliseconds a turn may work through events the agent's socket has already buffered before it lets the event
 * loop serve other requests (one setImmediate). Small against the 50 ms a person notices, large against the
 * microseconds an event takes, so a model writing at its own pace never waits for it.
 */
export const TURN_SLICE_MS = 5;
/** 16 bytes = the 32 hex characters of a stream id. */
export const STREAM_ID_BYTES = 16;

export const TOO_MANY_TURNS = `Too many conversations are running (at most ${MAX_CONCURRENT_TURNS}); try again when one has finished`;

/** How a turn's conversation with the agent ended: the one value run() turns into frames and stored rows. */
type Answered = { kind: 'answered'; reply: Reply };
type TurnOutcome = Answered | { kind: 'failed'; reply: Reply; error: unknown } | { kind: 'cancelled'; reply: Reply; by: wire.StoppedBy };

export class TurnManager {
  private readonly active = new Map<string, Turn>();
  private readonly bySession = new Map<string, string>();
  /** Ended turns in the order they ended (a Map keeps insertion order): the first is the oldest. */
  private readonly ended = new Map<string, Turn>();
  private stopped = false;
  private readonly titles: BackgroundTitles;

  constructor(
    private readonly sessions: SessionStore,
    private readonly events: EventBus,
    private readonly deps: TurnDependencies,
  ) {
    this.titles = new BackgroundTitles(sessions, events, deps.streamTurn);
  }

  get activeCount(): number {
    return this.active.size;
  }

  /** A running or recently ended turn. */
  find(streamId: string): Turn | undefined {
    return this.active.get(streamId) ?? this.ended.get(streamId);
  }

  async start(input: StartInput): Promise<StartResult> {
    const { session, profile } = input;
    const sessionId = session.session_id;
    const running = this.bySession.get(sessionId);
    if (running) throw new ChatRefusal(409, ACTIVE_STREAM, { active_stream_id: running });
    const config = this.deps.loadConfig(input.connection ?? session.connection);
    if (!config) throw new ChatRefusal(503, NO_AGENT, { hint: NO_AGENT_HINT, action: 'agent_settings' });
    if (this.stopped) throw new HttpError(503, 'Satchel is shutting down');
    if (this.active.size >= MAX_CONCURRENT_TURNS) throw new HttpError(503, TOO_MANY_TURNS);

    const streamId = randomBytes(STREAM_ID_BYTES).toString('hex');
    const turn = new Turn(streamId, sessionId, profile);
    // Reserved before the first await: a second start for this session is refused even while this one writes.
    this.active.set(streamId, turn);
    this.bySession.set(sessionId, streamId);
    const startedAt = now();
    let before!: Session;
    let text = '';
    let attachments: wire.ChatAttachment[] = [];
    let hermes: HermesTurn | undefined;
    // The request's model, else the conversation's (POST /api/session/settings), else the agent settings' one.
    let model = input.model;
    let systemPrompt: string | undefined;
    try {
      // One write both drops the exchange being replaced and records the pending turn: a start that fails
      // (refused, not stored) leaves the session as it was.
      await this.sessions.update(sessionId, (s) => {
        let replaced: Message | undefined;
        if (input.regenerate) {
          const at = input.messageIndex ?? lastExchangeStart(s.messages);
          if (at < 0) throw new ValueError(NOTHING_TO_REGENERATE);
          const { kept, fork } = branchForRegenerate(s.messages, at);
          replaced = s.messages[at];
          s.messages = kept;
          // Carried by the turn's first stored row, whatever the outcome (turn-rows.ts pushRows).
          s._pending_versions = fork;
        }
        // Room for every row the turn may store (ROWS_PER_TURN): an accepted turn is never stored past the cap.
        refuseFullConversation(s, ROWS_PER_TURN);
        text = input.text ?? (replaced ? messageText(replaced) : '');
        attachments = input.attachments ?? (Array.isArray(replaced?.attachments) ? replaced.attachments : []);
        if (!text.trim() && attachments.length === 0) throw new ValueError(MESSAGE_REQUIRED);
        hermes = beginHermesTurn(s, config);
        // The conversation's model is its connection's: another connection for this turn takes its own.
        if (input.connection === undefined || input.connection === s.connection) model ??= s.model;
        systemPrompt = s.system_prompt;
        // The session as it is before the turn, for the request: a copy of its header and of its row lists. The
        // rows are the store's frozen ones, never changed in place, so they are shared, not copied: a deep copy
        // of a conversation of 10,000 messages (16 MB of text) cost tens of milliseconds at every turn's start.
        before = { ...s, messages: s.messages.slice(), attachments: s.attachments.slice() };
        s.active_stream_id = streamId;
        s.pending_user_message = text;
        s.pending_attachments = attachments;
        s.pending_started_at = startedAt;
      });
    } catch (err) {
      this.release(turn);
      throw err;
    }
    this.events.publish({ name: 'session_updated', profile, data: { session_id: sessionId } });
    turn.finished = this.run(turn, config, { session: before, config, text, attachments, model, systemPrompt, signal: turn.abort.signal, hermes }, startedAt).catch(
      (err: unknown) => log.error('a turn failed unexpectedly:', err),
    );
    return {
      stream_id: streamId,
      session_id: sessionId,
      pending_started_at: startedAt,
      title: before.title === UNTITLED && text.trim() ? titleFrom(text) : before.title,
    };
  }

  /**
   * What a turn of `text` and `attachments` would give the agent of the conversation now (POST /api/chat/context):
   * the request built as start() would build it, dry (nothing kept, indexed or transcribed), and only its report.
   */
  async previewContext(session: Session, text: string, attachments: wire.ChatAttachment[], signal: AbortSignal): Promise<wire.ContextReport | undefined> {
    const config = this.deps.loadConfig(session.connection);
    if (!config) throw new ChatRefusal(503, NO_AGENT, { hint: NO_AGENT_HINT, action: 'agent_settings' });
    // On a copy: deciding whether Hermes is in step marks the session it is given.
    const copy: Session = { ...session, messages: session.messages.slice() };
    const hermes = beginHermesTurn(copy, config);
    const request = await this.deps.buildRequest({ session: copy, config, text, attachments, systemPrompt: session.system_prompt, signal, hermes, dry: true });
    return request.report;
  }

  /** Cancel a running turn the caller may see; false when there is none. */
  cancel(streamId: string, profile: string): boolean {
    const turn = this.active.get(streamId);
    if (!turn || turn.profile !== profile || turn.abort.signal.aborted) return false;
    turn.endReason = { kind: 'user' };
    turn.abort.abort(new Error(CANCELLED_BY_USER));
    return true;
  }

  /** Server stop: every running turn is cancelled and stored; resolves once all are. */
  async stop(): Promise<void> {
    this.stopped = true;
    const titles = this.titles.stop(new Error(CANCELLED_BY_STOP));
    const running = [...this.active.values()];
    for (const turn of running) {
      turn.endReason ??= { kind: 'stop' };
      turn.abort.abort(new Error(CANCELLED_BY_STOP));
    }
    await Promise.all(running.map((t) => t.finished));
    await titles;
  }

  private release(turn: Turn): void {
    this.active.delete(turn.streamId);
    if (this.bySession.get(turn.sessionId) === turn.streamId) this.bySession.delete(turn.sessionId);
  }

  private retire(turn: Turn): void {
    this.release(turn);
    this.ended.set(turn.streamId, turn);
    while (this.ended.size > ENDED_TURNS_KEPT) this.ended.delete(this.ended.keys().next().value!);
    // The timer holds the id only: a turn the count bound evicts is let go now, not when its window would end.
    const { streamId } = turn;
    setTimeout(() => this.ended.delete(streamId), ENDED_TURN_TTL_MS).unref();
  }

  private async run(turn: Turn, config: AgentConfig, build: BuildRequestInput, startedAt: number): Promise<void> {
    const userRow: Message = { role: 'user', content: build.text, timestamp: startedAt, attachments: build.attachments };
    // The shown text kept as it streams, so a crash keeps it; dropped once the turn's own rows are stored.
    const streamed = new StreamedBatches(this.sessions, turn.sessionId, turn.streamId);
    const outcome = await this.converse(turn, config, build, streamed, userRow);
    try {
      switch (outcome.kind) {
        case 'answered':
          return await this.answered(turn, config, build, userRow, outcome);
        case 'failed':
          return await this.failed(turn, userRow, signed(outcome.reply.partialRows(), answeredBy(config, build.model)), outcome.error, answeredBy(config, build.model));
        case 'cancelled':
          return await this.cancelled(turn, userRow, signed(outcome.reply.partialRows(), answeredBy(config, build.model)), outcome.by);
      }
    } finally {
      await streamed.discard();
    }
  }

  /**
   * Asks the agent and reads its stream into a Reply until it ends, is cut, fails or is aborted (a cancel, the
   * stop, the turn deadline: one signal). Sends the live frames; stores nothing.
   */
  private async converse(turn: Turn, config: AgentConfig, build: BuildRequestInput, streamed: StreamedBatches, userRow: Message): Promise<TurnOutcome> {
    const t0 = performance.now();
    const reply = new Reply((event, data) => {
      turn.emit(event, data);
      streamed.shown(event, data);
    }, t0);
    const { signal } = turn.abort;
    // Who is asked, said before anything else (the reply's header shows it while it streams; issue 38, item 6).
    const by = answeredBy(config, build.model);
    if (by) turn.emit('answered_by', { ...by, session_id: turn.sessionId });
    // Keepalives and a trickle of tokens reset the idle timeout (upstream.ts); this one nothing resets.
    const turnMaxMs = config.turnMaxMs ?? DEFAULT_AGENT_TURN_MAX_MS;
    const deadline = setTimeout(() => {
      if (signal.aborted) return;
      turn.endReason = { kind: 'deadline' };
      turn.abort.abort(new AgentError('timeout', turnDeadlineText(turnMaxMs), TURN_DEADLINE_HINT));
    }, turnMaxMs);
    try {
      const request = await untilAborted(Promise.resolve(this.deps.buildRequest(build)), signal);
      // What the agent is given of the conversation's documents (issue 36): said at once, and kept on the user row
      // whatever the outcome (answer, failure, stop), so the chips say it after the turn too. A conversation with
      // no document and no workspace has nothing to report.
      if (request.report && (request.report.documents.length > 0 || request.report.workspace)) {
        userRow.context = request.report;
        turn.emit('context', { ...request.report, session_id: turn.sessionId });
      }
      // While the agent's socket has data buffered, each event resolves at once (microtasks), so a flooding agent
      // would keep the event loop from every other request. After TURN_SLICE_MS of work the turn steps aside for
      // one turn of the loop: another request waits at most that long.
      let sliceStart = performance.now();
      // Satchel's own tools, where the dialect and the connection take them, run in rounds inside (tools/loop.ts).
      for await (const event of abortable(toolTurn(this.deps, config, build, request, signal), signal)) {
        if (performance.now() - sliceStart >= TURN_SLICE_MS) {
          await nextMacrotask();
          sliceStart = performance.now();
        }
        // A cut reply is read no further: leaving the loop returns the upstream iterator, which destroys the request.
        if (!reply.add(event)) break;
      }
      signal.throwIfAborted();
      return { kind: 'answered', reply };
    } catch (err) {
      // A deadline aborts like a cancel (the request destroyed at once) but is a failure the person should read.
      const reason = turn.endReason?.kind;
      if (signal.aborted && reason !== 'deadline') return { kind: 'cancelled', reply, by: reason === 'stop' ? 'shutdown' : 'user' };
      return { kind: 'failed', reply, error: reason === 'deadline' ? signal.reason : err };
    } finally {
      clearTimeout(deadline);
      reply.flush();
      await streamed.close();
    }
  }

  /** The answer stored with the user row, the session titled if it had none; then done, metering, title. */
  private async answered(turn: Turn, config: AgentConfig, build: BuildRequestInput, userRow: Message, { reply }: Answered): Promise<void> {
    if (reply.cut) log.warn(`an agent reply was cut at its bound (${MAX_REPLY_BYTES / (1024 * 1024)} MiB of text or tool-call arguments)`);
    const by = answeredBy(config, build.model);
    const answer: Message = by ? { ...reply.row(), answered_by: by } : reply.row();
    markHermesAnswer(answer, build.hermes, reply.cut);
    let titled: string | undefined;
    let firstMessage = '';
    let stored: Session;
    try {
      stored = await this.sessions.update(turn.sessionId, (s) => {
        pushRows(s, [userRow, answer]);
        clearPending(s);
        if (s.title === UNTITLED) {
          const first = s.messages.find((m) => m.role === 'user' && messageText(m).trim());
          firstMessage = first ? messageText(first) : '';
          const title = titleFrom(firstMessage);
          if (title) titled = s.title = title;
        }
      });
    } catch (err) {
      // The answer was complete but could not be stored (a full disk): said as an error, the pending turn kept.
      const full = err instanceof HttpError && err.status === 507;
      if (!full) log.error('could not store a turn:', err);
      const [message, hint] = full ? [NOT_SAVED_DISK_FULL, DISK_FULL_HINT] : [NOT_SAVED, RETRY_HINT];
      turn.emit('apperror', { message, type: 'upstream_error', hint, action: 'retry', session_id: turn.sessionId });
      this.close(turn);
      return;
    }
    this.publish(turn, titled);
    try {
      this.deps.onReplyFinished?.({ session_id: turn.sessionId, profile: turn.profile, title: stored.title });
    } catch (err) {
      log.warn('the reply-finished hook failed:', err);
    }
    const { usage, durationSeconds } = reply;
    const chatUsage = reply.chatUsage();
    turn.emit('done', { session: sessionSummary(stored), usage: chatUsage });
    if (usage && usage.outputTokens > 0 && durationSeconds > 0) {
      turn.emit('metering', { tps: Math.round((usage.outputTokens / durationSeconds) * 10) / 10, usage: chatUsage });
    }
    if (titled !== undefined) turn.emit('title', { session_id: turn.sessionId, title: titled });
    this.close(turn);
    if (titled !== undefined) {
      const { sessionId, profile } = turn;
      this.titles.ask(config, { sessionId, profile, derived: titled, firstMessage, reply: reply.content, model: build.model });
    }
  }

  /** Settles once every title request running now has ended (tests wait on it). */
  async titlesSettled(): Promise<void> {
    await this.titles.settled();
  }

  private async cancelled(turn: Turn, userRow: Message, partial: Message[], by: wire.StoppedBy): Promise<void> {
    await this.store(turn, [userRow, ...partial, stopRow(by)]);
    turn.emit('cancel', { message: CANCELLED_TEXT[by], type: 'cancelled', status: 'cancelled', stopped_by: by, session_id: turn.sessionId });
    this.close(turn);
  }

  private async failed(turn: Turn, userRow: Message, partial: Message[], err: unknown, by: wire.AnsweredBy | undefined): Promise<void> {
    const failure =
      err instanceof AgentError ? err : (log.error('the agent turn failed:', err), new AgentError('upstream_error', 'The agent request failed unexpectedly.', RETRY_HINT));
    const [row] = signed([failureRow(failure)], by) as [Message];
    await this.store(turn, [userRow, ...partial, row]);
    turn.emit('apperror', { message: failure.message, type: failure.type, hint: row.error_hint, ...(row.error_action ? { action: row.error_action } : {}), session_id: turn.sessionId });
    this.close(turn);
  }

  /** Stores the rows of a turn that failed or was cancelled; a failure to store is logged, the frames still go. */
  private async store(turn: Turn, rows: Message[]): Promise<void> {
    try {
      await this.sessions.update(turn.sessionId, (s) => {
        pushRows(s, rows);
        clearPending(s);
      });
      this.publish(turn, undefined);
    } catch (err) {
      log.warn('could not store a turn that did not finish:', err);
    }
  }

  private publish(turn: Turn, title: string | undefined): void {
    this.events.publish({ name: 'session_updated', profile: turn.profile, data: { session_id: turn.sessionId } });
    if (title !== undefined) this.events.publish({ name: 'session_renamed', profile: turn.profile, data: { session_id: turn.sessionId, title } });
  }

  private close(turn: Turn): void {
    turn.emit('stream_end', { session_id: turn.sessionId });
    this.retire(turn);
    turn.end();
  }
}
