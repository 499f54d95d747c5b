// The seam between the two wires of a conversation (docs/spec-notes.md, "Chat: agent side" and "Chat: browser
// side"): the upstream side turns one turn into a stream of `UpstreamEvent`s from an OpenAI-compatible server; the
// turn side (turns.ts) numbers them as browser frames, keeps them for replay and stores the result in the session.
// Neither side knows the other's wire.

/** Which dialect the agent speaks (declared with the wire shapes, which carry it). */
export type { AgentKind } from '../core/wire.js';
import type { AgentKind, ChatErrorAction, ChatErrorType, ContextReport, ToolCall } from '../core/wire.js';

/** Where the agent is and how to talk to it. `apiKey` never leaves the server (no response, no log line). */
export interface AgentConfig {
  /** With or without `/v1`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  kind: AgentKind;
  /** No byte from upstream for this long ends the turn as `timeout`. */
  idleTimeoutMs: number;
  /** The whole turn past this ends it as `timeout`, whatever arrives meanwhile (SATCHEL_AGENT_TURN_MAX_MS). */
  turnMaxMs?: number;
  /** Budget, in characters, for the history and the inlined text of one turn. */
  contextChars: number;
  /**
   * Whether Satchel's own in-turn tools (agent/tools/) are offered to this connection: false when the person
   * switched them off, or when the server refused a request with tools (remembered on the connection).
   */
  satchelTools?: boolean;
  /** The saved connection this config is (agent/connections.ts): what a reply says answered it (issue 38, item 6). */
  connection?: { id: string; name: string };
}

/** An OpenAI Chat Completions message as sent upstream. */
export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | ContentPart[];
  /** An assistant message of a tool round (agent/tools/loop.ts): the calls its `tool` messages answer. */
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** A tool offered to the agent in a request's `tools` (OpenAI's function tool). */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** One turn to send upstream. */
export interface TurnRequest {
  /** The conversation's session; absent for a request outside it (its title). */
  sessionId?: string;
  /**
   * Sent as `X-Hermes-Session-Id` to a `hermes` agent: its gateway then keeps the history under this id
   * (hermes-continuity.ts). Absent: the gateway records nothing of ours under an id we use, and the body holds
   * the history.
   */
  hermesSessionId?: string;
  /** The trimmed history ending with the new user turn; the new user turn alone with `hermesSessionId`. */
  messages: ChatMessage[];
  model?: string;
  /** Satchel's own tools (agent/tools/specs.ts), offered to a dialect that takes them; absent: none. */
  tools?: ToolSpec[];
  /** With `tools`: 'none' asks for an answer without another call (the last round of agent/tools/loop.ts). */
  toolChoice?: 'none';
  /** What the turn gives the agent of the conversation's documents (issue 36): the `context` frame, the user row's `context`. */
  report?: ContextReport;
}

/** A tool call the agent streamed, as stored with its message (the wire's shape). */
export type { ToolCall } from '../core/wire.js';

/** What the upstream stream says, in arrival order. */
export type UpstreamEvent =
  | { kind: 'token'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'tool'; name: string; preview: string; args: unknown; tid: string }
  | { kind: 'tool_complete'; name: string; preview: string; args: unknown; tid: string; duration: number; isError: boolean }
  /** Streamed `delta.tool_calls`, collected: stored with the assistant message. */
  | { kind: 'tool_calls'; calls: ToolCall[] }
  | { kind: 'usage'; inputTokens: number; outputTokens: number }
  /**
   * The agent's tool-call arguments passed MAX_TOOL_ARGUMENT_BYTES (upstream.ts): what fitted came as
   * `tool_calls` just before, the rest was not read, and nothing follows (the request is closed).
   */
  | { kind: 'cut'; what: 'tool_arguments'; limitBytes: number };

/** The `type` of an `apperror` frame (agent.md), declared once with the wire shapes. */
export type AgentErrorType = ChatErrorType;

/** What a failure's button does (wire.d.ts); absent when there is nothing to open. */
export type { ChatErrorAction } from '../core/wire.js';

/**
 * The action a failure of this type asks for unless it says otherwise: the connection's settings when the
 * address, the key or the model is wrong; sending again otherwise.
 */
export function defaultAction(type: AgentErrorType): ChatErrorAction {
  return type === 'auth_error' || type === 'model_not_found' || type === 'unreachable' ? 'agent_settings' : 'retry';
}

/**
 * A turn that failed upstream: one sentence of what happened (`message`) and one of what to do (`hint`), in
 * words a person can act on, and the button that does it (`action`). Never carries the API key.
 */
export class AgentError extends Error {
  readonly action: ChatErrorAction | undefined;
  constructor(
    readonly type: AgentErrorType,
    message: string,
    /** What to do about it ("Enter the right key in Agent settings → Chat agent."). */
    readonly hint?: string,
    /** Seconds, from a 429's `Retry-After`. */
    readonly retryAfterSeconds?: number,
    /** Its button; `null`: none (nothing to open, sending the same again would fail the same way). */
    action?: ChatErrorAction | null,
  ) {
    super(message);
    this.name = 'AgentError';
    this.action = action === null ? undefined : (action ?? defaultAction(type));
  }
}

/**
 * The upstream side's one entry point: stream one turn. Ends normally after `[DONE]` (or a one-shot JSON
 * answer); throws AgentError for every failure; stops (throwing the signal's reason) when `signal` aborts.
 */
export type StreamTurn = (config: AgentConfig, request: TurnRequest, signal: AbortSignal) => AsyncIterable<UpstreamEvent>;
