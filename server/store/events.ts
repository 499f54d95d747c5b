// Server-sent events (GET /api/events). A client that stalls or goes away is a normal disconnect (spec-notes 1):
// it is dropped quietly, and a slow client can never make the server buffer without bound.
import { EventEmitter } from 'node:events';
import { HttpError } from '../errors.js';
import { log } from '../log.js';
import { redactDeep } from '../redact.js';
import { startStream, type RequestContext } from '../http/respond.js';

export const HEARTBEAT_MS = 15_000;
export const RETRY_MS = 3_000;
/** A client whose unsent data exceeds this is stalled and gets disconnected. */
export const MAX_BUFFERED_BYTES = 1024 * 1024;
export const MAX_CLIENTS = 256;

export interface ServerEvent {
  name: 'session_created' | 'session_renamed' | 'session_updated' | 'attachment_added' | 'workspace_changed';
  /** Only clients whose active profile owns the session receive it. */
  profile: string;
  data: Record<string, unknown>;
}

export class EventBus {
  private readonly emitter = new EventEmitter();
  private clients = 0;

  constructor() {
    this.emitter.setMaxListeners(MAX_CLIENTS + 16);
  }

  publish(event: ServerEvent): void {
    this.emitter.emit('event', event);
  }

  get clientCount(): number {
    return this.clients;
  }

  /** Serve one SSE connection until the client leaves or the server stops. */
  serve(ctx: RequestContext, profile: string, stopSignal: AbortSignal): void {
    if (this.clients >= MAX_CLIENTS) throw new HttpError(503, 'Too many event streams');
    const { res } = ctx;
    startStream(ctx, 200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    this.clients++;
    const write = (chunk: string): void => {
      if (res.destroyed) return;
      res.write(chunk);
      if (res.writableLength > MAX_BUFFERED_BYTES) {
        log.debug('dropping a stalled event stream');
        res.destroy();
      }
    };
    const onEvent = (event: ServerEvent): void => {
      if (event.profile !== profile) return;
      write(`event: ${event.name}\ndata: ${JSON.stringify(redactDeep(event.data))}\n\n`);
    };
    const heartbeat = setInterval(() => write(': ping\n\n'), HEARTBEAT_MS);
    const stop = (): void => {
      res.end();
    };
    const cleanup = (): void => {
      clearInterval(heartbeat);
      this.emitter.off('event', onEvent);
      stopSignal.removeEventListener('abort', stop);
      this.clients--;
    };
    res.once('close', cleanup);
    res.on('error', (err) => log.debug('event stream closed by the client', err));
    stopSignal.addEventListener('abort', stop, { once: true });
    this.emitter.on('event', onEvent);
    write(`retry: ${RETRY_MS}\n: connected\n\n`);
  }
}
