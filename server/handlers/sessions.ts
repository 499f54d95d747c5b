// Session routes: list, read, create, rename, add a message, delete (with Undo), pin and archive. Every read or change goes through
// visibleSession, so a session of another profile is answered as missing.
import { readJsonBody } from '../http/body.js';
import { requireFields, ValueError } from '../core/errors.js';
import type { HandlerInput } from '../app.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DEFAULT_PROFILE, isValidProfileName, sessionVisible, visibleSession } from '../store/profiles.js';
import { PreparedJson, sendJson, sendPreparedJson } from '../http/respond.js';
import { SessionListCache, type ListBody } from '../projections/session-list.js';
import { sessionSummary, type Session, type SessionStore } from '../store/sessions.js';
import { HttpError } from '../core/errors.js';
import { publicChatRefusal, publicDeletion, publicMessage, publicSession, publicSessionSummary } from '../projections/index.js';
import { SessionBusy } from '../store/versions.js';
import type { ChatAttachment } from '../core/wire.js';
import { namedAttachments } from '../attachments/extracted.js';
import { refuseOverCap } from '../store/caps.js';
import { isConnectionId, listConnections } from '../agent/connections.js';
import { SessionBodyCache } from '../projections/session-body.js';


/** Each store's list bodies (a test process runs several servers, each with its own store). */
const listCaches = new WeakMap<SessionStore, SessionListCache>();
/** Each kept body's bytes and gzip, made once (the body object is the same while it holds). */
const prepared = new WeakMap<ListBody, PreparedJson>();

function listCacheOf(sessions: SessionStore): SessionListCache {
  let cache = listCaches.get(sessions);
  if (!cache) listCaches.set(sessions, (cache = new SessionListCache()));
  return cache;
}

/** A profile's list body and its bytes, kept until the list or the known secrets change. */
function listBodyOf(sessions: SessionStore, profile: string): { body: ListBody; bytes: PreparedJson } {
  const body = listCacheOf(sessions).body(profile, sessions.listVersion, () => sessions.list().filter((s) => sessionVisible(s.profile, profile)));
  let bytes = prepared.get(body);
  if (!bytes) prepared.set(body, (bytes = new PreparedJson(body.json)));
  return { body, bytes };
}

/**
 * After start, every conversation's summary made in the background (SessionListCache.warm), then the default
 * profile's whole body and its gzip, so the window's first GET /api/sessions neither redacts every title nor sorts
 * and joins the list then. Call it once the known secrets are all learnt (the agent key, the launch and MCP
 * tokens): a later one only costs the summaries made again.
 */
export async function warmSessionList(sessions: SessionStore, stopping: AbortSignal): Promise<void> {
  await listCacheOf(sessions).warm(() => sessions.list(), stopping);
  if (stopping.aborted) return;
  await nextTurn();
  if (!stopping.aborted) await listBodyOf(sessions, DEFAULT_PROFILE).bytes.gzip();
}

/** GET /api/sessions `{sessions: SessionSummary[]}`, compact; the body is kept until the list changes. */
export async function listSessions({ ctx, app, profile }: HandlerInput): Promise<void> {
  await sendPreparedJson(ctx, 200, listBodyOf(app.sessions, profile).bytes);
}

/** Each store's whole-session bodies (projections/session-body.ts), kept while the session object stays the same. */
const sessionBodies = new WeakMap<SessionStore, SessionBodyCache<PreparedJson>>();

function bodiesOf({ app }: HandlerInput): SessionBodyCache<PreparedJson> {
  let cache = sessionBodies.get(app.sessions);
  if (!cache) sessionBodies.set(app.sessions, (cache = new SessionBodyCache((json) => new PreparedJson(json))));
  return cache;
}

/** The server has been idle a while: `store`'s kept bodies down to the last read (IDLE_KEPT_SESSION_BODIES). */
export function releaseIdleBodies(store: SessionStore): void {
  sessionBodies.get(store)?.releaseIdle();
}

/** 200 `{"session": publicSession(session)}`, byte for byte what sendJson gives for it; its gzip made once. */
async function sendSession(input: HandlerInput, session: Session): Promise<void> {
  await sendPreparedJson(input.ctx, 200, bodiesOf(input).body(session));
}

/**
 * Rows a page of GET /api/session holds at most: a page the page parses in a few milliseconds (1,000 rows of the
 * benchmark's conversation are about 0.8 MB), where the whole of 10,000 rows was one task of ~60 ms (issue 37).
 */
export const MAX_SESSION_PAGE_ROWS = 1_000;
export const INVALID_PAGE_LIMIT = `limit must be a whole number from 1 to ${MAX_SESSION_PAGE_ROWS}`;
export const INVALID_PAGE_BEFORE = 'before must be a whole number, given with limit';
export const BEFORE_PAST_END = 'before is past the end of the conversation';

