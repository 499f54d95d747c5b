// The chat routes (docs/spec-notes.md, "Chat: browser side"): start a turn, watch its frames (with resume), ask
// about a stream, cancel it. The turn itself lives in agent/turns.ts; this file is the HTTP around it.
import type { IncomingMessage } from 'node:http';
import { MESSAGE_REQUIRED, type FrameListener } from '../agent/turns.js';
import { resumePoint } from '../agent/frames.js';
import { HttpError, requireFields, ValueError } from '../core/errors.js';
import { isSameOriginWrite } from '../http/access.js';
import type { HandlerInput } from '../app.js';
import { readJsonBody } from '../http/body.js';
import { openEventStream } from '../http/event-stream.js';
import { sendJson } from '../http/respond.js';
import { publicCancel, publicChatStarted, publicStreamStatus } from '../projections/index.js';
import { publicContextPreview } from '../projections/context.js';
import { visibleSession } from '../store/profiles.js';
import { MAX_MESSAGE_CHARS, MAX_MODEL_CHARS, type Session } from '../store/sessions.js';
import type * as wire from '../core/wire.js';
import { namedAttachments } from '../attachments/extracted.js';
import { NO_SUCH_MESSAGE } from '../store/versions.js';
import { refuseOverCap } from '../store/caps.js';
import { isConnectionId, listConnections } from '../agent/connections.js';

export { MAX_MODEL_CHARS } from '../store/sessions.js';
export const SILENT = '[SILENT]';
export const STREAM_NOT_FOUND = 'stream not found';

/**
 * The turn's attachments, each one this session stored: an upload recorded in the session, or an extraction
 * folder directly inside the session's attachment folder. The agent side reads these paths, so a client must
 * not be able to name any other file on the disk.
 */
function turnAttachments(value: unknown, session: Session, stateDir: string): wire.ChatAttachment[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ValueError('Invalid attachments');
  refuseOverCap('turnAttachments', 0, value.length);
  return namedAttachments(value, session, stateDir, 'Invalid attachments');
}

/**
 * `connection` as given: a saved connection for this turn only ("Regenerate with…", issue 38, item 6), checked as
 * POST /api/session/settings checks one, so a typo is a 400 or 404 and never a silent fall back to the default.
 */
function turnConnection(input: HandlerInput, value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (!isConnectionId(value)) throw new ValueError('Invalid connection id');
  if (!listConnections(input.app.config.stateDir, process.env, input.app.agentKeyStore).connections.some((c) => c.id === value)) {
    throw new HttpError(404, 'Agent connection not found');
  }
  return value;
}

/** `message_index` as given: absent, or a whole number (which row it names is checked as the turn starts). */
function messageIndexOf(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new ValueError(NO_SUCH_MESSAGE);
  return value;
}

export async function startChat(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  requireFields(body, ['session_id']);
  const session = await visibleSession(app.sessions, body.session_id, profile);
  // Satchel's extension: replace the last exchange. What is not given is taken from its user row.
  const regenerate = body.regenerate === true;
  const given = typeof body.message === 'string' ? body.message : undefined;
  if (given?.trim() === SILENT) {
    await sendJson(ctx, 200, { status: 'suppressed', reason: 'silent_control_message' } satisfies wire.ChatStartResponse);
    return;
  }
  const attachments = regenerate && (body.attachments === undefined || body.attachments === null) ? undefined : turnAttachments(body.attachments, session, app.config.stateDir);
  const text = regenerate ? given : (given ?? '');
  if (!regenerate && !text?.trim() && attachments?.length === 0) throw new ValueError(MESSAGE_REQUIRED);
  if (text && text.length > MAX_MESSAGE_CHARS) throw new ValueError(`Message too long (max ${MAX_MESSAGE_CHARS} characters)`);
  const model = typeof body.model === 'string' && body.model.trim() ? body.model.trim().slice(0, MAX_MODEL_CHARS) : undefined;
  // With `regenerate`, which of the person's messages the new version starts at (the last by default).
  const messageIndex = regenerate ? messageIndexOf(body.message_index) : undefined;
  const connection = turnConnection(input, body.connection);
  // A refusal (409 with the running stream, 503 with how to set an agent up) is answered by the lifecycle.
  const started = await app.turns.start({ session, profile, text, attachments, model, regenerate, messageIndex, ...(connection ? { connection } : {}) });
  await sendJson(ctx, 200, publicChatStarted(started) satisfies wire.ChatStartResponse);
}

