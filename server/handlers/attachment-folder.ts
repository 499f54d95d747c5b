// GET /api/attachment/folder?session_id=&name=: the files below a folder of the session's attachment folder (an
// extracted archive, whose chip has no single file to preview), each with its size, relative to that folder.
// `name` is resolved as /api/attachment/preview resolves it (no escape, hidden names and credential stores
// never); below it the files are listed by store/anchored-walk.ts walkFiles, as the agent and MCP list them: no
// symlink listed or followed, bounded twice (the files listed, and the entries walked to count them).
import path from 'node:path';
import type { HandlerInput } from '../app.js';
import { HttpError } from '../core/errors.js';
import { sendJson } from '../http/respond.js';
import { publicAttachmentFolder } from '../projections/attachment-folder.js';
import { EscapeError } from '../store/anchored.js';
import { MAX_ENTRIES_WALKED, openInside, walkFiles } from '../store/anchored-walk.js';
import { ESCAPES_WORKSPACE, visible } from '../store/anchored-browse.js';
import type { AttachmentFolder } from '../core/wire.js';
import { ATTACHMENT_NOT_FOUND, requestedAttachmentPath } from '../attachments/open.js';

/** Files named in one answer: a preview lists them, "and N more" says the rest. */
export const MAX_FOLDER_FILES_LISTED = 200;
/** Entries (files and folders) looked at to count the files: beyond, the total is "at least". */
export const MAX_FOLDER_ENTRIES_WALKED = MAX_ENTRIES_WALKED;
export const NOT_A_FOLDER = 'Not a folder';

export async function listAttachmentFolder(input: HandlerInput): Promise<void> {
  const at = await requestedAttachmentPath({ sessions: input.app.sessions, stateDir: input.app.config.stateDir, profile: input.profile, params: input.ctx.url.searchParams });
  let folder: AttachmentFolder;
  try {
    // The session's folder itself is not an attachment: uploads are listed with the session.
    if (at.segments.length === 0) throw new HttpError(404, ATTACHMENT_NOT_FOUND);
    const dir = await openInside(at.root, at.segments).catch((err: unknown) => {
      if (err instanceof EscapeError) throw new HttpError(403, ESCAPES_WORKSPACE);
      throw (err as NodeJS.ErrnoException).code === 'ENOENT' ? new HttpError(404, ATTACHMENT_NOT_FOUND) : new HttpError(400, NOT_A_FOLDER);
    });
    try {
      const real = path.relative(at.root.path, dir.path).split(path.sep).filter(Boolean);
      // Where a symlink inside led counts too: a link to a hidden folder lists nothing.
      if (real.length === 0 || !visible(real, false)) throw new HttpError(404, ATTACHMENT_NOT_FOUND);
      const { files, total, complete } = await walkFiles(dir, MAX_FOLDER_FILES_LISTED, real);
      folder = { name: real.join('/'), files, total, complete };
    } finally {
      await dir.close();
    }
  } finally {
    await at.root.close();
  }
  await sendJson(input.ctx, 200, publicAttachmentFolder(folder));
}
