// The chat routes (docs/spec-notes.md, "Chat: browser side"): start a turn, watch its frames (with resume), ask
// about a stream, cancel it. The turn itself lives in agent/turns.ts; this file is the HTTP around it.
import type { IncomingMessage } from 'node:http';
import { ChatRefusal, MESSAGE_REQUIRED, type FrameListener } from '../agent/turns.js';
import { resumePoint } from '../agent/frames.js';
import { HttpError, requireFields, ValueError } from '../errors.js';
import { isSameOriginWrite } from '../http/access.js';
import type { HandlerInput } from '../http/app.js';
import { readJsonBody } from '../http/body.js';
import { sendJson, startStream } from '../http/respond.js';
import { publicCancel, publicChatRefusal, publicChatStarted, publicStreamStatus } from '../projections/index.js';
import { log } from '../log.js';
import { visibleSession } from '../store/profiles.js';
import { MAX_MESSAGE_CHARS, type Session } from '../store/sessions.js';
import type * as wire from '../wire.js';
import { namedAttachment, uploadsByPath } from '../attachments/extracted.js';

export const MAX_TURN_ATTACHMENTS = 20;
export const MAX_MODEL_CHARS = 200;
/** A comment line after this much silence keeps proxies and the browser from calling the stream dead. */
export const CHAT_HEARTBEAT_MS = 5_000;
/** A watcher whose unsent frames exceed this is stalled and gets disconnected (it can resume). */
export const MAX_BUFFERED_BYTES = 1024 * 1024;
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
  if (value.length > MAX_TURN_ATTACHMENTS) throw new ValueError(`Too many attachments (max ${MAX_TURN_ATTACHMENTS})`);
  const uploads = uploadsByPath(session);
  return value.map((item: unknown): wire.ChatAttachment => {
    const where = typeof item === 'string' ? item : (item as { path?: unknown } | null)?.path;
    if (typeof where !== 'string') throw new ValueError('Invalid attachments');
    const found = namedAttachment(item, session, uploads, stateDir);
    if (!found) throw new ValueError('Unknown attachment');
    return found;
  });
}

export async function startChat(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  requireFields(body, ['session_id']);
  const session = visibleSession(app.sessions, body.session_id, profile);
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
  try {
    const started = await app.turns.start({ session, profile, text, attachments, model, regenerate });
    await sendJson(ctx, 200, publicChatStarted(started) satisfies wire.ChatStartResponse);
  } catch (err) {
    if (!(err instanceof ChatRefusal)) throw err;
    await sendJson(ctx, err.status, publicChatRefusal(err.message, err.extra));
  }
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
  const { res } = ctx;
  startStream(ctx, 200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    'X-Accel-Buffering': 'no',
  });
  // The head goes now, not with the first frame: the watcher knows at once that the stream is open.
  res.flushHeaders();
  // A frame is one small write: sent now, not held back for Nagle's algorithm to batch it.
  ctx.req.socket.setNoDelay(true);
  res.on('error', (err) => log.debug('chat stream closed by the client', err));
  const heartbeat = setTimeout(function beat() {
    if (!res.destroyed) res.write(': heartbeat\n\n');
    heartbeat.refresh();
  }, app.config.chatHeartbeatMs ?? CHAT_HEARTBEAT_MS);
  // What the replay queued at once (up to REPLAY_MAX_BYTES, more with one large frame) is no sign of a stalled
  // watcher: it is allowed on top of the bound until the socket has drained it. Dropping the watcher for it
  // made a resume of a long reply fail the same way at every attempt, never reaching `done` (issue 21).
  let replaying = false;
  let replayBacklog = 0;
  res.on('drain', () => (replayBacklog = 0));
  const write = (text: string): void => {
    if (res.destroyed) return;
    // Judged on what was queued before this frame, so one frame larger than the bound is no stall either.
    if (!replaying && res.writableLength > replayBacklog + MAX_BUFFERED_BYTES) {
      log.debug('dropping a stalled chat stream');
      res.destroy();
      return;
    }
    res.write(text);
    heartbeat.refresh();
  };
  let unfollow: (() => void) | undefined;
  const listener: FrameListener = {
    frame: write,
    end: () => {
      clearTimeout(heartbeat);
      // A server that is stopping closes the connection behind the last frame instead of keeping it idle.
      if (app.stopping.aborted) res.once('finish', () => ctx.req.socket.end());
      res.end();
    },
  };
  res.once('close', () => {
    clearTimeout(heartbeat);
    unfollow?.();
  });
  if (ctx.req.method === 'HEAD') {
    listener.end();
    return;
  }
  // The replay is written synchronously inside follow(); live frames come after it returns.
  replaying = true;
  try {
    unfollow = turn.follow(after, listener);
  } finally {
    replaying = false;
    replayBacklog = res.writableLength;
  }
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
