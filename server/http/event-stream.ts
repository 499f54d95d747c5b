// A server-sent event stream over one response: the head, the heartbeat, the bound on what a slow reader may
// leave queued, and the end at server stop. Both streams (a turn's frames, handlers/chat.ts; the profile's
// events, handlers/events.ts) go through it, so they cannot differ in any of these. A reader that stalls or goes
// away is a normal disconnect (docs/spec-notes.md, section 1): dropped quietly, never a warning.
import { log } from '../core/log.js';
import type { RequestContext } from './respond.js';
import { startStream } from './respond.js';

/**
 * Silence after which a comment line goes out, so proxies and the browser do not call the stream dead. The chat
 * stream's 5 s is fixed by the specification (agent.md, `GET /api/chat/stream`); the event stream uses the same.
 */
export const HEARTBEAT_MS = 5_000;
export const HEARTBEAT_COMMENT = ': heartbeat\n\n';
/** A reader whose unsent data exceeds this is stalled and gets disconnected (it can reconnect and resume). */
export const MAX_BUFFERED_BYTES = 1024 * 1024;
/**
 * After the server starts stopping, a stream's owner has this long to send its last frames (a running turn is
 * cancelled, stored, then says `cancel` and `stream_end`) before the stream is ended for it. Half of
 * SHUTDOWN_GRACE_MS (http/timeouts.ts, 10 s), so a stream ends with its own last byte before connections are cut.
 */
export const STOP_DEADLINE_MS = 5_000;

/**
 * The head of every event stream. `no-cache` as agent.md fixes for the chat stream; `X-Accel-Buffering: no`
 * keeps a buffering proxy (nginx) from holding frames back.
 */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
};

export interface EventStreamOptions {
  /** The server's stop signal. */
  stopping: AbortSignal;
  /** Names the stream in debug lines. */
  name: string;
  /** Tests shorten it. */
  heartbeatMs?: number;
  /** How long the owner may still write after the stop; 0 when it has nothing left to say (ended at once). */
  stopDeadlineMs?: number;
}

export class EventStream {
  private readonly heartbeat: NodeJS.Timeout;
  private stopDeadline: NodeJS.Timeout | undefined;
  private readonly closeHandlers: (() => void)[] = [];
  /** Inside burst(): what is written is not judged as a stall. */
  private bursting = false;
  /** What a burst queued, allowed on top of the bound until the socket has drained it. */
  private burstBacklog = 0;

  constructor(
    private readonly ctx: RequestContext,
    private readonly options: EventStreamOptions,
  ) {
    const { res, req } = ctx;
    startStream(ctx, 200, { ...EVENT_STREAM_HEADERS });
    // The head goes now, not with the first frame: the reader knows at once that the stream is open.
    res.flushHeaders();
    // A frame is one small write: sent now, not held back for Nagle's algorithm to batch it.
    req.socket.setNoDelay(true);
    res.on('error', (err: Error) => log.debug(`${options.name} closed by the client`, err));
    res.on('drain', () => (this.burstBacklog = 0));
    this.heartbeat = setTimeout(() => this.write(HEARTBEAT_COMMENT), options.heartbeatMs ?? HEARTBEAT_MS);
    const onStop = (): void => {
      const deadline = options.stopDeadlineMs ?? STOP_DEADLINE_MS;
      if (deadline <= 0) this.end();
      else this.stopDeadline = setTimeout(() => this.end(), deadline);
    };
    if (options.stopping.aborted) onStop();
    else options.stopping.addEventListener('abort', onStop, { once: true });
    res.once('close', () => {
      clearTimeout(this.heartbeat);
      clearTimeout(this.stopDeadline);
      options.stopping.removeEventListener('abort', onStop);
      for (const handler of this.closeHandlers.splice(0)) handler();
    });
  }

  /** True once the connection is gone or the stream ended. */
  get closed(): boolean {
    return this.ctx.res.destroyed || this.ctx.res.writableEnded;
  }

  /** Runs `handler` once when the connection closes, for whatever reason. */
  onClose(handler: () => void): void {
    if (this.ctx.res.closed) handler();
    else this.closeHandlers.push(handler);
  }

  /** Sends `text` (whole SSE events or comments), or drops a reader that left more than the bound unsent. */
  write(text: string): void {
    const { res } = this.ctx;
    if (this.closed) return;
    // Judged on what was queued before this write, so one frame larger than the bound is no stall either.
    if (!this.bursting && res.writableLength > this.burstBacklog + MAX_BUFFERED_BYTES) {
      log.debug(`dropping a stalled ${this.options.name}`);
      res.destroy();
      return;
    }
    res.write(text);
    this.heartbeat.refresh();
  }

  /**
   * Runs `fn`, whose writes all go out however much they queue: a replay written at once (up to the replay
   * log's size) is no sign of a stalled reader. What it queued is allowed on top of the bound until the socket
   * has drained it; dropping the reader for it made a resume of a long reply fail at every attempt (issue 21).
   */
  burst<T>(fn: () => T): T {
    this.bursting = true;
    try {
      return fn();
    } finally {
      this.bursting = false;
      this.burstBacklog = this.ctx.res.writableLength;
    }
  }

  /** Ends the stream. While the server stops, the connection closes behind the last byte instead of idling. */
  end(): void {
    const { res, req } = this.ctx;
    clearTimeout(this.heartbeat);
    clearTimeout(this.stopDeadline);
    if (this.closed) return;
    if (this.options.stopping.aborted) res.once('finish', () => req.socket.end());
    res.end();
  }
}

/** Starts an event stream on `ctx` (status 200, the head sent at once). */
export function openEventStream(ctx: RequestContext, options: EventStreamOptions): EventStream {
  return new EventStream(ctx, options);
}
