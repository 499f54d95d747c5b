// GET /api/attachment/summary?session_id=…&name=…: what the agent will get from one attachment of the session
// (an upload or an extraction folder, by its name in the attachment folder), for its chip (attachments/agent-view.ts).
import type { HandlerInput } from '../app.js';
import { agentView, publicAgentView } from '../attachments/agent-view.js';
import { NAME_PARAM } from '../attachments/open.js';
import { sendJson } from '../http/respond.js';
import { visibleSession } from '../store/profiles.js';

export async function attachmentSummary(input: HandlerInput): Promise<void> {
  const { ctx, app } = input;
  const session = await visibleSession(app.sessions, ctx.url.searchParams.get('session_id'), input.profile);
  const view = await agentView(app, session, ctx.url.searchParams.get(NAME_PARAM) ?? '');
  await sendJson(ctx, 200, publicAgentView(view));
}
