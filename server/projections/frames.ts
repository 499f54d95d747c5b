// The data of the chat stream's frames (docs/spec-notes.md, "Chat: `GET /api/chat/stream`"), one projection per
// frame name. What the agent wrote (tokens, reasoning, tool names, previews and arguments, titles, error
// messages and hints) is free text; session ids, usage numbers and the stored session's ids and paths are not.
import type * as wire from '../core/wire.js';
import { redactedJson, redactText, serverValue, type RedactedJson, type RedactedText, type ServerValue } from './brand.js';
import { publicContextReport, type PublicContextReport } from './context.js';
import { publicAnsweredBy, publicSessionSummary, publicUsage, type PublicAnsweredBy, type PublicSessionSummary } from './sessions.js';

export interface PublicToolFrame {
  event_type: wire.ChatToolFrame['event_type'];
  name: RedactedText;
  preview: RedactedText;
  args: RedactedJson;
  tid: RedactedText;
}

/** The frames a turn emits: as the wire has them, but the live pieces already redacted as a stream. */
export type TurnFrames = Omit<wire.ChatFrames, 'token' | 'reasoning'> & { token: { text: RedactedText }; reasoning: { text: RedactedText } };

export interface PublicChatFrames {
  token: { text: RedactedText };
  reasoning: { text: RedactedText };
  tool: PublicToolFrame;
  tool_complete: PublicToolFrame & { duration: number; is_error: boolean };
  title: { session_id: ServerValue; title: RedactedText };
  metering: { tps: number; usage: wire.ChatUsage };
  done: { session: PublicSessionSummary; usage: wire.ChatUsage };
  apperror: { message: RedactedText; type: wire.ChatErrorType; hint?: RedactedText; action?: wire.ChatErrorAction; session_id: ServerValue };
  cancel: { message: RedactedText; type: 'cancelled'; status: 'cancelled'; stopped_by: wire.StoppedBy; session_id: ServerValue };
  context: PublicContextReport & { session_id: ServerValue };
  answered_by: PublicAnsweredBy & { session_id: ServerValue };
  stream_end: { session_id: ServerValue };
}

function toolFrame(f: wire.ChatToolFrame): PublicToolFrame {
  return { event_type: f.event_type, name: redactText(f.name), preview: redactText(f.preview), args: redactedJson(f.args), tid: redactText(f.tid) };
}

/** Each frame's projection, by name: a table checked against both maps, so no case needs a cast. */
const FRAME_PROJECTIONS: { [N in wire.ChatFrameName]: (data: TurnFrames[N]) => PublicChatFrames[N] } = {
  // Redacted as a stream where the turn made them (stream-redact.ts), by type: not again piece by piece.
  token: (d) => ({ text: d.text }),
  reasoning: (d) => ({ text: d.text }),
  tool: toolFrame,
  tool_complete: (d) => ({ ...toolFrame(d), duration: d.duration, is_error: d.is_error }),
  title: (d) => ({ session_id: serverValue(d.session_id), title: redactText(d.title) }),
  metering: (d) => ({ tps: d.tps, usage: publicUsage(d.usage) }),
  done: (d) => ({ session: publicSessionSummary(d.session), usage: publicUsage(d.usage) }),
  apperror: (d) => ({ message: redactText(d.message), type: d.type, hint: d.hint === undefined ? undefined : redactText(d.hint), action: d.action, session_id: serverValue(d.session_id) }),
  cancel: (d) => ({ message: redactText(d.message), type: 'cancelled', status: 'cancelled', stopped_by: d.stopped_by, session_id: serverValue(d.session_id) }),
  context: (d) => ({ ...publicContextReport(d), session_id: serverValue(d.session_id) }),
  answered_by: (d) => ({ ...publicAnsweredBy(d), session_id: serverValue(d.session_id) }),
  stream_end: (d) => ({ session_id: serverValue(d.session_id) }),
};

/** `data` of the frame `event` as it goes out (and into the replay log). */
export function publicFrameData<N extends wire.ChatFrameName>(event: N, data: TurnFrames[N]): PublicChatFrames[N] {
  return FRAME_PROJECTIONS[event](data);
}
