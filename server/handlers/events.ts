// GET /api/events: the server-sent event stream of the caller's profile, ended when the server stops. A client
// that stalls or goes away is a normal disconnect (spec-notes 1): it is dropped quietly, and a slow client can
// never make the server buffer without bound.
import { HttpError } from '../errors.js';
import type { HandlerInput } from '../http/app.js';
import { startStream } from '../http/respond.js';
import { log } from '../log.js';
import { publicEventData, publicJsonLine } from '../projections/index.js';
import { MAX_SUBSCRIBERS, type ServerEvent } from '../store/events.js';

export const HEARTBEAT_MS = 15_000;
export const RETRY_MS = 3_000;
/** A client whose unsent data exceeds this is stalled and gets disconnected. */
export const MAX_BUFFERED_BYTES = 1024 * 1024;

export async function events({ app, ctx, profile }: HandlerInput): Promise<void> {
  const { res } = ctx;
  if (app.events.subscriberCount >= MAX_SUBSCRIBERS) throw new HttpError(503, 'Too many event streams');
  startStream(ctx, 200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Accel-Buffering': 'no',
  });
  const write = (chunk: string): void => {
    if (res.destroyed) return;
    res.write(chunk);
    if (res.writableLength > MAX_BUFFERED_BYTES) {
      log.debug('dropping a stalled event stream');
      res.destroy();
    }
  };
  // No await since the count was checked: the subscription cannot be refused now.
  let unsubscribe = app.events.subscribe((event: ServerEvent) => {
    if (event.profile !== profile) return;
    // The projection decides what is free text (redacted) and what is the server's own id or path (as it is).
    write(`event: ${event.name}\ndata: ${publicJsonLine(publicEventData(event))}\n\n`);
  });
  const heartbeat = setInterval(() => write(': ping\n\n'), HEARTBEAT_MS);
  const stop = (): void => {
    res.end();
  };
  res.once('close', () => {
    clearInterval(heartbeat);
    unsubscribe?.();
    unsubscribe = undefined;
    app.stopping.removeEventListener('abort', stop);
  });
  res.on('error', (err) => log.debug('event stream closed by the client', err));
  app.stopping.addEventListener('abort', stop, { once: true });
  write(`retry: ${RETRY_MS}\n: connected\n\n`);
}