function streamId(input: HandlerInput, body?: Record<string, unknown>): string {
  const fromQuery = input.ctx.url.searchParams.get('stream_id');
  const id = fromQuery ?? (typeof body?.stream_id === 'string' ? body.stream_id : '');
  if (!id) throw new ValueError('stream_id required');
  return id;
}

/** The running or recently ended turn of `id`, when the caller's profile may see it. */
function visibleTurn(input: HandlerInput, id: string) {
  const turn = input.app.turns.find(id);
  return turn && turn.profile === input.profile ? turn : undefined;
}

export async function chatStream(input: HandlerInput): Promise<void> {
  const { ctx, app } = input;
  const id = streamId(input);
  const turn = visibleTurn(input, id);
  if (!turn) {
    await sendJson(ctx, 404, { error: STREAM_NOT_FOUND });
    return;
  }
  const q = ctx.url.searchParams;
  const after = resumePoint(id, [q.get('after_seq'), q.get('after_event_id'), ctx.req.headers['last-event-id'] as string | undefined]);
  const stream = openEventStream(ctx, { stopping: app.stopping, name: 'chat stream', heartbeatMs: app.config.chatHeartbeatMs });
  const listener: FrameListener = { frame: (text) => stream.write(text), end: () => stream.end() };
  if (ctx.req.method === 'HEAD') {
    listener.end();
    return;
  }
  // The replay is written synchronously inside follow(), as one burst; live frames come after it returns.
  const unfollow = stream.burst(() => turn.follow(after, listener));
  stream.onClose(unfollow);
}

export async function chatStreamStatus(input: HandlerInput): Promise<void> {
  const id = streamId(input);
  const turn = visibleTurn(input, id);
  const status: wire.ChatStreamStatus = {
    active: turn !== undefined && !turn.ended,
    stream_id: id,
    replay_available: turn !== undefined && turn.log.size > 0,
    last_seq: turn?.log.lastSeq ?? 0,
    terminal: turn?.ended ?? false,
  };
  await sendJson(input.ctx, 200, publicStreamStatus(status));
}

/**
 * The Origin and Sec-Fetch-Site rule of access.ts, applied to GET too: the original front end cancels with a
 * GET, so here a GET changes state and another site must not be able to send it.
 */
function sameOrigin(req: IncomingMessage): boolean {
  return isSameOriginWrite({ method: 'POST', headers: req.headers } as IncomingMessage);
}

export async function cancelChat(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  if (!sameOrigin(ctx.req)) throw new HttpError(403, 'Cross-origin request refused');
  const body = ctx.req.method === 'POST' ? await readJsonBody(ctx) : undefined;
  const id = streamId(input, body);
  const cancelled = app.turns.cancel(id, profile);
  await sendJson(ctx, 200, publicCancel(cancelled, id) satisfies wire.ChatCancelResponse);
}

// POST /api/chat/context (issue 36): what the next turn would give the agent of the conversation's documents, before
// it is sent (the composer's warning). The same request builder as a turn, dry: nothing kept, indexed or
// transcribed, and the agent is not asked.
export const INVALID_TEXT = 'text must be a string';

/** The documents whole in the last turn's report (the newest user row that has one). */
function wholeBefore(session: Session): Set<string> {
  const row = session.messages.findLast((m) => m.role === 'user' && m.context && typeof m.context === 'object');
  const docs = Array.isArray(row?.context?.documents) ? row.context.documents : [];
  return new Set(docs.filter((d) => d && d.state === 'whole' && typeof d.name === 'string').map((d) => d.name));
}

export async function chatContext(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  requireFields(body, ['session_id']);
  const session = await visibleSession(app.sessions, body.session_id, profile);
  if (body.text !== undefined && body.text !== null && typeof body.text !== 'string') throw new ValueError(INVALID_TEXT);
  const text = typeof body.text === 'string' ? body.text : '';
  if (text.length > MAX_MESSAGE_CHARS) throw new ValueError(`Message too long (max ${MAX_MESSAGE_CHARS} characters)`);
  const attachments = turnAttachments(body.attachments, session, app.config.stateDir);
  // A refusal (503 with how to set an agent up) is answered by the lifecycle, as for a turn.
  const report = await app.turns.previewContext(session, text, attachments, app.stopping);
  const now = new Map((report?.documents ?? []).map((d) => [d.name, d.state]));
  const leftOut = [...wholeBefore(session)].filter((name) => now.get(name) !== 'whole');
  await sendJson(ctx, 200, publicContextPreview(report ?? { documents: [], summary: '', via: 'sent' }, leftOut) satisfies wire.ChatContextPreview);
}
