// The event bus behind GET /api/events: what changed (a session created, renamed or updated, an attachment
// added, a workspace changed), published once and delivered to every subscriber. It knows nothing of HTTP:
// handlers/events.ts turns a subscription into a server-sent event stream.
import { EventEmitter } from 'node:events';
import type { ServerEventName, ServerEvents } from '../core/wire.js';

/** At most this many subscribers (event streams) at once. */
export const MAX_SUBSCRIBERS = 256;

/** Events of the whole app rather than of a profile's sessions: every window receives them. */
export type AppWideEventName = 'mcp_ledger_added';
/** The `profile` of an app-wide event. */
export const EVERY_PROFILE: unique symbol = Symbol('every profile');

/** One event as published: its name decides the shape of its data (wire.d.ts ServerEvents). */
export type ServerEvent = {
  [K in ServerEventName]: {
    name: K;
    /** Only clients whose active profile owns the session receive it; every client an app-wide event. */
    profile: K extends AppWideEventName ? typeof EVERY_PROFILE : string;
    data: ServerEvents[K];
  };
}[ServerEventName];

export class EventBus {
  private readonly emitter = new EventEmitter();
  private subscribers = 0;

  constructor() {
    this.emitter.setMaxListeners(MAX_SUBSCRIBERS + 16);
  }

  publish(event: ServerEvent): void {
    this.emitter.emit('event', event);
  }

  get subscriberCount(): number {
    return this.subscribers;
  }

  /**
   * An in-process listener (the Inbox's background preparation): not an event stream, so it does not take one
   * of the MAX_SUBSCRIBERS places clients have. Until the returned function is called.
   */
  observe(listener: (event: ServerEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  /** Deliver every event to `listener` until the returned function is called; undefined when full. */
  subscribe(listener: (event: ServerEvent) => void): (() => void) | undefined {
    if (this.subscribers >= MAX_SUBSCRIBERS) return undefined;
    this.subscribers++;
    this.emitter.on('event', listener);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.emitter.off('event', listener);
      this.subscribers--;
    };
  }
}
