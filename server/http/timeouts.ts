// The listening server's own timings (server/index.ts applies them). Here, below the entry points, because the
// process's orderly stop (process/stop.ts) and the event streams (event-stream.ts) size their deadlines from them.

/** Slowloris guard: the request head must arrive within this time. */
export const HEADERS_TIMEOUT_MS = 30_000;
/** How often Node looks for request heads past their deadline (its default, 30 s, would double the wait). */
export const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;
/** Idle keep-alive connections close after this. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** On shutdown, in-flight requests (uploads) get this long to finish before connections are cut. */
export const SHUTDOWN_GRACE_MS = 10_000;
