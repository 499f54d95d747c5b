// The quick-capture window's API (docs/API.md "Quick capture"). Apart from wire.d.ts (which re-exports it) so
// each topic of the API is one file under 400 lines.
import type { Attachment } from './attachments.js';

/** Where the quick-capture window sends (docs/API.md "Quick capture"). */
export type CaptureDestination = 'current' | 'inbox' | 'ask';

/** GET /api/capture */
export interface CaptureView {
  /**
   * The conversation `current` sends to: the one asked for with `?session=`, else the most recently active; `busy`
   * while a reply is being written there (a message sent then comes after it).
   */
  current: { session_id: string; title: string; busy?: boolean } | null;
  /** Whether the Inbox conversation can be sent to. */
  inbox: boolean;
  draft: { text: string; destination: CaptureDestination; session_id: string | null; attachments: Attachment[] };
}

/** POST /api/capture/send */
export interface CaptureSendResponse {
  ok: true;
  destination: CaptureDestination;
  session_id: string;
  /** For `ask`: the agent's turn, streaming in the conversation. */
  stream_id?: string;
  /** A reply was being written there: the message waits and is stored after it. */
  queued?: true;
}
