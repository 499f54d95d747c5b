// Search everything (issue 24), as data: what the search field has asked, what the server answered, which
// result is picked, and what the sidebar shows because of it. Pure (no DOM, no fetch), so every rule is tested
// in node (search-model.test.ts); search.ts runs it against the page and GET /api/search (docs/API.md).

/** Wait this long after the last key before asking the server: a typed word is one request, not one per letter
 *  (people type a key every 100-250 ms), and an answer still comes well under the ~300 ms felt as a delay. */
export const SEARCH_DEBOUNCE_MS = 150;

/** Results asked for: more than fit the sidebar's height twice, within the API's 1..50. */
export const SEARCH_LIMIT = 20;

/** One piece of a snippet: `match` pieces are the person's words, shown in <mark>. */
export interface SearchSegment {
  text: string;
  match: boolean;
}

export type SearchKind = 'title' | 'message' | 'attachment' | 'attachment_text';

/** One result of GET /api/search (docs/API.md "Search"). */
export interface SearchResult {
  session_id: string;
  title: string;
  updated_at: string;
  archived?: boolean;
  pinned?: boolean;
  kind: SearchKind;
  /** Kind `message`: the message's index in GET /api/session's `messages`. */
  message_index?: number;
  role?: 'user' | 'assistant';
  /** Kinds `attachment` and `attachment_text`: the attachment's stored name. */
  attachment?: string;
  /** The name the person gave it, where it differs from the stored one: the one shown (issue 38, item 4). */
  display_name?: string;
  snippet: SearchSegment[];
}

export interface SearchResponse {
  query: string;
  results: SearchResult[];
  complete: boolean;
  /** The server stopped the search at its deadline: the sentence saying so (shown instead of ours). */
  note?: string;
}

/** Where in the conversation the words were found, as the result says it. */
export function whereFound(r: Pick<SearchResult, 'kind' | 'role' | 'attachment' | 'display_name'>): string {
  const name = r.display_name || r.attachment;
  switch (r.kind) {
    case 'title':
      return 'title';
    case 'message':
      return r.role === 'user' ? 'your message' : 'in a message';
    case 'attachment':
      return name ? `file ${name}` : 'a file’s name';
    case 'attachment_text':
      return name ? `in ${name}` : 'in an attached file';
  }
}

export function emptyText(query: string): string {
  return `No conversation holds “${query}”`;
}

/** Under results that are not all (the answer's `complete` false): how to get the rest. */
export function moreText(shown: number): string {
  return `More conversations match than the ${shown} shown: add a word to narrow the search.`;
}

export function errorText(message: string): string {
  return `Search failed: ${message}`;
}

/** What the sidebar shows: the list (filtered by title), the results, "nothing found", or the failure above the list. */
export type SearchShows = 'list' | 'results' | 'empty' | 'error';

export interface SearchState {
  /** The field's text, trimmed: '' when there is no search. */
  query: string;
  /** Bumped for every new query (and a clear): an answer to an older one is dropped. */
  seq: number;
  /** Waiting for the server's answer to `query`. */
  waiting: boolean;
  /** The last answer's results (to the query before, while `waiting`): they stay until the next answer comes. */
  results: readonly SearchResult[];
  /** The query `results` answer. */
  answered: string;
  complete: boolean;
  /** The server's sentence when it stopped the search (the answer's `note`): shown where ours would be. */
  note: string | null;
  /** The picked result (arrow keys), -1 for none. */
  active: number;
  error: string | null;
}

export const NO_SEARCH: SearchState = { query: '', seq: 0, waiting: false, results: [], answered: '', complete: true, note: null, active: -1, error: null };

/** The field now holds `text`. `ask`: the request to make (after the debounce), when there is a new query. */
export function typed(state: SearchState, text: string): { state: SearchState; ask?: { seq: number; query: string } } {
  const query = text.trim();
  if (query === state.query) return { state };
  if (!query) return { state: { ...NO_SEARCH, seq: state.seq + 1 } };
  const seq = state.seq + 1;
  return { state: { ...state, query, seq, waiting: true, error: null }, ask: { seq, query } };
}

/** Ask the same query again (the conversations changed: one renamed, deleted, written to); the results shown
 *  stay until the new answer replaces them. Nothing to ask without a query. */
export function again(state: SearchState): { state: SearchState; ask?: { seq: number; query: string } } {
  if (!state.query) return { state };
  const seq = state.seq + 1;
  return { state: { ...state, seq, waiting: true }, ask: { seq, query: state.query } };
}

/** The server answered request `seq`; an answer to any but the newest is stale and changes nothing. */
export function answered(state: SearchState, seq: number, response: SearchResponse): SearchState {
  if (seq !== state.seq || !state.query) return state;
  // The result picked stays picked when the new answer holds it too (asked again after a change); else the first.
  const picked = state.results[state.active];
  const kept = picked ? response.results.findIndex((r) => sameResult(r, picked)) : -1;
  const active = kept >= 0 ? kept : response.results.length ? 0 : -1;
  return { ...state, waiting: false, results: response.results, answered: state.query, complete: response.complete, note: response.note ?? null, active, error: null };
}

/** The same place found (the API gives at most one result per conversation, kind and position). */
function sameResult(a: SearchResult, b: SearchResult): boolean {
  return a.session_id === b.session_id && a.kind === b.kind && a.message_index === b.message_index && a.attachment === b.attachment;
}

/** Request `seq` failed with `message` (the server's own error text); a stale failure changes nothing. */
export function failed(state: SearchState, seq: number, message: string): SearchState {
  if (seq !== state.seq || !state.query) return state;
  return { ...state, waiting: false, results: [], answered: '', active: -1, error: message };
}

export function shows(state: SearchState): SearchShows {
  if (!state.query) return 'list';
  if (state.error) return 'error';
  // Before the first answer the title filter stands in (no flash of an empty list); after it, the last results
  // stay until the newer ones come.
  if (!state.answered) return 'list';
  if (state.results.length) return 'results';
  return state.waiting ? 'list' : 'empty';
}

/**
 * The one search request in flight. A newer query, or none, aborts it: the person typed past it, so the server
 * stops its search (it runs as they type) and its answer, never drawn anyway (`answered` drops it), is not read.
 */
export class SearchRequests {
  private current: AbortController | undefined;

  /** The signal of a new request; the one before it is aborted. */
  next(): AbortSignal {
    this.current?.abort();
    this.current = new AbortController();
    return this.current.signal;
  }

  /** The query changed or the search ended: the request in flight is aborted. */
  drop(): void {
    this.current?.abort();
    this.current = undefined;
  }
}

/** Home and End are the field's (they move the caret), so only the arrows pick. */
export type SearchKey = 'ArrowDown' | 'ArrowUp';

/** The result a key picks: down and up move one and wrap around. */
export function moveActive(active: number, key: SearchKey, count: number): number {
  if (count <= 0) return -1;
  switch (key) {
    case 'ArrowDown':
      return active < 0 ? 0 : (active + 1) % count;
    case 'ArrowUp':
      return active <= 0 ? count - 1 : active - 1;
  }
}

/** The results shown now (none unless the sidebar shows them). */
export function shownResults(state: SearchState): readonly SearchResult[] {
  return shows(state) === 'results' ? state.results : [];
}

/** What to open for a result: its conversation, and the message to bring into view (a message's result only). */
export function target(r: SearchResult): { sessionId: string; messageIndex?: number } {
  return r.kind === 'message' && Number.isInteger(r.message_index) && r.message_index! >= 0 ? { sessionId: r.session_id, messageIndex: r.message_index } : { sessionId: r.session_id };
}
