// Server-sent events with our own reconnect schedule: EventSource retries by itself only while the server
// keeps answering 200, and never backs off, so on any error the stream is closed and reopened later.
import { checkAccess } from './access-lost.js';

export const RECONNECT_MIN_MS = 1000;
export const RECONNECT_MAX_MS = 30000;
const JITTER = 0.2;

export type EventHandlers = Record<string, (data: unknown) => void>;

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
    for (const [name, handler] of Object.entries(handlers)) {
      es.addEventListener(name, (ev) => {
        let data: unknown;
        try {
          data = JSON.parse((ev as MessageEvent<string>).data);
        } catch {
          return; // a malformed event is dropped; the next resync repairs the view
        }
        handler(data);
      });
    }
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