/** `limit` and `before` as given: none (the whole session), or a page; anything else is refused. */
function pageParams(limit: string | null, before: string | null): { limit: number; before: number | null } | null {
  if (limit === null && before === null) return null;
  if (limit === null || !/^[0-9]{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_SESSION_PAGE_ROWS) {
    throw new ValueError(limit === null ? INVALID_PAGE_BEFORE : INVALID_PAGE_LIMIT);
  }
  if (before !== null && !/^[0-9]{1,9}$/.test(before)) throw new ValueError(INVALID_PAGE_BEFORE);
  return { limit: Number(limit), before: before === null ? null : Number(before) };
}

export async function newSession(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  const requested = typeof body.profile === 'string' && body.profile !== '' ? body.profile : profile;
  if (!isValidProfileName(requested)) throw new ValueError('Invalid profile name');
  const workspace =
    body.workspace === undefined || body.workspace === null || body.workspace === ''
      ? await app.workspaces.validate(app.workspaces.fallbackWorkspace)
      : await app.workspaces.validate(body.workspace);
  const session = await app.sessions.create({ workspace, profile: requested });
  app.events.publish({ name: 'session_created', profile: requested, data: { session: sessionSummary(session) } });
  await sendJson(ctx, 200, { session: publicSession(session) });
}

export async function getSession(input: HandlerInput): Promise<void> {
  const params = input.ctx.url.searchParams;
  const page = pageParams(params.get('limit'), params.get('before'));
  const session = await visibleSession(input.app.sessions, params.get('session_id'), input.profile);
  if (!page) return await sendSession(input, session);
  const count = session.messages.length;
  if (page.before !== null && page.before > count) throw new ValueError(BEFORE_PAST_END);
  const end = page.before ?? count;
  await sendPreparedJson(input.ctx, 200, bodiesOf(input).page(session, Math.max(0, end - page.limit), end));
}

export async function renameSession(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  requireFields(body, ['session_id', 'title']);
  if (typeof body.title !== 'string') throw new ValueError('Title must be a string');
  const current = await visibleSession(input.app.sessions, body.session_id, input.profile);
  const session = await app.sessions.rename(current.session_id, body.title);
  app.events.publish({ name: 'session_renamed', profile, data: { session_id: session.session_id, title: session.title } });
  await sendSession(input, session);
}

/** A settings field as given: undefined (absent: kept), null (removed) or a string; anything else is refused. */
function settingField(body: Record<string, unknown>, field: string): string | null | undefined {
  const value = body[field];
  if (value === undefined || value === null || typeof value === 'string') return value;
  throw new ValueError(`${field} must be a string or null`);
}

/** A switch as given: undefined (absent: kept) or a boolean; anything else is refused. */
function switchField(body: Record<string, unknown>, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined || typeof value === 'boolean') return value;
  throw new ValueError(`${field} must be true or false`);
}

/**
 * POST /api/session/settings `{session_id, model?, system_prompt?, connection?, keep_out_of_mcp?}`: the
 * conversation's model, system prompt and agent connection (an id of GET /api/agent/connections; null: the
 * default), and whether MCP clients may see it at all.
 */
export async function setSessionSettings(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  requireFields(body, ['session_id']);
  const current = await visibleSession(app.sessions, body.session_id, profile);
  const model = settingField(body, 'model');
  const systemPrompt = settingField(body, 'system_prompt');
  const connection = settingField(body, 'connection');
  const keepOutOfMcp = switchField(body, 'keep_out_of_mcp');
  if (connection) {
    // Checked before it is stored: a turn falls back to the default for a connection deleted later, not a typo.
    if (!isConnectionId(connection)) throw new ValueError('Invalid connection id');
    if (!listConnections(app.config.stateDir, process.env, app.agentKeyStore).connections.some((c) => c.id === connection)) {
      throw new HttpError(404, 'Agent connection not found');
    }
  }
  const session = await app.sessions.setConversation(current.session_id, { model, system_prompt: systemPrompt, connection, keep_out_of_mcp: keepOutOfMcp });
  app.events.publish({ name: 'session_updated', profile, data: { session_id: session.session_id } });
  await sendSession(input, session);
}

function asAttachments(value: unknown, session: Session, stateDir: string): ChatAttachment[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ValueError('Invalid attachments');
  refuseOverCap('messageAttachments', 0, value.length);
  // Only attachments this session actually stored can be referenced (its uploads and its extraction folders):
  // a message cannot point at arbitrary paths.
  return namedAttachments(value, session, stateDir);
}

