// Quick capture's uploads are staged in one conversation (the capture draft's `session_id`); a capture sent to
// another conversation moves them there first: each copied in under a name unique there, recorded, then taken
// off the staging conversation. The capture route (handlers/capture.ts) decides where; this does the move.
import { constants, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ATTACHMENT_NOT_FOUND } from '../attachments/open.js';
import { openSessionFolder } from '../attachments/layout.js';
import { HttpError } from '../core/errors.js';
import { log } from '../core/log.js';
import { givenWithSuffix } from '../core/names.js';
import { refuseOverCap } from '../store/caps.js';
import type { EventBus } from '../store/events.js';
import { placeUnique } from '../store/files.js';
import type { Attachment, Session, SessionStore } from '../store/sessions.js';
import { removeUnsentAttachment } from './remove.js';

/** What a move needs of the application and the request: no more (not the whole `App`). */
export interface CaptureMove {
  sessions: SessionStore;
  events: EventBus;
  stateDir: string;
  /** Where the copy is written before it is placed (the same file system as the state folder). */
  stagingDir: string;
  profile: string;
}

/**
 * Copy a stored upload to `to` (a new file), never through a symlink: only a regular file the session folder
 * holds itself is copied, whatever its record names.
 */
async function copyStoredFile(from: string, to: string): Promise<void> {
  let src: fs.FileHandle;
  try {
    src = await fs.open(from, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    throw new HttpError(404, ATTACHMENT_NOT_FOUND);
  }
  try {
    if (!(await src.stat()).isFile()) throw new HttpError(404, ATTACHMENT_NOT_FOUND);
    await pipeline(src.createReadStream({ autoClose: false }), createWriteStream(to, { flags: 'wx', mode: 0o600 }));
  } finally {
    await src.close();
  }
}

/**
 * Move the staged uploads into `target`: each copied in under a name unique there, recorded, then taken off the
 * staging conversation. Returns the target's paths in the same order. A copy that fails leaves the staged upload
 * where it was (the draft keeps naming it), and what was copied already is recorded in the target.
 */
export async function moveStagedUploads(app: CaptureMove, from: Session, target: Session, paths: readonly string[]): Promise<string[]> {
  const moved: string[] = [];
  // All of them or none: a full target is refused before a file is copied (the store checks each again).
  refuseOverCap('attachments', target.attachments.length, paths.length);
  const dir = await openSessionFolder(app.stateDir, target.session_id);
  try {
    for (const p of paths) {
      const record = from.attachments.find((a) => a.path === p)!;
      const tmp = path.join(app.stagingDir, `capture-${randomBytes(8).toString('hex')}`);
      try {
        await copyStoredFile(p, tmp);
        const placed = await placeUnique(tmp, dir, record.filename, {
          exists: () => `Upload destination already exists: ${record.filename}`,
          rejected: () => [403, 'Upload destination rejected'],
        });
        const copy: Attachment = { ...record, filename: placed.name, path: placed.path };
        // The person's name for it follows a duplicate suffix the move gave the stored one.
        if (record.display_name !== undefined) copy.display_name = givenWithSuffix(record.display_name, record.filename, placed.name);
        await app.sessions.addAttachment(target.session_id, copy).catch(async (err: unknown) => {
          await dir.unlink(placed.name).catch((rmErr: unknown) => log.warn('could not remove an unrecorded capture upload', rmErr));
          throw err;
        });
        moved.push(placed.path);
      } finally {
        await fs.rm(tmp, { force: true });
      }
      const fresh = (await app.sessions.get(from.session_id)) ?? from;
      await removeUnsentAttachment(app.stateDir, app.sessions, fresh, p).catch((err: unknown) => log.warn('could not remove a moved capture upload', err));
    }
  } finally {
    await dir.close();
  }
  // The staging conversation lost its copies: a window showing it reads it again.
  if (moved.length > 0) app.events.publish({ name: 'session_updated', profile: app.profile, data: { session_id: from.session_id } });
  return moved;
}
