// The data of the chat stream's frames (docs/spec-notes.md, "Chat: `GET /api/chat/stream`"), one projection per
// frame name. What the agent wrote (tokens, reasoning, tool names, previews and arguments, titles, error
// messages and hints) is free text; session ids, usage numbers and the stored session's ids and paths are not.
import type * as wire from '../wire.js';
import { redactedJson, redactText, serverValue, type RedactedJson, type RedactedText, type ServerValue } from './brand.js';
import { publicSessionSummary, type PublicSessionSummary } from './sessions.js';

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
  apperror: { message: RedactedText; type: wire.ChatErrorType; hint?: RedactedText; session_id: ServerValue };
  cancel: { message: RedactedText; type: 'cancelled'; status: 'cancelled'; session_id: ServerValue };
  stream_end: { session_id: ServerValue };
}

function toolFrame(f: wire.ChatToolFrame): PublicToolFrame {
  return { event_type: f.event_type, name: redactText(f.name), preview: redactText(f.preview), args: redactedJson(f.args), tid: redactText(f.tid) };
}

function usage(u: wire.ChatUsage): wire.ChatUsage {
  return { input_tokens: u.input_tokens, output_tokens: u.output_tokens, duration_seconds: u.duration_seconds, ttft_ms: u.ttft_ms };
}

/** `data` of the frame `event` as it goes out (and into the replay log). */
export function publicFrameData<N extends wire.ChatFrameName>(event: N, data: TurnFrames[N]): PublicChatFrames[N];
export function publicFrameData(event: wire.ChatFrameName, data: TurnFrames[wire.ChatFrameName]): PublicChatFrames[wire.ChatFrameName] {
  switch (event) {
    case 'token':
    case 'reasoning':
      // Redacted as a stream where the turn made them (stream-redact.ts), by type: not again piece by piece.
      return { text: (data as TurnFrames['token']).text };
    case 'tool':
      return toolFrame(data as wire.ChatFrames['tool']);
    case 'tool_complete': {
      const d = data as wire.ChatFrames['tool_complete'];
      return { ...toolFrame(d), duration: d.duration, is_error: d.is_error };
    }
    case 'title': {
      const d = data as wire.ChatFrames['title'];
      return { session_id: serverValue(d.session_id), title: redactText(d.title) };
    }
    case 'metering': {
      const d = data as wire.ChatFrames['metering'];
      return { tps: d.tps, usage: usage(d.usage) };
    }
    case 'done': {
      const d = data as wire.ChatFrames['done'];
      return { session: publicSessionSummary(d.session), usage: usage(d.usage) };
    }
    case 'apperror': {
      const d = data as wire.ChatFrames['apperror'];
      return { message: redactText(d.message), type: d.type, hint: d.hint === undefined ? undefined : redactText(d.hint), session_id: serverValue(d.session_id) };
    }
    case 'cancel': {
      const d = data as wire.ChatFrames['cancel'];
      return { message: redactText(d.message), type: 'cancelled', status: 'cancelled', session_id: serverValue(d.session_id) };
    }
    case 'stream_end':
      return { session_id: serverValue((data as wire.ChatFrames['stream_end']).session_id) };
  }
}
