// "Show" on a masked value (issue 38 item 10): a message's masks stay masked everywhere (the page, Copy, export,
// search, MCP), and the person at the keyboard may see one value's original in the view they are looking at.
// POST /api/session/masks says where a message's masks are (numbers only); POST /api/session/reveal answers one
// mask's original. Both need the launch token (the MCP token is not accepted: app.ts's `api` routes check the launch
// token only), come from Satchel's own page (POST: the lifecycle refuses another Origin with 403; a browser's
// `Sec-Fetch-Site` must say same-origin; a JSON body, which a page elsewhere cannot send without a preflight this
// server never grants), and are answered `Cache-Control: no-store`. Nothing here is logged.
import { HttpError, requireFields, ValueError } from '../core/errors.js';
import { readJsonBody } from '../http/body.js';
import type { HandlerInput as HandlerInputOf, Host } from '../http/lifecycle.js';
import { sendJson, type RequestContext } from '../http/respond.js';
import { maskPlaces, revealAt } from '../projections/reveal.js';
import { visibleSession } from '../store/profiles.js';
import type { SessionStore } from '../store/sessions.js';

/** What these routes use of the application: its sessions (not the whole `App`). */
type HandlerInput = HandlerInputOf<Host & { sessions: Pick<SessionStore, 'get'> }>;

/** Rows one masks request may name: about two screens of rows, so one request never redacts a whole conversation. */
export const MAX_MASK_ROWS = 64;
/** A reveal's body is three small fields. */
const MAX_REVEAL_BODY_BYTES = 4096;
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** Only Satchel's own page (or a client holding the token outside any browser) may ask. */
function requireOwnPage(ctx: RequestContext): void {
  const site = ctx.req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') throw new HttpError(403, 'Cross-origin request refused');
  const type = ctx.req.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) throw new HttpError(415, 'Content-Type must be application/json');
}

function messageIndex(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new ValueError(`${field} must be a whole number, 0 or more`);
  return value;
}

/** POST /api/session/masks `{session_id, message_indexes}` → `{messages: [{message_index, masks: [{start, end}]}]}`. */
export async function listMasks(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  requireOwnPage(ctx);
  const body = await readJsonBody(ctx, MAX_REVEAL_BODY_BYTES);
  requireFields(body, ['session_id', 'message_indexes']);
  const asked = body.message_indexes;
  if (!Array.isArray(asked) || asked.length > MAX_MASK_ROWS) throw new ValueError(`message_indexes must be a list of at most ${MAX_MASK_ROWS} message indexes`);
  const indexes = [...new Set(asked.map((v) => messageIndex(v, 'Each message index')))];
  const session = await visibleSession(app.sessions, body.session_id, profile);
  // A row no longer in the conversation (deleted, another version shown) is left out: the page has nothing to mark.
  const messages = indexes
    .filter((i) => i < session.messages.length)
    .map((i) => ({ message_index: i, masks: maskPlaces(session.messages[i]!.content) }))
    .filter((m) => m.masks.length > 0);
  await sendJson(ctx, 200, { messages }, { headers: { ...NO_STORE } });
}

/** POST /api/session/reveal `{session_id, message_index, start}` → `{mask, original}`: one value, for this view. */
export async function revealMask(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  requireOwnPage(ctx);
  const body = await readJsonBody(ctx, MAX_REVEAL_BODY_BYTES);
  requireFields(body, ['session_id', 'message_index', 'start']);
  const index = messageIndex(body.message_index, 'message_index');
  const start = messageIndex(body.start, 'start');
  const session = await visibleSession(app.sessions, body.session_id, profile);
  const found = index < session.messages.length ? revealAt(session.messages[index]!.content, start) : null;
  if (!found) throw new HttpError(404, 'No masked value there: the message may have changed; reload the conversation');
  await sendJson(ctx, 200, found, { headers: { ...NO_STORE } });
}
