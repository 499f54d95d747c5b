// The quick-capture window's routes (docs/API.md "Quick capture"): GET /api/capture (which conversation is
// current, whether the Inbox is there, the kept draft), PUT /api/capture/draft, and POST /api/capture/send, which
// delivers the text and the staged uploads to the current conversation (with `reply: true`, as a turn the agent
// answers: push-to-talk's "as a message"), the Inbox conversation, or a new
// conversation asking the agent (the reply streams like any turn: the main window follows it). Uploads are staged
// in one conversation (the draft's `session_id`); sent elsewhere, they move to the target conversation first.
import type { HandlerInput } from '../app.js';
import { HttpError, ValueError } from '../core/errors.js';
import type * as wire from '../core/wire.js';
import { refuseFullConversation, refuseOverCap, ROWS_PER_TURN } from '../store/caps.js';
import { readJsonBody } from '../http/body.js';
import { sendJson } from '../http/respond.js';
import { namedAttachments } from '../attachments/extracted.js';
import { publicAttachment } from '../projections/index.js';
import { redactText, serverValue } from '../projections/brand.js';
import { latestVisibleSession, sessionVisible, visibleSession } from '../store/profiles.js';
import { MAX_MESSAGE_CHARS, sessionSummary, type Session } from '../store/sessions.js';
import { MAX_DRAFT_TEXT_CHARS } from '../drafts/store.js';
import { isCaptureDestination, readCaptureDraft, writeCaptureDraft, type CaptureDestination } from '../drafts/capture.js';
import { moveStagedUploads } from '../drafts/capture-move.js';

export const CAPTURE_EMPTY = 'Nothing to send: type something or add a file';

/**
 * The Inbox conversation of a profile, found or made (server/inbox/session.ts provides it). The one place the
 * capture route reaches the Inbox: absent, the `inbox` destination answers 503.
 */
export interface InboxResolver {
  session(profile: string): Promise<Session>;
}

/** The conversation a capture goes to by default: the one asked for, or the profile's most recently active. */
async function currentSession(input: HandlerInput, asked: string | null): Promise<Session | null> {
  const { app, profile } = input;
  if (asked) return visibleSession(app.sessions, asked, profile);
  return latestVisibleSession(app.sessions, profile);
}

/** The staged uploads the conversation still has, in the draft's order (one removed since just drops out). */
function stagedUploads(session: Session | null, paths: readonly string[]): wire.Attachment[] {
  if (!session) return [];
  const known = new Map(session.attachments.map((a) => [a.path, a]));
  return paths.flatMap((p) => (known.has(p) ? [known.get(p)!] : []));
}

async function stagingSession(input: HandlerInput, id: unknown): Promise<Session | null> {
  if (id === undefined || id === null || id === '') return null;
  return visibleSession(input.app.sessions, id, input.profile);
}

function textOf(value: unknown, max: number): string {
  const text = value === undefined || value === null ? '' : value;
  if (typeof text !== 'string') throw new ValueError('Text must be a string');
  if (text.length > max) throw new ValueError(`Text too long (max ${max} characters)`);
  return text;
}

/** The given paths, each an upload of `staging` (a client cannot name any other file). */
function pathsIn(value: unknown, staging: Session | null): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ValueError('Invalid attachments');
  // As many files as one turn may carry: the table's rule, the turn's sentence (store/caps.ts).
  refuseOverCap('turnAttachments', 0, value.length);
  const known = new Set(staging?.attachments.map((a) => a.path) ?? []);
  return value.map((p: unknown) => {
    if (typeof p !== 'string' || !known.has(p)) throw new ValueError('Unknown attachment');
    return p;
  });
}

export const REPLY_NOT_BOOLEAN = 'reply must be true or false';
export const REPLY_ONLY_CURRENT = 'reply is for the current conversation (ask always starts a turn; the Inbox is not sent to the agent)';

/**
 * Whether the message starts the agent's turn. `ask` always does; `current` does when asked (push-to-talk's
 * "as a message": a question spoken is a message the agent answers, as in any chat's voice input); the Inbox
 * keeps notes, never questions.
 */
function replyOf(value: unknown, destination: CaptureDestination): boolean {
  if (value === undefined || value === null) return destination === 'ask';
  if (typeof value !== 'boolean') throw new ValueError(REPLY_NOT_BOOLEAN);
  if (value && destination === 'inbox') throw new ValueError(REPLY_ONLY_CURRENT);
  if (!value && destination === 'ask') throw new ValueError(REPLY_ONLY_CURRENT);
  return value;
}

