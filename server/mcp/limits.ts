// Every bound of the MCP endpoint in one place (docs/mcp.md "Limits").

/** A JSON-RPC request body: far below the JSON API's 20 MiB, since agents only send small requests. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;
/** MCP sessions held at once. Past it a new session takes the place of one idle for MCP_EVICTABLE_IDLE_MS, or
 *  is refused (503): a session in use is never closed to make room (endpoint.ts). */
export const MAX_MCP_SESSIONS = 32;
/** A session with no request and no open stream for this long is closed. */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;
/** A session with no request and no open stream for this long may give its place to a new one when the table
 *  is full: long enough that a client between two steps of a task (an agent thinking for minutes) keeps its
 *  session, short enough that a table filled by a crashed or forgetful client frees itself within minutes. */
export const MCP_EVICTABLE_IDLE_MS = 5 * 60_000;
/** Retry-After (seconds) on the 503 of a full table: a place frees itself at the latest when a session passes
 *  MCP_EVICTABLE_IDLE_MS, checked on the next attempt; a minute is a fair wait for an agent to retry. */
export const MCP_FULL_RETRY_AFTER_S = 60;
/** How often idle sessions are looked for. */
export const MCP_SWEEP_INTERVAL_MS = 60_000;
/** Changes within this window become one `notifications/resources/list_changed`. */
export const LIST_CHANGED_COALESCE_MS = 100;

/** Characters of one text returned (a message, a file, an attachment) unless the caller asks for fewer. */
export const MAX_TEXT_CHARS = 100_000;
/** Bytes read from one file for a text read; more is cut with the truncation marker. */
export const MAX_READ_BYTES = 1024 * 1024;
/** Messages returned by one read of a session (later ones are reached with `offset`). */
export const MAX_MESSAGES_PER_READ = 200;
/** Characters of one message inside a session read. */
export const MAX_MESSAGE_CHARS_IN_READ = 20_000;
/** Without the image library (a build lacking sharp's binding), images are returned as they are up to this size. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Entries listed for an extracted archive (the whole tree, breadth first). */
export const MAX_ARCHIVE_ENTRIES = 1000;
/** Attachment resources enumerated by `resources/list`, over all sessions. */
export const MAX_LISTED_ATTACHMENTS = 500;
/** Entries of a workspace listing (the preview route's own bound is larger; agents get a page). */
export const MAX_WORKSPACE_ENTRIES = 1000;

/** Search: files opened, bytes read in all, bytes read from one file, results returned. */
export const MAX_SEARCH_FILES = 2000;
export const MAX_SEARCH_BYTES = 32 * 1024 * 1024;
export const MAX_SEARCH_FILE_BYTES = 1024 * 1024;
export const MAX_SEARCH_RESULTS = 100;
/** Characters of context on each side of a match. */
export const SNIPPET_CONTEXT_CHARS = 80;
/** Longest search query. */
export const MAX_QUERY_CHARS = 200;
/** list_sessions' `recent` at most: a screenful of conversations, not a way around paging the list. */
export const MAX_RECENT_SESSIONS = 500;

/** The marker that ends every cut text. */
export function truncated(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… truncated: ${text.length - max} more characters]`;
}
