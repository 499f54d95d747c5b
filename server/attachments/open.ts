// Opening a name below a session's attachment folder (an upload, an extraction folder, a file inside one) by
// the workspace rules: no escape, no symlink out, no special file, hidden names and credential stores never.
// For the chip's routes (preview, raw, folder) and for MCP.
import path from 'node:path';
import { HttpError } from '../core/errors.js';
import { visibleSession } from '../store/profiles.js';
import type { SessionStore } from '../store/sessions.js';
import { openWorkspacePath, type WorkspacePath } from '../store/anchored-browse.js';
import { sessionFolder } from './layout.js';

export const ATTACHMENT_NOT_FOUND = 'Attachment not found';
export const NAME_PARAM = 'name';

/** `name` below the session's attachment folder, resolved and held open (the caller closes `root`). The folder
 *  is never created here: one nothing was uploaded to is missing, and so is every name in it. */
export function openAttachmentPath(stateDir: string, sessionId: string, name: string): Promise<WorkspacePath> {
  return openWorkspacePath(sessionFolder(stateDir, sessionId), name, false);
}

/** An attachment a request names: its session (`session_id`) and `name` below the session's folder. */
export interface AttachmentRequest {
  sessions: Pick<SessionStore, 'get'>;
  stateDir: string;
  profile: string;
  params: URLSearchParams;
}

/** `name` of a request below its session's attachment folder; any 404 on the way is ATTACHMENT_NOT_FOUND. */
export async function requestedAttachmentPath({ sessions, stateDir, profile, params }: AttachmentRequest): Promise<WorkspacePath> {
  const session = await visibleSession(sessions, params.get('session_id'), profile);
  const name = params.get(NAME_PARAM) ?? '';
  if (name === '' || path.isAbsolute(name)) throw new HttpError(404, ATTACHMENT_NOT_FOUND);
  return openAttachmentPath(stateDir, session.session_id, name).catch((err: unknown) => {
    throw err instanceof HttpError && err.status === 404 ? new HttpError(404, ATTACHMENT_NOT_FOUND) : err;
  });
}
