// The turn manager (docs/spec-notes.md, "Chat: browser side"): one turn at a time per session, a bound on turns
// across the server, the pending turn recorded before the agent is asked, upstream events numbered as frames
// for every listener and kept for replay, and the outcome (answer, failure, cancel) stored in the session.
// It knows nothing of HTTP: handlers/chat.ts serves its frames.
import { randomBytes } from 'node:crypto';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { HttpError, ValueError } from '../errors.js';
import { log } from '../log.js';
import type { EventBus } from '../store/events.js';
import { messageText, sessionSummary, MAX_MESSAGES_PER_SESSION, type Session, type SessionStore, type Message } from '../store/sessions.js';
import { lastExchangeStart } from '../store/messages.js';
import type * as wire from '../wire.js';
import { abortable } from './abortable.js';
import type { RedactedText, TurnFrames } from '../projections/index.js';
import { FrameLog, formatFrame } from './frames.js';
import { AgentError, type AgentConfig, type StreamTurn, type ToolCall, type TurnRequest } from './types.js';
import { prefixWithinBytes } from './upstream.js';
import { DEFAULT_AGENT_TURN_MAX_MS, SETTINGS } from '../settings/table.js';
import { ReplyRedactor } from './reply-redact.js';
import { maskKnown } from '../redact/known.js';
import { askTitle, TITLE_DEADLINE_MS, titleFrom, UNTITLED } from './title.js';

export { TITLE_MAX_CHARS, titleFrom, UNTITLED } from './title.js';

/**
 * Turns running at once across the server. Each holds an upstream socket, its replay log (up to
 * REPLAY_MAX_BYTES) and a session write at its end; one person rarely runs more than a few conversations at
 * once, and the local model servers Satchel talks to (Ollama, llama.cpp, LM Studio) serve only a few requests
 * in parallel anyway, queueing the rest while the person waits with no sign of why.
 */
export const MAX_CONCURRENT_TURNS = 8;
/**
 * Title requests in the background at once. Each holds an upstream socket outside MAX_CONCURRENT_TURNS, and a
 * burst of new conversations must not double the load on a local model server; past this, the derived title
 * simply stays.
 */
export const MAX_CONCURRENT_TITLES = 2;
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

/**
 * UTF-8 bytes of text one reply may bring, its content and reasoning together. A long answer is some tens of
 * KiB; this leaves a hundred times that, while a reply of 400 MB (issue 21) became a 400 MB session file that
 * took 2 GB of memory and 6.8 s to load at every start. Past it the rest is not read: the reply is cut, ends
 * with REPLY_CUT_MARKER and is stored as an answer, and the upstream request is closed.
 */
export const MAX_REPLY_BYTES = 4 * 1024 * 1024;
const MIB = 1024 * 1024;
/** Appended (as the last `token` frame and in the stored answer) to a reply cut at MAX_REPLY_BYTES. */
export const REPLY_CUT_MARKER = `\n\n…[reply cut by Satchel at ${MAX_REPLY_BYTES / MIB} MiB]`;
/** Text of the marker when the tool-call arguments were cut (upstream.ts MAX_TOOL_ARGUMENT_BYTES). */
export function toolArgumentsCutMarker(limitBytes: number): string {
  return `\n\n…[tool-call arguments cut by Satchel at ${limitBytes / MIB} MiB]`;
}

