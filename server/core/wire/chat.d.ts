// A turn with the agent (docs/API.md "Conversations"): starting, watching and cancelling it, the frames of its
// stream, its usage, tools and failures. Apart from wire.d.ts (which re-exports it) so each topic of the API is one file
// under 400 lines.
import type { ChatErrorAction, SessionSummary, StoppedBy } from './sessions.js';

/** POST /api/chat/start */
export type ChatStartResponse =
  | { stream_id: string; session_id: string; pending_started_at: number; title: string }
  | { status: 'suppressed'; reason: 'silent_control_message' };

/** 409 of POST /api/chat/start */
export interface ChatConflictResponse {
  error: string;
  active_stream_id: string;
}

/** 503 of POST /api/chat/start when no agent is configured */
export interface ChatNoAgentResponse {
  error: string;
  hint: string;
}

/** GET /api/chat/stream/status */
export interface ChatStreamStatus {
  active: boolean;
  stream_id: string;
  replay_available: boolean;
  last_seq: number;
  terminal: boolean;
}

/** GET|POST /api/chat/cancel */
export interface ChatCancelResponse {
  ok: true;
  cancelled: boolean;
  stream_id: string;
}

export interface ChatUsage {
  /** 0 when the agent reported no usage (`reported: false`): kept a number for the original's clients. */
  input_tokens: number;
  output_tokens: number;
  duration_seconds: number;
  ttft_ms: number | null;
  /** False when the agent reported no token counts: the two counts above are unknown, not 0. */
  reported?: boolean;
}

/** How a tool the agent ran ended: `stopped` when the turn ended (stop, failure, end of reply) before it did. */
export type ToolActivityStatus = 'finished' | 'failed' | 'stopped';

/** One tool the agent ran during a reply, as an assistant row keeps it (`tool_activity`). */
export interface ToolActivity {
  name: string;
  /** One line, redacted before it is stored, at most MAX_TOOL_PREVIEW_CHARS characters. */
  preview: string;
  status: ToolActivityStatus;
  /** Seconds from start to end, as the agent's progress events measured them; absent when it did not end. */
  duration_seconds?: number;
}

export interface ChatToolFrame {
  event_type: 'tool.started' | 'tool.completed';
  name: string;
  preview: string;
  args: unknown;
  tid: string;
}

export type ChatErrorType =
  | 'auth_error'
  | 'rate_limit'
  | 'model_not_found'
  | 'no_response'
  | 'unreachable'
  | 'timeout'
  | 'upstream_error'
  | 'interrupted';

/** The frames of GET /api/chat/stream, by event name, with their `data`. */
export interface ChatFrames {
  token: { text: string };
  reasoning: { text: string };
  tool: ChatToolFrame;
  tool_complete: ChatToolFrame & { duration: number; is_error: boolean };
  title: { session_id: string; title: string };
  metering: { tps: number; usage: ChatUsage };
  /**
   * The turn is stored. The session's summary, not the session: a reply may be megabytes, and `done` must stay
   * small enough to reach every watcher and resume; the client reads the stored turn with
   * GET /api/session.
   */
  done: { session: SessionSummary; usage: ChatUsage };
  apperror: { message: string; type: ChatErrorType; hint?: string; action?: ChatErrorAction; session_id: string };
  cancel: { message: string; type: 'cancelled'; status: 'cancelled'; stopped_by: StoppedBy; session_id: string };
  stream_end: { session_id: string };
}

export type ChatFrameName = keyof ChatFrames;
