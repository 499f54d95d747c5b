// One turn's frames: numbered, kept for replay (FrameLog) and sent to every listener; a listener that comes late
// gets the kept frames first, then the live ones, with no gap and no duplicate. The turn's one AbortController
// ends it (a cancel, the stop, its deadline: `endReason` says which).
import type { TurnFrames } from '../projections/index.js';
import type * as wire from '../core/wire.js';
import { FrameLog, formatFrame } from './frames.js';
import type { FrameListener } from './turns.js';

/** The frames of the reply as it streams; every other frame says the turn's outcome (kept for every resume). */
const STREAMED_FRAMES: ReadonlySet<wire.ChatFrameName> = new Set(['token', 'reasoning', 'tool', 'tool_complete']);

export type EndReason = { kind: 'user' } | { kind: 'stop' } | { kind: 'deadline' };

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