/** "30 min", "90 s", "1.5 s": a turn deadline as the error says it. */
export function durationText(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 100) / 10} s`;
}
/** The error of a turn past SATCHEL_AGENT_TURN_MAX_MS (its `apperror` frame and the stored `**Error:**` row). */
export function turnDeadlineText(ms: number): string {
  return `The agent did not finish within ${durationText(ms)}`;
}
export const TURN_DEADLINE_HINT = `Ask for less in one turn, or raise ${SETTINGS.agentTurnMaxMs.env}.`;

export const NO_AGENT = 'No agent is configured';
export const NO_AGENT_HINT =
  'Set one in Settings → Agent, or start Satchel with SATCHEL_AGENT_BASE_URL (and SATCHEL_AGENT_API_KEY, SATCHEL_AGENT_MODEL).';
export const ACTIVE_STREAM = 'session already has an active stream';
export const TOO_MANY_TURNS = `Too many conversations are running (at most ${MAX_CONCURRENT_TURNS}); try again when one has finished`;
export const CANCELLED_BY_USER = 'Cancelled by user';
export const CANCELLED_BY_STOP = 'Satchel stopped while the agent was answering';
export const NOTHING_TO_REGENERATE = 'Nothing to regenerate: the session has no message';
export const MESSAGE_REQUIRED = 'message is required';
export const INTERRUPTED_TEXT = '**Interrupted:** Satchel stopped before the agent finished answering. Send the message again to try once more.';

/** A refusal with fields beside `error` (409's `active_stream_id`, 503's `hint`). */
export class ChatRefusal extends HttpError {
  constructor(
    status: number,
    message: string,
    readonly extra: Record<string, string>,
  ) {
    super(status, message);
    this.name = 'ChatRefusal';
  }
}

export interface BuildRequestInput {
  /** The session as stored before this turn (its messages do not hold the new user row yet). */
  session: Session;
  config: AgentConfig;
  text: string;
  attachments: wire.ChatAttachment[];
  model?: string;
  signal: AbortSignal;
}

export interface TurnDependencies {
  streamTurn: StreamTurn;
  /** Read at each start, so a changed setting applies to the next turn. */
  loadConfig: () => AgentConfig | undefined;
  buildRequest: (input: BuildRequestInput) => TurnRequest | Promise<TurnRequest>;
}

/** One watcher of a stream: gets each frame's text, then `end` once nothing more will come. */
export interface FrameListener {
  frame(text: string): void;
  end(): void;
}

/** The frames of the reply as it streams; every other frame says the turn's outcome (kept for every resume). */
const STREAMED_FRAMES: ReadonlySet<wire.ChatFrameName> = new Set(['token', 'reasoning', 'tool', 'tool_complete']);

type EndReason = { kind: 'user' } | { kind: 'stop' } | { kind: 'deadline' };

function now(): number {
  return Date.now() / 1000;
}

/**
 * The assistant row of what the agent sent, as it is stored: its own key masked in every field it wrote (a
 * hostile or broken agent may echo it anywhere, and the session file is read back by MCP clients and
 * exports), everything else stored whole and redacted on the way out.
 */
function agentRow(content: string, reasoning: string, toolCalls: readonly ToolCall[]): Message {
  return {
    role: 'assistant',
    content: maskKnown(content),
    timestamp: now(),
    ...(reasoning ? { reasoning: maskKnown(reasoning) } : {}),
    ...(toolCalls.length
      ? { tool_calls: toolCalls.map((c) => ({ id: maskKnown(c.id), function: { name: maskKnown(c.function.name), arguments: maskKnown(c.function.arguments) } })) }
      : {}),
  };
}

function clearPending(s: Session): void {
  delete s.active_stream_id;
  delete s.pending_user_message;
  delete s.pending_attachments;
  delete s.pending_started_at;
}

function pushRows(s: Session, rows: Message[]): void {
  // The cap counts rows already there: a turn's own rows always fit, so a full session still records why.
  if (s.messages.length >= MAX_MESSAGES_PER_SESSION) log.warn('session over its message cap; storing the turn anyway');
  s.messages.push(...rows);
}

export class Turn {
  readonly log = new FrameLog();
  private readonly listeners = new Set<FrameListener>();
  ended = false;
  readonly abort = new AbortController();
  endReason: EndReason | undefined;
  /** Settles when the turn's outcome is stored and its frames are out. */
  finished: Promise<void> = Promise.resolve();

  constructor(
    readonly streamId: string,
    readonly sessionId: string,
    readonly profile: string,
  ) {}

  emit<N extends wire.ChatFrameName>(event: N, data: TurnFrames[N]): void {
    const seq = this.log.lastSeq + 1;
    const frame = { seq, text: formatFrame(this.streamId, seq, event, data), outcome: !STREAMED_FRAMES.has(event) };
    this.log.push(frame);
    for (const listener of this.listeners) listener.frame(frame.text);
  }

  end(): void {
    this.ended = true;
    for (const listener of this.listeners) listener.end();
    this.listeners.clear();
  }

  /**
   * Replay every kept frame after `afterSeq`, then follow live. Synchronous from replay to registration, so no
   * frame can fall between the two (no gap) or reach the listener twice (no duplicate). Returns the unsubscribe.
   */
  follow(afterSeq: number, listener: FrameListener): () => void {
    for (const frame of this.log.after(afterSeq)) listener.frame(frame.text);
    if (this.ended) {
      listener.end();
      return () => {};
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

export interface StartInput {
  session: Session;
  profile: string;
  /** Undefined with `regenerate`: the dropped user row's text. */
  text?: string;
  /** Undefined with `regenerate`: the dropped user row's attachments; otherwise none. */
  attachments?: wire.ChatAttachment[];
  model?: string;
  /** Replace the last exchange (its user row and every row after it) instead of adding one. */
  regenerate?: boolean;
}

export interface StartResult {
  stream_id: string;
  session_id: string;
  pending_started_at: number;
  title: string;
}

export class TurnManager {
  private readonly active = new Map<string, Turn>();
  private readonly bySession = new Map<string, string>();
  /** Ended turns in the order they ended (a Map keeps insertion order): the first is the oldest. */
  private readonly ended = new Map<string, Turn>();
  private stopped = false;
  /** Title requests in the background: aborted and waited for at stop, so none writes after it. */
  private readonly titling = new Map<AbortController, Promise<void>>();

  constructor(
    private readonly sessions: SessionStore,
    private readonly events: EventBus,
    private readonly deps: TurnDependencies,
  ) {}

  get activeCount(): number {
    return this.active.size;
  }

  /** A running or recently ended turn. */
  find(streamId: string): Turn | undefined {
    return this.active.get(streamId) ?? this.ended.get(streamId);
  }

  async start(input: StartInput): Promise<StartResult> {
    const { session, profile, model } = input;
    const sessionId = session.session_id;
    const running = this.bySession.get(sessionId);
    if (running) throw new ChatRefusal(409, ACTIVE_STREAM, { active_stream_id: running });
    const config = this.deps.loadConfig();
    if (!config) throw new ChatRefusal(503, NO_AGENT, { hint: NO_AGENT_HINT });
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
    try {
      // One write both drops the exchange being replaced and records the pending turn: a start that fails
      // (refused, not stored) leaves the session as it was.
      await this.sessions.update(sessionId, (s) => {
        let replaced: Message | undefined;
        if (input.regenerate) {
          const at = lastExchangeStart(s.messages);
          if (at < 0) throw new ValueError(NOTHING_TO_REGENERATE);
          replaced = s.messages[at];
          s.messages.splice(at);
        }
        text = input.text ?? (replaced ? messageText(replaced) : '');
        attachments = input.attachments ?? (Array.isArray(replaced?.attachments) ? replaced.attachments : []);
        if (!text.trim() && attachments.length === 0) throw new ValueError(MESSAGE_REQUIRED);
        before = structuredClone(s);
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
    turn.finished = this.run(turn, config, { session: before, config, text, attachments, model, signal: turn.abort.signal }, startedAt).catch(
      (err: unknown) => log.error('a turn failed unexpectedly:', err),
    );
    return {
      stream_id: streamId,
      session_id: sessionId,
      pending_started_at: startedAt,
      title: before.title === UNTITLED && text.trim() ? titleFrom(text) : before.title,
    };
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
    for (const controller of this.titling.keys()) controller.abort(new Error(CANCELLED_BY_STOP));
    const running = [...this.active.values()];
    for (const turn of running) {
      turn.endReason ??= { kind: 'stop' };
      turn.abort.abort(new Error(CANCELLED_BY_STOP));
    }
    await Promise.all(running.map((t) => t.finished));
    await Promise.all(this.titling.values());
  }

  private release(turn: Turn): void {
    this.active.delete(turn.streamId);
    if (this.bySession.get(turn.sessionId) === turn.streamId) this.bySession.delete(turn.sessionId);
  }

  private retire(turn: Turn): void {
    this.release(turn);
    this.ended.set(turn.streamId, turn);
    while (this.ended.size > ENDED_TURNS_KEPT) this.ended.delete(this.ended.keys().next().value!);
    setTimeout(() => this.ended.delete(turn.streamId), ENDED_TURN_TTL_MS).unref();
  }

  private async run(turn: Turn, config: AgentConfig, build: BuildRequestInput, startedAt: number): Promise<void> {
    const t0 = performance.now();
    let ttftMs: number | null = null;
    let content = '';
    let reasoning = '';
    let toolCalls: ToolCall[] = [];
    let usage = { inputTokens: 0, outputTokens: 0 };
    const userRow: Message = { role: 'user', content: build.text, timestamp: startedAt, attachments: build.attachments };
    // Live pieces are redacted as a stream, so a credential split across tokens is masked too (the stored
    // answer is redacted whole on the way out; the agent's own key never reaches the store: agentRow).
    const shownContent = new ReplyRedactor();
    const shownReasoning = new ReplyRedactor();
    const emitPiece = (event: 'token' | 'reasoning', text: RedactedText): void => {
      if (text) turn.emit(event, { text });
    };
    const flushPieces = (): void => {
      emitPiece('token', shownContent.flush());
      emitPiece('reasoning', shownReasoning.flush());
    };
    const partialRow = (): Message[] =>
      content || reasoning || toolCalls.length > 0 ? [{ ...agentRow(content, reasoning, toolCalls), _partial: true }] : [];
    // What is left of MAX_REPLY_BYTES. A piece that does not fit is cut to what does, and the reply ends there.
    let replyBytesLeft = MAX_REPLY_BYTES;
    let cut = false;
    const withinReply = (text: string): string => {
      const bytes = Buffer.byteLength(text, 'utf8');
      if (bytes <= replyBytesLeft) {
        replyBytesLeft -= bytes;
        return text;
      }
      cut = true;
      const kept = prefixWithinBytes(text, replyBytesLeft);
      replyBytesLeft = 0;
      return kept;
    };
    const endWithMarker = (marker: string): void => {
      // The reasoning's held tail goes out first, then the content's, then the marker after the content.
      emitPiece('reasoning', shownReasoning.flush());
      content += marker;
      emitPiece('token', shownContent.push(marker));
    };
    // Keepalives and a trickle of tokens reset the idle timeout (upstream.ts); this one nothing resets.
    const turnMaxMs = config.turnMaxMs ?? DEFAULT_AGENT_TURN_MAX_MS;
    const deadline = setTimeout(() => {
      if (turn.abort.signal.aborted) return;
      turn.endReason = { kind: 'deadline' };
      turn.abort.abort(new AgentError('timeout', turnDeadlineText(turnMaxMs), TURN_DEADLINE_HINT));
    }, turnMaxMs);
    try {
      const request = await this.deps.buildRequest(build);
      // While the agent's socket has data buffered, each event resolves at once (microtasks), so a flooding agent
      // would keep the event loop from every other request. After TURN_SLICE_MS of work the turn steps aside for
      // one turn of the loop: another request waits at most that long.
      let sliceStart = performance.now();
      reading: for await (const event of abortable(this.deps.streamTurn(config, request, turn.abort.signal), turn.abort.signal)) {
        if (performance.now() - sliceStart >= TURN_SLICE_MS) {
          await nextMacrotask();
          sliceStart = performance.now();
        }
        switch (event.kind) {
          case 'token':
          case 'reasoning': {
            ttftMs ??= Math.round(performance.now() - t0);
            const text = withinReply(event.text);
            if (event.kind === 'token') {
              content += text;
              emitPiece('token', shownContent.push(text));
            } else {
              reasoning += text;
              emitPiece('reasoning', shownReasoning.push(text));
            }
            if (cut) {
              endWithMarker(REPLY_CUT_MARKER);
              // Leaving the loop returns the upstream iterator, which destroys the request (upstream.ts).
              break reading;
            }
            break;
          }
          case 'cut':
            cut = true;
            endWithMarker(toolArgumentsCutMarker(event.limitBytes));
            break reading;
          case 'tool':
            turn.emit('tool', { event_type: 'tool.started', name: event.name, preview: event.preview, args: event.args, tid: event.tid });
            break;
          case 'tool_complete':
            turn.emit('tool_complete', {
              event_type: 'tool.completed',
              name: event.name,
              preview: event.preview,
              args: event.args,
              tid: event.tid,
              duration: event.duration,
              is_error: event.isError,
            });
            break;
          case 'tool_calls':
            toolCalls = event.calls;
            break;
          case 'usage':
            usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens };
            break;
        }
      }
      if (turn.abort.signal.aborted) throw turn.abort.signal.reason;
      flushPieces();
    } catch (err) {
      flushPieces();
      // A deadline aborts like a cancel (the request destroyed at once) but is a failure the person should read.
      if (turn.abort.signal.aborted && turn.endReason?.kind !== 'deadline') await this.finishCancelled(turn, userRow, partialRow());
      else await this.finishFailed(turn, userRow, partialRow(), turn.endReason?.kind === 'deadline' ? turn.abort.signal.reason : err);
      return;
    } finally {
      clearTimeout(deadline);
    }
    if (cut) log.warn(`an agent reply was cut at its bound (${MAX_REPLY_BYTES / MIB} MiB of text or tool-call arguments)`);
    const durationSeconds = (performance.now() - t0) / 1000;
    const answer = agentRow(content, reasoning, toolCalls);
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
      this.endWithError(turn, err);
      return;
    }
    this.publish(turn, titled);
    const chatUsage: wire.ChatUsage = {
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      duration_seconds: Math.round(durationSeconds * 1000) / 1000,
      ttft_ms: ttftMs,
    };
    turn.emit('done', { session: sessionSummary(stored), usage: chatUsage });
    if (usage.outputTokens > 0 && durationSeconds > 0) {
      turn.emit('metering', { tps: Math.round((usage.outputTokens / durationSeconds) * 10) / 10, usage: chatUsage });
    }
    if (titled !== undefined) turn.emit('title', { session_id: turn.sessionId, title: titled });
    this.close(turn);
    if (titled !== undefined && !this.stopped && this.titling.size < MAX_CONCURRENT_TITLES) this.titleInBackground(turn, config, titled, { firstMessage, reply: content, model: build.model });
  }

  /**
   * Ask the agent for a better title than the derived one. Never waited for by the turn (its `title` frame
   * carried the derived title already); the answer lands only while the session still has the derived title,
   * so a rename by the person in the meantime wins. Any failure keeps the derived title.
   */
  private titleInBackground(turn: Turn, config: AgentConfig, derived: string, input: { firstMessage: string; reply: string; model?: string }): void {
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(new AgentError('timeout', `No title within ${TITLE_DEADLINE_MS / 1000} s`)), TITLE_DEADLINE_MS);
    deadline.unref();
    const task = (async () => {
      const title = await askTitle(this.deps.streamTurn, config, input, controller.signal);
      if (!title || title === derived) return;
      let renamed = false;
      await this.sessions.update(turn.sessionId, (s) => {
        if (s.title !== derived) return;
        s.title = title;
        renamed = true;
      });
      if (renamed) this.events.publish({ name: 'session_renamed', profile: turn.profile, data: { session_id: turn.sessionId, title } });
    })()
      .catch((err: unknown) => log.debug('the agent gave no title; the one from the first message stays:', err instanceof Error ? err.message : err))
      .finally(() => {
        clearTimeout(deadline);
        this.titling.delete(controller);
      });
    this.titling.set(controller, task);
  }

  /** Settles once every title request running now has ended (tests wait on it). */
  async titlesSettled(): Promise<void> {
    await Promise.all(this.titling.values());
  }

  private async finishCancelled(turn: Turn, userRow: Message, partial: Message[]): Promise<void> {
    const message = turn.endReason?.kind === 'stop' ? CANCELLED_BY_STOP : CANCELLED_BY_USER;
    const note: Message = { role: 'assistant', content: `**Task cancelled:** ${message}`, timestamp: now(), _error: true };
    try {
      await this.store(turn, [userRow, ...partial, note]);
    } catch (err) {
      log.warn('could not store a cancelled turn:', err);
    }
    turn.emit('cancel', { message, type: 'cancelled', status: 'cancelled', session_id: turn.sessionId });
    this.close(turn);
  }

  private async finishFailed(turn: Turn, userRow: Message, partial: Message[], err: unknown): Promise<void> {
    const failure =
      err instanceof AgentError ? err : (log.error('the agent turn failed:', err), new AgentError('upstream_error', 'The agent request failed unexpectedly'));
    const note: Message = { role: 'assistant', content: `**Error:** ${failure.message}`, timestamp: now(), _error: true };
    try {
      await this.store(turn, [userRow, ...partial, note]);
    } catch (storeErr) {
      log.warn('could not store a failed turn:', storeErr);
    }
    turn.emit('apperror', {
      message: failure.message,
      type: failure.type,
      ...(failure.hint ? { hint: failure.hint } : {}),
      session_id: turn.sessionId,
    });
    this.close(turn);
  }

  /** The answer was complete but could not be stored (a full disk): said as an error, the pending turn kept. */
  private endWithError(turn: Turn, err: unknown): void {
    const message = err instanceof HttpError ? err.message : 'The answer could not be saved';
    if (!(err instanceof HttpError)) log.error('could not store a turn:', err);
    turn.emit('apperror', { message, type: 'upstream_error', session_id: turn.sessionId });
    this.close(turn);
  }

  private async store(turn: Turn, rows: Message[]): Promise<void> {
    await this.sessions.update(turn.sessionId, (s) => {
      pushRows(s, rows);
      clearPending(s);
    });
    this.publish(turn, undefined);
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

/**
 * At start: a session still holding a pending turn was being answered when Satchel stopped without storing it
 * (a crash, a kill). What the person sent is kept as the user row, followed by an `_error` row saying so.
 */
export async function recoverInterruptedTurns(sessions: SessionStore): Promise<number> {
  const stale = sessions.list().filter((s) => typeof s.active_stream_id === 'string');
  for (const session of stale) {
    await sessions
      .update(session.session_id, (s) => {
        const text = typeof s.pending_user_message === 'string' ? s.pending_user_message : '';
        const attachments = Array.isArray(s.pending_attachments) ? s.pending_attachments : [];
        const at = typeof s.pending_started_at === 'number' ? s.pending_started_at : now();
        const rows: Message[] = [];
        if (text || attachments.length > 0) rows.push({ role: 'user', content: text, timestamp: at, attachments });
        rows.push({ role: 'assistant', content: INTERRUPTED_TEXT, timestamp: now(), _error: true });
        pushRows(s, rows);
        clearPending(s);
      })
      .catch((err: unknown) => log.warn('could not mark an interrupted turn:', err));
  }
  return stale.length;
}