export async function addMessage(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  requireFields(body, ['session_id']);
  const current = await visibleSession(input.app.sessions, body.session_id, input.profile);
  const text = typeof body.text === 'string' ? body.text : '';
  const attachments = asAttachments(body.attachments, current, app.config.stateDir);
  if (!text.trim() && attachments.length === 0) throw new ValueError('Message is empty');
  // Satchel's extension: `message_index` makes the message a new version from that message of the person's on
  // (Edit without an agent), keeping the one it replaces (docs/API.md, "Versions").
  const at = body.message_index;
  const answer = messageAnswer(body.answer);
  // While a turn runs, a plain message waits for the turn's rows (store/queued.ts); a new version is refused (409).
  const { session, queued } =
    at === undefined || at === null
      ? await app.sessions.addMessage(current.session_id, text, attachments)
      : { session: await app.sessions.addVersion(current.session_id, at, text, attachments), queued: false };
  // `updated_at` lets the window that sent it (which folds the answer in) know it already holds this change.
  app.events.publish({ name: 'session_updated', profile, data: { session_id: session.session_id, updated_at: session.updated_at } });
  if (answer === 'session') {
    if (queued) await sendJson(ctx, 200, { session: publicSession(session), queued: true });
    else await sendSession(input, session);
    return;
  }
  if (queued) {
    // Not in `messages` yet: its index is known once the turn's rows are stored.
    const waiting = session.queued_messages!;
    await sendJson(ctx, 200, { session: publicSessionSummary(session), message_index: null, queued: true, message: publicMessage(waiting[waiting.length - 1]!) });
    return;
  }
  // The stored message is the session's last row either way (a new version replaces the rows from `at` on).
  const index = session.messages.length - 1;
  await sendJson(ctx, 200, { session: publicSessionSummary(session), message_index: index, message: publicMessage(session.messages[index]!) });
}

/** What POST /api/session/message answers: the whole session (the original's answer, the default) or a summary. */
export const MESSAGE_ANSWERS = ['session', 'summary'] as const;
export const BAD_MESSAGE_ANSWER = 'answer must be "session" or "summary"';

/**
 * `answer: "summary"` asks for the session's summary and the stored message alone: the whole session is every
 * message redacted and serialized (about 10 MB and 280 ms at 10,000 messages), for a client that holds the rest.
 */
function messageAnswer(value: unknown): (typeof MESSAGE_ANSWERS)[number] {
  if (value === undefined || value === null) return 'session';
  if (typeof value === 'string' && (MESSAGE_ANSWERS as readonly string[]).includes(value)) return value as (typeof MESSAGE_ANSWERS)[number];
  throw new ValueError(BAD_MESSAGE_ANSWER);
}

/** 409 of POST /api/session/delete: a turn would go on storing into a session no one can see. */
export const DELETE_WHILE_TURN_RUNS = 'A reply is being written in this session: stop it before deleting the session';

/**
 * POST /api/session/delete {session_id}: the session is hidden at once and purged (record, attachments,
 * extractions, sidecars, draft; never the workspace) once `undo_until` has passed, unless restored before.
 */
export async function deleteSession(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  requireFields(body, ['session_id']);
  const current = await visibleSession(app.sessions, body.session_id, profile);
  let deleted;
  try {
    deleted = await app.deletions.delete(current.session_id);
  } catch (err) {
    if (!(err instanceof SessionBusy)) throw err;
    await sendJson(ctx, 409, publicChatRefusal(DELETE_WHILE_TURN_RUNS, { active_stream_id: err.activeStreamId }));
    return;
  }
  app.events.publish({ name: 'session_deleted', profile, data: { session_id: current.session_id } });
  await sendJson(ctx, 200, publicDeletion(current.session_id, deleted.purgeAt));
}

/** POST /api/session/restore {session_id}: Undo of a delete within its grace period; 404 after it. */
export async function restoreSession(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  requireFields(body, ['session_id']);
  const deleted = app.sessions.getDeleted(body.session_id);
  // Another profile's deleted session is as missing as its live ones.
  if (!deleted || !sessionVisible(deleted.profile, profile)) throw new HttpError(404, 'Session not found');
  const session = await app.deletions.restore(deleted.session_id);
  app.events.publish({ name: 'session_restored', profile, data: { session: sessionSummary(session) } });
  await sendSession(input, session);
}

function flagValue(body: Record<string, unknown>, name: 'pinned' | 'archived'): boolean {
  if (typeof body[name] !== 'boolean') throw new ValueError(`${name} must be true or false`);
  return body[name];
}

async function setFlag(input: HandlerInput, name: 'pinned' | 'archived'): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  requireFields(body, ['session_id']);
  const value = flagValue(body, name);
  const current = await visibleSession(app.sessions, body.session_id, profile);
  const session = await app.sessions.setFlags(current.session_id, { [name]: value });
  app.events.publish({ name: 'session_updated', profile, data: { session_id: session.session_id } });
  await sendJson(ctx, 200, { session: publicSessionSummary(session) });
}

/** POST /api/session/pin {session_id, pinned}: pinned sessions are listed first. Not activity: updated_at stays. */
export function pinSession(input: HandlerInput): Promise<void> {
  return setFlag(input, 'pinned');
}

/** POST /api/session/archive {session_id, archived}: archived sessions are listed behind a toggle. */
export function archiveSession(input: HandlerInput): Promise<void> {
  return setFlag(input, 'archived');
}
