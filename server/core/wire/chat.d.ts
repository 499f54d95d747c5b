// A turn with the agent (docs/API.md "Conversations"): starting, watching and cancelling it, the frames of its
// stream, its usage, tools and failures. Apart from wire.d.ts (which re-exports it) so each topic of the API is one file
// under 400 lines.
import type { AnsweredBy, ChatErrorAction, SessionSummary, StoppedBy } from './sessions.js';

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

/**
 * What the agent was given of one document of the conversation in a turn (issue 36): an earlier attachment, a
 * file that arrived, or a workspace file. The turn's own new attachments are listed too (state `whole` or cut).
 */
export interface ContextDocument {
  /** As the chip names it: the attachment's name; a workspace file's path relative to the workspace. */
  name: string;
  origin: 'attachment' | 'arrival' | 'workspace';
  /**
   * whole: all its text (as far as its reader reads; its chip says what that is); passages: the parts that best
   * answer the message (`where`); not_sent: left out for the turn's budget; unreadable: only its name (`reason`).
   */
  state: 'whole' | 'passages' | 'not_sent' | 'unreadable';
  /** For `passages`: where they are from, in words ("pages 2–3", "slide 4", "2 passages"). */
  where?: string;
  /** For `unreadable` and `not_sent`: why, in a few words ("budget", "its text could not be extracted"). */
  reason?: string;
}

/** What one turn gave the agent of the conversation's documents (the `context` frame; a user row's `context`). */
export interface ContextReport {
  documents: ContextDocument[];
  /** One line for the header: "The agent has 3 of 5 documents whole". */
  summary: string;
  /** hermes_history: Hermes' gateway keeps the history; earlier documents are in it as they were sent in their turn. */
  via: 'sent' | 'hermes_history';
  /** The session's workspace as the turn told the agent of it; absent when the session has none. */
  workspace?: { name: string; listed: number; total: number; changed: number };
}

/** POST /api/chat/context: what the next turn would give the agent, before it is sent (the composer's warning). */
export interface ChatContextPreview extends ContextReport {
  /** Documents whole in the last turn that this one would not send whole. */
  left_out: string[];
}

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
  /** Sent once the turn's request is built: what the agent is given of the conversation's documents. */
  context: ContextReport & { session_id: string };
  /**
   * Who is asked (issue 38, item 6): the connection and model the reply's rows will store as `answered_by`, sent
   * first, so the reply's header says it while it streams. Absent when there is nothing to say.
   */
  answered_by: AnsweredBy & { session_id: string };
  stream_end: { session_id: string };
}

export type ChatFrameName = keyof ChatFrames;
