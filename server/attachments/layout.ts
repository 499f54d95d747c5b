// Where a session's attachments live, decided here and nowhere else: the attachment root, a session's folder
// in it, the name an upload is stored under, which folders are extractions, and where an Office file's sidecar
// sits. Handlers, the agent's input, MCP and the draft sweep all ask this module.
//
// A session's folder is named by its id as it is. Ids are 12 lowercase hex characters (store/sessions.ts
// SESSION_ID, the only ids the store creates or loads), which every file system keeps unchanged; sanitizing
// such an id (the upload handlers did) returns it unchanged, so the folders already on disk are exactly these.
// Any other string is refused rather than mapped onto some folder.
import path from 'node:path';
import { ValueError } from '../core/errors.js';
import { sanitizeFilename } from '../core/names.js';
import { sidecarName } from '../office/sidecar.js';
import { isInside } from '../core/paths.js';
import { readSetting, SETTINGS } from '../settings/table.js';
import type { AnchoredDir } from '../store/anchored.js';
import { ensureDir, mkdirInside } from '../store/files.js';
import { isSessionId } from '../store/sessions.js';

export const ATTACHMENT_DIR_ENV = SETTINGS.attachmentDir.env;
export const INVALID_SESSION_FOLDER = 'Invalid attachment directory';
export const INVALID_UPLOAD_DESTINATION = 'Invalid upload destination';

/** SATCHEL_WEBUI_ATTACHMENT_DIR when set and not blank (with `~` expanded), else `<state>/attachments`. */
export function attachmentRoot(stateDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return readSetting('attachmentDir', env) ?? path.join(stateDir, 'attachments');
}

/** `<root>/<session id>`: the session's attachment folder (not created). ValueError for a string that is no
 *  session id. */
export function sessionFolder(stateDir: string, sessionId: string): string {
  if (!isSessionId(sessionId)) throw new ValueError(INVALID_SESSION_FOLDER);
  return path.join(attachmentRoot(stateDir), sessionId);
}

/** spec-notes 4.3 step 5: the session's folder, created, held open and proven to stay inside the root after
 *  symlinks (files.ts mkdirInside). The caller closes it. */
export async function openSessionFolder(stateDir: string, sessionId: string): Promise<AnchoredDir> {
  const root = attachmentRoot(stateDir);
  const dir = sessionFolder(stateDir, sessionId);
  if (!isInside(root, dir) || dir === root) throw new ValueError(INVALID_SESSION_FOLDER);
  try {
    await ensureDir(root);
    return await mkdirInside(root, dir);
  } catch {
    throw new ValueError(INVALID_UPLOAD_DESTINATION);
  }
}

/** spec-notes 4.3 step 4: the one path component an upload named `clientName` is stored under (before the
 *  duplicate suffix, store/files.ts placeUnique). ValueError when nothing of the name is usable. */
export function storedName(clientName: string): string {
  return sanitizeFilename(clientName);
}

/** Whether `dest` is an extraction folder of this session: an absolute, normalized path directly inside its
 *  attachment folder (archives are extracted nowhere else, so a client can name no other folder). */
export function isExtractionFolder(stateDir: string, sessionId: string, dest: string): boolean {
  if (!isSessionId(sessionId)) return false;
  return path.resolve(dest) === dest && path.dirname(dest) === sessionFolder(stateDir, sessionId);
}

/** The Office sidecar of the file named (or at) `file`: `<file>.md` beside it. */
export function sidecarOf(file: string): string {
  return sidecarName(file);
}
