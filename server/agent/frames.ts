// The browser-side frames of one turn (docs/spec-notes.md, "Chat: `GET /api/chat/stream`") and the log that keeps
// them for replay. A frame is written once, as text, and the same text goes to every listener and into the
// log, so a replayed frame is byte for byte the frame that went out live.
import { publicFrameData, publicJsonLine, type PublicChatFrames, type TurnFrames } from '../projections/index.js';
import type * as wire from '../core/wire.js';

/**
 * Replay bytes kept per turn for the frames of the reply as it streams (`token`, `reasoning`, tool frames). A
 * reply is mostly `token` frames (80 bytes for a one-word token), so 2 MiB holds a reply of some 26,000 tokens
 * from its first frame. Past it the oldest go: a late listener asking for those gets what is left. The frames
 * of the outcome (`done`, `metering`, `title`, `apperror`, `cancel`, `stream_end`, each a few hundred bytes) are
 * never dropped: a resume must always receive them (issue 21: `done` once carried the whole session, and past
 * 1 MiB the frames after it pushed it out). With MAX_CONCURRENT_TURNS + ENDED_TURNS_KEPT turns (turns.ts) the
 * total stays near 48 MiB at worst.
 */
export const REPLAY_MAX_BYTES = 2 * 1024 * 1024;

export interface Frame {
  seq: number;
  text: string;
  /** A frame of the turn's outcome: never dropped for the byte bound. */
  outcome?: boolean;
}

/**
 * `id: <stream_id>:<seq>`, `event: <name>`, `data: <one-line JSON>`, blank line. The data goes through its frame's
 * projection: what the agent wrote is redacted, the session's ids and stored paths go out as they are.
 */
export function formatFrame<N extends wire.ChatFrameName>(streamId: string, seq: number, event: N, data: TurnFrames[N]): string {
  const projected: PublicChatFrames[wire.ChatFrameName] = publicFrameData(event, data);
  // JSON.stringify escapes CR and LF inside strings, so the data is one line whatever the agent sent.
  return `id: ${streamId}:${seq}\nevent: ${event}\ndata: ${publicJsonLine(projected)}\n\n`;
}

/**
 * The resume point a client asked for: `after_seq=N`, the original front end's `after_event_id=<id>`, or the
 * `Last-Event-ID` header (`<stream_id>:<seq>`, or a bare number). 0 = from the start.
 */
export function resumePoint(streamId: string, values: (string | null | undefined)[]): number {
  for (const value of values) {
    if (value === undefined || value === null || value === '') continue;
    const colon = value.lastIndexOf(':');
    // An id of another stream says nothing about this one.
    if (colon !== -1 && value.slice(0, colon) !== streamId) continue;
    const seq = Number(colon === -1 ? value : value.slice(colon + 1));
    if (Number.isSafeInteger(seq) && seq >= 0) return seq;
  }
  return 0;
}

export class FrameLog {
  private frames: Frame[] = [];
  /** Bytes of the frames that may be dropped (the outcome frames are not counted). */
  private streamedBytes = 0;
  /** The seq of the newest frame (0 before the first). */
  lastSeq = 0;

  constructor(private readonly maxBytes = REPLAY_MAX_BYTES) {}

  push(frame: Frame): void {
    this.frames.push(frame);
    if (!frame.outcome) this.streamedBytes += frame.text.length;
    this.lastSeq = frame.seq;
    // The newest frame always stays, so a frame bigger than the bound is replayable all the same. The outcome
    // frames come last and are never dropped, so the oldest frame is the one to go while any other may.
    while (this.streamedBytes > this.maxBytes && this.frames.length > 1 && !this.frames[0]!.outcome) {
      this.streamedBytes -= this.frames.shift()!.text.length;
    }
  }

  /** Every kept frame with a seq above `seq`, oldest first. */
  after(seq: number): Frame[] {
    const first = this.frames.findIndex((f) => f.seq > seq);
    return first === -1 ? [] : this.frames.slice(first);
  }

  get size(): number {
    return this.frames.length;
  }

}
