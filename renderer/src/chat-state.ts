// A conversation turn as the page sees it: the frames of GET /api/chat/stream folded into one view state
// (../shared/spec/agent.md, "Browser side"). Pure, so the folding is tested without a DOM or a server.
import type { SentAttachment, ChatErrorAction, ChatErrorType, ChatFrameName, ChatFrames, ChatUsage, ContextReport, SessionSummary, StoppedBy } from './api.js';
import { readReport } from './context-report.js';

export interface ToolCard {
  tid: string;
  name: string;
  preview: string;
  /** `stopped`: the turn ended (Stop, a failure) while it ran. */
  status: 'running' | 'done' | 'failed' | 'stopped';
  /** Seconds, once finished. */
  duration?: number;
}

export interface TurnError {
  type: ChatErrorType;
  message: string;
  hint?: string;
  action?: ChatErrorAction;
}

export type TurnStatus = 'streaming' | 'done' | 'error' | 'cancelled';

export interface TurnState {
  streamId: string;
  sessionId: string;
  /** What the person sent, shown above the reply while it streams. */
  userText: string;
  attachments: readonly SentAttachment[];
  /** The last frame folded in: a frame at or below it (a replay overlap) is ignored. */
  lastSeq: number;
  text: string;
  reasoning: string;
  tools: ToolCard[];
  status: TurnStatus;
  /** stream_end arrived: nothing more will come. */
  ended: boolean;
  usage?: ChatUsage;
  tps?: number;
  error?: TurnError;
  /** After `cancel`: who stopped the turn. */
  stoppedBy?: StoppedBy;
  title?: string;
  /** The stored session's summary `done` carried (the turn itself is read with GET /api/session). */
  session?: SessionSummary;
  /** What the turn's request gave the agent of the conversation's documents (the `context` frame, issue 36). */
  context?: ContextReport;
  /** Who is asked (the `answered_by` frame): the reply's header says it while it streams (issue 38, item 6). */
  answeredBy?: { agent?: string; model?: string };
  /** The server is out of reach (stopped, restarting): the turn stays on screen as it was until it answers again. */
  restarting?: boolean;
}

/** What a turn says while the server is out of reach (issue 38: it looked lost for the seconds of a restart). */
export const RESTARTING_TEXT = 'Satchel is restarting…';

export function initialTurn(streamId: string, sessionId: string, userText = '', attachments: readonly SentAttachment[] = []): TurnState {
  return { streamId, sessionId, userText, attachments, lastSeq: 0, text: '', reasoning: '', tools: [], status: 'streaming', ended: false };
}

/** The seq of a frame id `<stream_id>:<seq>`, or null when the id belongs to another stream or is malformed. */
export function frameSeq(id: string, streamId: string): number | null {
  const cut = id.lastIndexOf(':');
  if (cut < 0 || id.slice(0, cut) !== streamId) return null;
  const seq = Number(id.slice(cut + 1));
  return Number.isInteger(seq) && seq > 0 ? seq : null;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Every `type` an `apperror` frame may carry (wire.d.ts `ChatErrorType`), to read one by. */
const ERROR_TYPES = {
  auth_error: true,
  rate_limit: true,
  model_not_found: true,
  no_response: true,
  unreachable: true,
  timeout: true,
  upstream_error: true,
  interrupted: true,
} satisfies Record<ChatErrorType, true>;

/** A frame's error type; one this page does not know (a newer server's) reads as the generic `upstream_error`. */
function errorType(value: unknown): ChatErrorType {
  return isErrorType(value) ? value : 'upstream_error';
}

function isErrorType(value: unknown): value is ChatErrorType {
  return typeof value === 'string' && Object.hasOwn(ERROR_TYPES, value);
}

function toolUpdate(tools: ToolCard[], data: Partial<ChatFrames['tool_complete']>, finished: boolean): ToolCard[] {
  const tid = str(data.tid) || `${str(data.name)}#${tools.length}`;
  const known = tools.find((t) => t.tid === tid);
  const card: ToolCard = {
    tid,
    name: str(data.name) || known?.name || 'tool',
    preview: str(data.preview) || known?.preview || '',
    status: finished ? (data.is_error ? 'failed' : 'done') : known?.status === 'running' || !known ? 'running' : known.status,
    duration: finished && typeof data.duration === 'number' ? data.duration : known?.duration,
  };
  return known ? tools.map((t) => (t === known ? card : t)) : [...tools, card];
}

/**
 * Fold one frame into the state. `seq` (from the frame id) makes replays idempotent: a frame already folded
 * in is skipped. Unknown event names are ignored (a newer server may send more).
 */
export function reduceFrame(state: TurnState, name: string, data: unknown, seq?: number | null): TurnState {
  if (seq != null) {
    if (seq <= state.lastSeq) return state;
    state = { ...state, lastSeq: seq };
  }
  const d = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  switch (name as ChatFrameName) {
    case 'token':
      return { ...state, text: state.text + str(d.text) };
    case 'reasoning':
      return { ...state, reasoning: state.reasoning + str(d.text) };
    case 'tool':
      return { ...state, tools: toolUpdate(state.tools, d, false) };
    case 'tool_complete':
      return { ...state, tools: toolUpdate(state.tools, d, true) };
    case 'title':
      return { ...state, title: str(d.title) || state.title };
    case 'metering':
      return { ...state, tps: typeof d.tps === 'number' ? d.tps : state.tps, usage: (d.usage as ChatUsage | undefined) ?? state.usage };
    case 'done':
      return { ...state, status: 'done', usage: (d.usage as ChatUsage | undefined) ?? state.usage, session: d.session as SessionSummary | undefined };
    case 'apperror':
      return {
        ...state,
        status: 'error',
        error: { type: errorType(d.type), message: str(d.message) || 'The agent failed.', hint: str(d.hint) || undefined, action: d.action === 'agent_settings' || d.action === 'retry' ? d.action : undefined },
      };
    case 'cancel':
      return { ...state, status: 'cancelled', stoppedBy: d.stopped_by === 'shutdown' ? 'shutdown' : 'user' };
    case 'context': {
      // A frame of another session's turn (a stream mixed up) never speaks for this one's documents.
      const report = d.session_id === state.sessionId ? readReport(d) : null;
      return report ? { ...state, context: report } : state;
    }
    case 'answered_by': {
      // Only its strings, and only for this turn's session, as for `context`.
      if (d.session_id !== state.sessionId) return state;
      const by = { ...(str(d.agent) ? { agent: str(d.agent) } : {}), ...(str(d.model) ? { model: str(d.model) } : {}) };
      return by.agent || by.model ? { ...state, answeredBy: by } : state;
    }
    case 'stream_end':
      return { ...state, ended: true };
    default:
      return state;
  }
}

/** Usage in one line: "12 in · 40 out · 3.2 s · first token 410 ms"; nothing when the agent reported none. */
export function usageLine(usage: ChatUsage | undefined, tps?: number): string {
  if (!usage || usage.reported === false) return '';
  const parts = [`${usage.input_tokens} in`, `${usage.output_tokens} out`];
  if (typeof usage.duration_seconds === 'number') parts.push(`${usage.duration_seconds.toFixed(1)} s`);
  if (typeof usage.ttft_ms === 'number') parts.push(`first token ${Math.round(usage.ttft_ms)} ms`);
  if (typeof tps === 'number' && tps > 0) parts.push(`${tps.toFixed(1)} tok/s`);
  return parts.join(' · ');
}
