// Session, profile and workspace routes (README.md "Wire compatibility").
import { readJsonBody } from '../http/body.js';
import { HttpError, requireFields, ValueError } from '../errors.js';
import type { HandlerInput } from '../http/app.js';
import { DEFAULT_PROFILE, isValidProfileName, profileCookie, sessionVisible } from '../store/profiles.js';
import { sendJson } from '../http/respond.js';
import { publicSession, sessionSummary, type Attachment, type Session } from '../store/sessions.js';

export const MAX_MESSAGE_ATTACHMENTS = 100;

/** The session named by `id` when the active profile may see it; 404 otherwise (section 4.3 step 3). */
export function visibleSession({ app, profile }: HandlerInput, id: unknown): Session {
  const session = app.sessions.get(id);
  if (!session || !sessionVisible(session.profile, profile)) throw new HttpError(404, 'Session not found');
  return session;
}

export async function health(input: HandlerInput): Promise<void> {
  await sendJson(input.ctx, 200, { ok: true }, { compact: true });
}

export async function config({ ctx, app, profile }: HandlerInput): Promise<void> {
  const max = app.config.maxUploadBytes;
  await sendJson(ctx, 200, {
    ok: true,
    version: app.version,
    max_upload_bytes: max,
    max_upload_mb: Math.floor(max / 1024 / 1024),
    profile,
  });
}

export async function listProfiles({ ctx, app, profile }: HandlerInput): Promise<void> {
  const names = new Set<string>([DEFAULT_PROFILE, profile]);
  for (const s of app.sessions.list()) if (isValidProfileName(s.profile)) names.add(s.profile);
  await sendJson(ctx, 200, { active: profile, profiles: [...names].sort() });
}

export async function switchProfile({ ctx }: HandlerInput): Promise<void> {
  const body = await readJsonBody(ctx);
  requireFields(body, ['name']);
  if (!isValidProfileName(body.name)) throw new ValueError('Invalid profile name');
  ctx.cookies.push(profileCookie(body.name));
  await sendJson(ctx, 200, { ok: true, active: body.name });
}

export async function listSessions({ ctx, app, profile }: HandlerInput): Promise<void> {
  const sessions = app.sessions.list().filter((s) => sessionVisible(s.profile, profile)).map(sessionSummary);
  await sendJson(ctx, 200, { sessions }, { compact: true });
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
  const session = visibleSession(input, input.ctx.url.searchParams.get('session_id'));
  await sendJson(input.ctx, 200, { session: publicSession(session) });
}

export async function renameSession(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  requireFields(body, ['session_id', 'title']);
  if (typeof body.title !== 'string') throw new ValueError('Title must be a string');
  const current = visibleSession(input, body.session_id);
  const session = await app.sessions.rename(current.session_id, body.title);
  app.events.publish({ name: 'session_renamed', profile, data: { session_id: session.session_id, title: session.title } });
  await sendJson(ctx, 200, { session: publicSession(session) });
}

function asAttachments(value: unknown, session: Session): Attachment[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_MESSAGE_ATTACHMENTS) throw new ValueError('Invalid attachments');
  // Only attachments this session actually stored can be referenced: a message cannot point at arbitrary paths.
  const known = new Map(session.attachments.map((a) => [a.path, a]));
  return value.map((item) => {
    const path = typeof item === 'string' ? item : (item as { path?: unknown })?.path;
    const found = typeof path === 'string' ? known.get(path) : undefined;
    if (!found) throw new ValueError('Unknown attachment');
    return found;
  });
}

export async function addMessage(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  requireFields(body, ['session_id']);
  const current = visibleSession(input, body.session_id);
  const text = typeof body.text === 'string' ? body.text : '';
  const attachments = asAttachments(body.attachments, current);
  if (!text.trim() && attachments.length === 0) throw new ValueError('Message is empty');
  const session = await app.sessions.addMessage(current.session_id, text, attachments);
  app.events.publish({ name: 'session_updated', profile, data: { session_id: session.session_id } });
  await sendJson(ctx, 200, { session: publicSession(session) });
}

// `default` is where a session made without a workspace works, so the UI can preselect it: the roots also
// hold the home folder, which trusts the folders under it but is no workspace to offer by default.
export async function listWorkspaces({ ctx, app }: HandlerInput): Promise<void> {
  await sendJson(ctx, 200, { workspaces: app.workspaces.roots(), default: app.workspaces.fallbackWorkspace });
}

export async function addWorkspace({ ctx, app }: HandlerInput): Promise<void> {
  const body = await readJsonBody(ctx);
  requireFields(body, ['path']);
  await sendJson(ctx, 200, { workspaces: await app.workspaces.add(body.path), default: app.workspaces.fallbackWorkspace });
}

export async function events({ ctx, app, profile }: HandlerInput): Promise<void> {
  app.events.serve(ctx, profile, app.stopping);
}
