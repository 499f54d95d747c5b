// GET /api/search?q=&limit= (docs/API.md "Search"): the active profile's sessions, ranked, with snippets.
// The person's words are read here and checked; the store turns them into an FTS5 query (store/search.ts).
import type { HandlerInput } from '../app.js';
import { ValueError } from '../core/errors.js';
import { sendJson } from '../http/respond.js';
import { publicSearchResults } from '../projections/index.js';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, MAX_SEARCH_QUERY_CHARS, SEARCH_EMPTY, SEARCH_TOO_LONG } from '../store/db/search-query.js';

export const INVALID_LIMIT = 'Invalid limit';

/** `limit` as given: absent is the default; anything but a whole number 1..MAX_SEARCH_LIMIT is refused. */
function searchLimit(raw: string | null): number {
  if (raw === null) return DEFAULT_SEARCH_LIMIT;
  if (!/^[0-9]{1,3}$/.test(raw)) throw new ValueError(INVALID_LIMIT);
  const limit = Number(raw);
  if (limit < 1 || limit > MAX_SEARCH_LIMIT) throw new ValueError(INVALID_LIMIT);
  return limit;
}

export async function search({ ctx, app, profile }: HandlerInput): Promise<void> {
  const params = ctx.url.searchParams;
  const q = params.get('q') ?? '';
  if (q.length > MAX_SEARCH_QUERY_CHARS) throw new ValueError(SEARCH_TOO_LONG);
  if (q.trim() === '') throw new ValueError(SEARCH_EMPTY);
  const limit = searchLimit(params.get('limit'));
  // ctx.signal: the page typed past this query and dropped the request; its search stops at once.
  const found = await app.sessions.search(profile, q, limit, {}, ctx.signal);
  await sendJson(ctx, 200, publicSearchResults(found), { compact: true });
}
