// POST /api/session/version: show another version of a conversation from one of the person's messages on
// (store/versions.ts). The version shown is what the next turn sends the agent, so a switch while a turn runs
// is refused: that turn's rows belong to the version it was started on.
import { requireFields } from '../core/errors.js';
import type { HandlerInput } from '../app.js';
import { readJsonBody } from '../http/body.js';
import { sendJson } from '../http/respond.js';
import { publicSession } from '../projections/index.js';
import { visibleSession } from '../store/profiles.js';
import { refuseWhileTurnRuns, showVersion } from '../store/versions.js';

export async function showSessionVersion(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  requireFields(body, ['session_id', 'message_index', 'version']);
  const current = await visibleSession(app.sessions, body.session_id, profile);
  // Refused while a turn runs: SessionBusy is a 409 naming it (the lifecycle answers it).
  const session = await app.sessions.update(current.session_id, (s) => {
    refuseWhileTurnRuns(s);
    s.messages = showVersion(s.messages, body.message_index as number, body.version);
  });
  app.events.publish({ name: 'session_updated', profile, data: { session_id: session.session_id } });
  await sendJson(ctx, 200, { session: publicSession(session) });
}
