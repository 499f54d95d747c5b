// Files opened with Satchel (the desktop shell: a file association, `open-file`, a second instance's arguments,
// a drop on the dock or tray icon) arrive in the Inbox conversation through the same storing step as a drop
// (attachments/store-upload.ts: names, limits, .gz, refusals, the search index, `attachment_added`). Each is
// copied into staging through a descriptor opened without following a symlink, and only a regular file within
// the upload limit is taken; what is not taken is said, never thrown.
import { constants as fsc, promises as fs } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { App } from '../app.js';
import { storeStagedAttachment } from '../attachments/store-upload.js';
import { log } from '../core/log.js';
import { inboxSession } from './session.js';

/** Files taken from one open: the shell bounds it too (open-paths.ts); this bounds what the server does. */
export const MAX_OPENED_FILES = 100;
const COPY_CHUNK_BYTES = 1024 * 1024;

export interface OpenedResult {
  /** The Inbox conversation, when anything arrived. */
  sessionId?: string;
  added: string[];
  skipped: { path: string; reason: string }[];
}

/** Copy `file` into `staged` through a descriptor that follows no symlink, at most `max` bytes; its size, or why not. */
async function copyIn(file: string, staged: string, max: number): Promise<number | string> {
  let src: fs.FileHandle;
  try {
    src = await fs.open(file, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ELOOP' ? 'a symlink is not followed' : 'it could not be opened';
  }
  try {
    const stat = await src.stat();
    if (!stat.isFile()) return 'not a regular file';
    if (stat.size > max) return `larger than the upload limit (${max} bytes)`;
    const out = await fs.open(staged, 'wx', 0o600);
    let total = 0;
    try {
      const buf = Buffer.allocUnsafe(COPY_CHUNK_BYTES);
      for (;;) {
        const { bytesRead } = await src.read(buf, 0, buf.length, total);
        if (bytesRead === 0) break;
        total += bytesRead;
        // A file still growing past the limit is not taken half-read.
        if (total > max) return `larger than the upload limit (${max} bytes)`;
        await out.write(buf, 0, bytesRead);
      }
    } finally {
      await out.close();
    }
    return total;
  } finally {
    await src.close();
  }
}

/** `paths` (absolute, as the shell accepted them) into `profile`'s Inbox conversation. */
export async function addFilesToInbox(app: App, profile: string, paths: readonly string[]): Promise<OpenedResult> {
  const result: OpenedResult = { added: [], skipped: [] };
  for (const [i, file] of paths.entries()) {
    if (i >= MAX_OPENED_FILES) {
      result.skipped.push({ path: file, reason: `more than ${MAX_OPENED_FILES} files at once` });
      continue;
    }
    if (!path.isAbsolute(file)) {
      result.skipped.push({ path: file, reason: 'not an absolute path' });
      continue;
    }
    const staged = path.join(app.stagingDir, `open-${randomBytes(8).toString('hex')}`);
    try {
      const copied = await copyIn(file, staged, app.config.maxUploadBytes);
      if (typeof copied === 'string') {
        result.skipped.push({ path: file, reason: copied });
        continue;
      }
      const session = await inboxSession(app, profile);
      const stored = await storeStagedAttachment(app, profile, session.session_id, { stagedPath: staged, filename: path.basename(file), size: copied });
      app.arrivals.record(profile, session.session_id, { source: 'open-with' }, stored);
      result.sessionId = session.session_id;
      result.added.push(stored.filename);
    } catch (err) {
      // A refused kind (7z, RAR) or a full disk: this file is not added, the others still are.
      result.skipped.push({ path: file, reason: err instanceof Error ? err.message : 'it could not be stored' });
      log.warn('open with Satchel: a file was not added', err);
    } finally {
      await fs.rm(staged, { force: true });
    }
  }
  return result;
}
