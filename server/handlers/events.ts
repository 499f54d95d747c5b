// GET /api/events: the server-sent event stream of the caller's profile, ended when the server stops. The
// transport (head, heartbeat, stalled readers, stop) is http/event-stream.ts's, the same as the chat stream's.
import { HttpError } from '../core/errors.js';
import type { HandlerInput } from '../app.js';
import { openEventStream } from '../http/event-stream.js';
import { publicEventData, publicJsonLine } from '../projections/index.js';
import { EVERY_PROFILE, MAX_SUBSCRIBERS, type ServerEvent } from '../store/events.js';

/** The browser's EventSource reconnects after this long when the connection drops. */
export const RETRY_MS = 3_000;

export async function events({ app, ctx, profile }: HandlerInput): Promise<void> {
  if (app.events.subscriberCount >= MAX_SUBSCRIBERS) throw new HttpError(503, 'Too many event streams');
  // Nothing is left to say at a stop: the stream ends at once (stopDeadlineMs 0).
  const stream = openEventStream(ctx, { stopping: app.stopping, name: 'event stream', stopDeadlineMs: 0 });
  // No await since the count was checked: the subscription cannot be refused now.
  const unsubscribe = app.events.subscribe((event: ServerEvent) => {
    if (event.profile !== profile && event.profile !== EVERY_PROFILE) return;
    // The projection decides what is free text (redacted) and what is the server's own id or path (as it is).
    stream.write(`event: ${event.name}\ndata: ${publicJsonLine(publicEventData(event))}\n\n`);
  });
  stream.onClose(() => unsubscribe?.());
  stream.write(`retry: ${RETRY_MS}\n: connected\n\n`);
}
