// Opening a name below a session's attachment folder (an upload, an extraction folder, a file inside one) by
// the workspace rules: no escape, no symlink out, no special file, hidden names and credential stores never.
// For the chip's routes (preview, raw, folder) and for MCP.
import path from 'node:path';
import { HttpError } from '../core/errors.js';
import type { HandlerInput } from '../app.js';
import { visibleSession } from '../store/profiles.js';
import { openWorkspacePath, type WorkspacePath } from '../workspace/browse.js';
import { sessionFolder } from './layout.js';

export const ATTACHMENT_NOT_FOUND = 'Attachment not found';
export const NAME_PARAM = 'name';

/** `name` below the session's attachment folder, resolved and held open (the caller closes `root`). The folder
 *  is never created here: one nothing was uploaded to is missing, and so is every name in it. */
export function openAttachmentPath(stateDir: string, sessionId: string, name: string): Promise<WorkspacePath> {
  return openWorkspacePath(sessionFolder(stateDir, sessionId), name, false);
}

/** `name` of a request below its session's attachment folder; any 404 on the way is ATTACHMENT_NOT_FOUND. */
export async function requestedAttachmentPath(input: HandlerInput): Promise<WorkspacePath> {
  const { ctx, app } = input;
  const session = await visibleSession(app.sessions, ctx.url.searchParams.get('session_id'), input.profile);
  const name = ctx.url.searchParams.get(NAME_PARAM) ?? '';
  if (name === '' || path.isAbsolute(name)) throw new HttpError(404, ATTACHMENT_NOT_FOUND);
  return openAttachmentPath(app.config.stateDir, session.session_id, name).catch((err: unknown) => {
    throw err instanceof HttpError && err.status === 404 ? new HttpError(404, ATTACHMENT_NOT_FOUND) : err;
  });
}
