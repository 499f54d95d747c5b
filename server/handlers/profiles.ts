// GET /api/profiles and POST /api/profile/switch. The active profile is a cookie, so switching only sets it.
import { requireFields, ValueError } from '../core/errors.js';
import type { HandlerInput } from '../app.js';
import { readJsonBody } from '../http/body.js';
import { sendJson } from '../http/respond.js';
import { publicProfiles, publicProfileSwitched } from '../projections/index.js';
import { profileCookie } from '../http/profile-cookie.js';
import { DEFAULT_PROFILE, isValidProfileName } from '../store/profiles.js';
import type { ProfilesResponse } from '../core/wire.js';

export async function listProfiles({ ctx, app, profile }: HandlerInput): Promise<void> {
  const names = new Set<string>([DEFAULT_PROFILE, profile]);
  for (const s of app.sessions.list()) if (isValidProfileName(s.profile)) names.add(s.profile);
  await sendJson(ctx, 200, publicProfiles(profile, [...names].sort()) satisfies ProfilesResponse);
}

export async function switchProfile({ ctx }: HandlerInput): Promise<void> {
  const body = await readJsonBody(ctx);
  requireFields(body, ['name']);
  if (!isValidProfileName(body.name)) throw new ValueError('Invalid profile name');
  ctx.cookies.push(profileCookie(body.name));
  await sendJson(ctx, 200, publicProfileSwitched(body.name));
}
