// Server-sent events with our own reconnect schedule: EventSource retries by itself only while the server
// keeps answering 200, and never backs off, so on any error the stream is closed and reopened later.
// Handlers are typed by the server's own map of event names to data (server/core/wire/events.d.ts
// ServerEvents, what store/events.ts publishes and handlers/events.ts sends): a handler for an event the
// server does not send, or one expecting another shape, does not compile, and no caller casts what it gets.
import { checkAccess } from './access-lost.js';
import type { ServerEventName, ServerEvents } from './api.js';

export const RECONNECT_MIN_MS = 1000;
export const RECONNECT_MAX_MS = 30000;
const JITTER = 0.2;

/** At most one handler per event the server sends, given that event's data. */
export type EventHandlers = { [K in ServerEventName]?: (data: ServerEvents[K]) => void };

export interface EventsOptions {
  url?: string;
  /** Called after a reconnect, when events may have been missed: reload everything shown. */
  onResync?: () => void;
  onStatus?: (status: 'live' | 'reconnecting') => void;
}

/** Delay before reconnect attempt n (0-based): doubling from the minimum, capped, with ±20 % jitter. */
export function backoffDelay(attempt: number, random = Math.random): number {
  const base = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** Math.min(attempt, 16));
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

export function connectEvents(handlers: EventHandlers, opts: EventsOptions = {}): { close(): void } {
  let es: EventSource | null = null;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  let hadFailure = false;

  const open = () => {
    if (closed) return;
    es = new EventSource(opts.url ?? '/api/events', { withCredentials: true });
    es.onopen = () => {
      attempt = 0;
      opts.onStatus?.('live');
      if (hadFailure) opts.onResync?.();
      hadFailure = false;
    };
    es.onerror = () => {
      es?.close();
      es = null;
      hadFailure = true;
      // A refused stream looks like a dropped one: ask whether the server restarted under a new token.
      checkAccess();
      opts.onStatus?.('reconnecting');
      if (!closed) timer = setTimeout(open, backoffDelay(attempt++));
    };
    const source = es;
    // Keys of a handler map are event names by its type (an unknown one does not compile).
    for (const name of Object.keys(handlers) as ServerEventName[]) listen(source, name, handlers);
  };
  open();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      es?.close();
    },
  };
}

/** Hand `name`'s events on `source` to its handler, their data parsed. */
function listen<K extends ServerEventName>(source: EventSource, name: K, handlers: EventHandlers): void {
  const handler = handlers[name];
  if (!handler) return;
  source.addEventListener(name, (ev) => {
    const data = eventData((ev as MessageEvent<string>).data);
    // A malformed event is dropped; the next resync repairs the view.
    if (data === null) return;
    // The server writes every event's data from this same map (wire/events.d.ts, through its projection).
    handler(data as ServerEvents[K]);
  });
}

/** An event's data: a JSON object (every event's is), or null for anything else. */
export function eventData(text: string): object | null {
  try {
    const data: unknown = JSON.parse(text);
    return data !== null && typeof data === 'object' && !Array.isArray(data) ? data : null;
  } catch {
    return null;
  }
}
