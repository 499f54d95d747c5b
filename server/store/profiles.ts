// Profiles partition sessions: a session belongs to one profile and only that profile sees it. Which profile a
// request speaks for is an HTTP matter (http/profile-cookie.ts).
import { HttpError } from '../core/errors.js';
import type { Session, SessionStore } from './sessions.js';

export const DEFAULT_PROFILE = 'default';
const PROFILE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export function isValidProfileName(name: unknown): name is string {
  return typeof name === 'string' && (name === DEFAULT_PROFILE || PROFILE_NAME.test(name));
}

/** spec-notes 2: a session is visible when its profile matches; a non-string profile counts as none (default). */
export function sessionVisible(sessionProfile: unknown, active: string): boolean {
  const owner = typeof sessionProfile === 'string' && sessionProfile !== '' ? sessionProfile : DEFAULT_PROFILE;
  return owner === active;
}

/** The session named by `id` when the active profile may see it; an invisible session is answered exactly like a
 *  missing one, 404 (spec-notes 2 and 4.3 step 3). */
export async function visibleSession(sessions: Pick<SessionStore, 'get'>, id: unknown, profile: string): Promise<Session> {
  const session = await sessions.get(id);
  if (!session || !sessionVisible(session.profile, profile)) throw new HttpError(404, 'Session not found');
  return session;
}

/**
 * The conversation `profile` is using: its most recently active one (the store lists newest first), or null when
 * it has none. Quick capture's "current conversation" and "Open with"'s openWithTo 'current' both mean this.
 */
export async function latestVisibleSession(sessions: Pick<SessionStore, 'get' | 'list'>, profile: string): Promise<Session | null> {
  const latest = sessions.list().find((s) => sessionVisible(s.profile, profile));
  return latest ? ((await sessions.get(latest.session_id)) ?? null) : null;
}