function destinationOf(value: unknown): CaptureDestination {
  if (value === undefined || value === null || value === '') return 'current';
  if (!isCaptureDestination(value)) throw new ValueError('Invalid destination (current, inbox or ask)');
  return value;
}

export async function getCapture(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const current = await currentSession(input, ctx.url.searchParams.get('session'));
  const stored = await readCaptureDraft(app.config.stateDir, profile);
  const staging = stored.session_id ? await app.sessions.get(stored.session_id) : undefined;
  const visible = staging && sessionVisible(staging.profile, profile) ? staging : null;
  await sendJson(ctx, 200, {
    current: current ? { session_id: serverValue(current.session_id), title: redactText(current.title), busy: typeof current.active_stream_id === 'string' } : null,
    inbox: true,
    draft: {
      text: redactText(stored.text),
      destination: serverValue(stored.destination),
      session_id: visible ? serverValue(visible.session_id) : null,
      attachments: stagedUploads(visible, stored.attachments).map(publicAttachment),
    },
  });
}

export async function putCaptureDraft(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  const text = textOf(body.text, MAX_DRAFT_TEXT_CHARS);
  const destination = destinationOf(body.destination);
  const staging = await stagingSession(input, body.session_id);
  const attachments = pathsIn(body.attachments, staging);
  const stored = await writeCaptureDraft(app.config.stateDir, profile, { text, attachments, session_id: staging?.session_id ?? null, destination });
  await sendJson(ctx, 200, { ok: true, updated_at: serverValue(stored.updated_at) }, { compact: true });
}

/** The conversation the capture goes to. */
async function targetSession(input: HandlerInput, destination: CaptureDestination, id: unknown): Promise<Session> {
  const { app, profile } = input;
  if (destination === 'current') return visibleSession(app.sessions, id, profile);
  if (destination === 'inbox') {
    return app.inboxDestination.session(profile);
  }
  const workspace = await app.workspaces.validate(app.workspaces.fallbackWorkspace);
  const session = await app.sessions.create({ workspace, profile });
  app.events.publish({ name: 'session_created', profile, data: { session: sessionSummary(session) } });
  return session;
}

export async function sendCapture(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  const destination = destinationOf(body.destination);
  const reply = replyOf(body.reply, destination);
  const text = textOf(body.text, MAX_MESSAGE_CHARS);
  const staging = await stagingSession(input, body.staging_session_id);
  const staged = pathsIn(body.attachments, staging);
  if (!text.trim() && staged.length === 0) throw new ValueError(CAPTURE_EMPTY);
  let target = await targetSession(input, destination, body.session_id);
  // A full conversation is refused before a staged upload is moved into it (the turn or the store asks again).
  refuseFullConversation(target, reply ? ROWS_PER_TURN : 1);
  const paths =
    staging && staged.length > 0 && staging.session_id !== target.session_id
      ? await moveStagedUploads({ sessions: app.sessions, events: app.events, stateDir: app.config.stateDir, stagingDir: app.stagingDir, profile }, staging, target, staged)
      : staged;
  target = (await app.sessions.get(target.session_id)) ?? target;
  const attachments = namedAttachments(paths, target, app.config.stateDir);
  let started: { stream_id: string } | undefined;
  let queued = false;
  if (reply) {
    // A refusal (503 without an agent, 409 while a turn runs there) is answered by the lifecycle, and nothing is
    // stored: the capture page keeps the text.
    started = await app.turns.start({ session: target, profile, text, attachments });
  } else {
    // While a reply streams there, the note waits and is stored after it (store/queued.ts), as every message does.
    const { session: updated, queued: waits } = await app.sessions.addMessage(target.session_id, text, attachments);
    queued = waits;
    app.events.publish({ name: 'session_updated', profile, data: { session_id: updated.session_id, updated_at: updated.updated_at } });
  }
  // Sent: the window opens empty next time, on the same destination.
  await writeCaptureDraft(app.config.stateDir, profile, { text: '', attachments: [], session_id: null, destination });
  app.events.publish({ name: 'capture_sent', profile, data: { session_id: target.session_id, destination, ...(started ? { stream_id: started.stream_id } : {}) } });
  await sendJson(ctx, 200, { ok: true, destination: serverValue(destination), session_id: serverValue(target.session_id), ...(started ? { stream_id: serverValue(started.stream_id) } : {}), ...(queued ? { queued: true } : {}) });
}
