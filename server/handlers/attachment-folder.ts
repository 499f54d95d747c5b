// GET /api/attachment/folder?session_id=&name=: the files below a folder of the session's attachment folder (an
// extracted archive, whose chip has no single file to preview), each with its size, relative to that folder.
// `name` is resolved as /api/attachment/preview resolves it (no escape, hidden names and credential stores
// never); below it the walk opens every directory through its parent's descriptor and lists only regular files
// and directories: a symlink is neither listed nor followed. The answer is bounded twice: the files listed, and
// the entries walked to count them (an archive may hold tens of thousands).
import path from 'node:path';
import type { HandlerInput } from '../http/app.js';
import { HttpError } from '../errors.js';
import { sendJson } from '../http/respond.js';
import { publicAttachmentFolder } from '../projections/attachment-folder.js';
import type { AnchoredDir } from '../store/anchored.js';
import { EscapeError } from '../store/anchored.js';
import { openInside } from '../store/anchored-walk.js';
import { ESCAPES_WORKSPACE, visible } from '../workspace/browse.js';
import type { AttachmentFolder, FolderFile } from './attachment-folder-wire.js';
import { ATTACHMENT_NOT_FOUND, requestedAttachmentPath } from './attachment-files.js';

/** Files named in one answer: a preview lists them, "and N more" says the rest. */
export const MAX_FOLDER_FILES_LISTED = 200;
/** Entries (files and folders) looked at to count the files: beyond, the total is "at least". */
export const MAX_FOLDER_ENTRIES_WALKED = 20_000;
export const NOT_A_FOLDER = 'Not a folder';

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

interface Walk {
  files: FolderFile[];
  total: number;
  walked: number;
  complete: boolean;
}

/** Depth first, names in code point order, so an answer lists the same files each time. */
async function walk(dir: AnchoredDir, real: readonly string[], prefix: readonly string[], out: Walk): Promise<void> {
  const entries = (await dir.readdir()).filter((d) => (d.isFile() || d.isDirectory()) && visible([...real, ...prefix, d.name], false)).sort(byName);
  for (const d of entries) {
    if (++out.walked > MAX_FOLDER_ENTRIES_WALKED) {
      out.complete = false;
      return;
    }
    if (d.isFile()) {
      out.total++;
      if (out.files.length < MAX_FOLDER_FILES_LISTED) {
        const stat = await dir.lstat(d.name).catch(() => undefined);
        if (stat?.isFile()) out.files.push({ path: [...prefix, d.name].join('/'), size: stat.size });
      }
      continue;
    }
    // openDir never follows a symlink: one swapped in since the readdir fails, and is passed over.
    const child = await dir.openDir(d.name).catch(() => undefined);
    if (!child) continue;
    try {
      await walk(child, real, [...prefix, d.name], out);
    } finally {
      await child.close();
    }
    if (!out.complete) return;
  }
}

export async function listAttachmentFolder(input: HandlerInput): Promise<void> {
  const at = await requestedAttachmentPath(input);
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
      const out: Walk = { files: [], total: 0, walked: 0, complete: true };
      await walk(dir, real, [], out);
      folder = { name: real.join('/'), files: out.files, total: out.total, complete: out.complete };
    } finally {
      await dir.close();
    }
  } finally {
    await at.root.close();
  }
  await sendJson(input.ctx, 200, publicAttachmentFolder(folder));
}
