// POST /api/attachment/extract: extract an archive this session already stored (a chip restored from a draft
// after a reload: its bytes are no longer in the page to send again). The archive is named by its stored path,
// as the session records it, and opened without following a symlink; the extraction then is that of
// POST /api/upload/extract (attachments/extract.ts extractIntoSession).
import { constants as fsConstants, createWriteStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { HandlerInput } from '../app.js';
import { readJsonBody } from '../http/body.js';
import { sendJson } from '../http/respond.js';
import { HttpError, requireFields, ValueError } from '../core/errors.js';
import { publicExtractResult } from '../projections/index.js';
import { anchorMode, PROC_FD_DIR } from '../store/anchored.js';
import { visibleSession } from '../store/profiles.js';
import { log } from '../core/log.js';
import type * as wire from '../core/wire.js';
import { extractIntoSession, type ExtractBody } from '../attachments/extract.js';
import { ATTACHMENT_NOT_FOUND } from '../attachments/open.js';
import { openSessionFolder } from '../attachments/layout.js';

export const UNKNOWN_ATTACHMENT = 'Unknown attachment';
const NONBLOCK = fsConstants.O_NONBLOCK ?? 0;

/**
 * A path the extractor can open that leads to the very file held by `handle`: its descriptor where the kernel
 * offers one by path (/proc), else a private copy in staging made through the descriptor (removed by `done`).
 */
async function pinnedPath(handle: FileHandle, stagingDir: string): Promise<{ path: string; done(): Promise<void> }> {
  if ((await anchorMode()) === 'proc') return { path: `${PROC_FD_DIR}/${handle.fd}`, done: async () => {} };
  const copy = path.join(stagingDir, `extract-${randomBytes(8).toString('hex')}`);
  const remove = () => import('node:fs/promises').then((f) => f.rm(copy, { force: true }));
  try {
    await pipeline(handle.createReadStream({ start: 0, autoClose: false }), createWriteStream(copy, { flags: 'wx', mode: 0o600 }));
  } catch (err) {
    await remove();
    throw err;
  }
  return { path: copy, done: () => remove().catch((err: unknown) => log.warn('could not remove an extraction copy', err)) };
}

export async function extractStoredAttachment(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const body = await readJsonBody(ctx);
  requireFields(body, ['session_id', 'path']);
  const session = await visibleSession(app.sessions, body.session_id, profile);
  // Only an upload this session recorded: never a file an extraction wrote, never another session's.
  const stored = session.attachments.find((a) => a.path === body.path);
  if (!stored) throw new ValueError(UNKNOWN_ATTACHMENT);
  let result: ExtractBody;
  const base = await openSessionFolder(app.config.stateDir, session.session_id);
  try {
    const name = path.basename(stored.path);
    if (path.dirname(stored.path) !== base.path) throw new HttpError(404, ATTACHMENT_NOT_FOUND);
    // O_NOFOLLOW (openFile): a symlink put in the upload's place is refused, never read through.
    const handle = await base.openFile(name, fsConstants.O_RDONLY | NONBLOCK).catch(() => {
      throw new HttpError(404, ATTACHMENT_NOT_FOUND);
    });
    try {
      if (!(await handle.stat()).isFile()) throw new HttpError(400, 'Not a file');
      const pinned = await pinnedPath(handle, app.stagingDir);
      try {
        result = await extractIntoSession({ maxUploadBytes: input.app.config.maxUploadBytes, events: input.app.events, profile: input.profile, signal: input.ctx.signal }, base, pinned.path, stored.filename, session.session_id);
      } finally {
        await pinned.done();
      }
    } finally {
      await handle.close();
    }
  } finally {
    await base.close();
  }
  await sendJson(ctx, 200, publicExtractResult(result) satisfies wire.ExtractResult);
}
