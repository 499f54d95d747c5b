// Removing an unsent attachment (a chip taken off a draft, or one the sweep found abandoned): its file, an
// Office sidecar written beside it, the extraction folder its draft chip made, and its record in the session.
// A file a sent message refers to, in any version, is never removed: the conversation would point at nothing.
import path from 'node:path';
import { agentViewSidecarName } from '../attachments/agent-view.js';
import { openSessionFolder, sidecarOf } from '../attachments/layout.js';
import { ATTACHMENT_NOT_FOUND } from '../attachments/open.js';
import { HttpError } from '../core/errors.js';
import { log } from '../core/log.js';
import { officeFormat } from '../office/index.js';
import type { Session, SessionStore } from '../store/sessions.js';
import { VERSIONS_FIELD } from '../store/versions.js';
import { updateDraft } from './store.js';

export const ATTACHMENT_SENT = 'This attachment belongs to a sent message and cannot be deleted';

/**
 * Every path the session's messages refer to, in every version (store/versions.ts: the versions not shown live
 * on the first row of each fork, `_versions`, and a running turn that replaces a tail holds it in
 * `_pending_versions`), and what a turn still running sends: uploads, extraction folders and the archives they
 * came from. A file one of these names is never unsent: switching back to that version shows its chip.
 * Kept per session object (a change replaces the object), so a sweep over many uploads walks each once.
 */
export function sentPaths(session: Session): ReadonlySet<string> {
  let paths = namedBySession.get(session);
  if (!paths) {
    paths = namedPaths(session);
    namedBySession.set(session, paths);
  }
  return paths;
}

const namedBySession = new WeakMap<Session, ReadonlySet<string>>();

function namedPaths(session: Session): Set<string> {
  const paths = new Set<string>();
  const add = (list: unknown): void => {
    if (!Array.isArray(list)) return;
    for (const a of list as unknown[]) {
      const { path: p, archive_path: archive } = (a ?? {}) as { path?: unknown; archive_path?: unknown };
      if (typeof p === 'string') paths.add(p);
      if (typeof archive === 'string') paths.add(archive);
    }
  };
  // Forks nest (a branch of a branch): walked with a list, not recursion, so no stored depth can overflow the stack.
  const rows: unknown[] = [...session.messages];
  const tails = (fork: unknown): void => {
    if (!fork || typeof fork !== 'object') return;
    const { before, after } = fork as { before?: unknown; after?: unknown };
    for (const side of [before, after]) if (Array.isArray(side)) for (const tail of side as unknown[]) if (Array.isArray(tail)) rows.push(...(tail as unknown[]));
  };
  tails(session._pending_versions);
  for (let row = rows.pop(); row !== undefined; row = rows.pop()) {
    if (!row || typeof row !== 'object') continue;
    add((row as { attachments?: unknown }).attachments);
    tails((row as Record<string, unknown>)[VERSIONS_FIELD]);
  }
  add(session.pending_attachments);
  return paths;
}

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException)?.code;
}

/**
 * Remove the unsent upload at `attachmentPath` of `session` and, when given, the extraction folder its chip
 * made (`extractDest`, unless a message refers to it). Only entries directly inside the session's attachment
 * folder are touched, through a directory held open, never following a symlink. 404 when the session has no
 * such upload, 409 when a message refers to it.
 */
export async function removeUnsentAttachment(
  stateDir: string,
  sessions: SessionStore,
  session: Session,
  attachmentPath: string,
  extractDest?: string,
): Promise<Session> {
  const record = session.attachments.find((a) => a.path === attachmentPath);
  if (!record) throw new HttpError(404, ATTACHMENT_NOT_FOUND);
  const sent = sentPaths(session);
  if (sent.has(record.path)) throw new HttpError(409, ATTACHMENT_SENT);
  const dir = await openSessionFolder(stateDir, session.session_id);
  try {
    const gone = async (full: string, tree: boolean): Promise<void> => {
      if (path.dirname(full) !== dir.path) return;
      const name = path.basename(full);
      try {
        if (tree) await dir.removeTree(name);
        else await dir.unlink(name);
      } catch (err) {
        if (errno(err) !== 'ENOENT') throw err;
      }
    };
    await gone(record.path, false);
    if (officeFormat(record.path)) await gone(sidecarOf(record.path), false);
    await gone(path.join(path.dirname(record.path), agentViewSidecarName(path.basename(record.path))), false);
    // A chip's extraction folder is checked as a string when the draft is stored, so it may name any entry of
    // the folder: only a real directory that no record or message owns is removed (never another upload or a sidecar).
    if (extractDest && !sent.has(extractDest) && !session.attachments.some((a) => a.path === extractDest) && path.dirname(extractDest) === dir.path) {
      const stat = await dir.lstat(path.basename(extractDest)).catch(() => undefined);
      if (stat?.isDirectory()) {
        await gone(extractDest, true);
        await gone(path.join(dir.path, agentViewSidecarName(path.basename(extractDest))), false);
      }
    }
  } finally {
    await dir.close();
  }
  const updated = await sessions.update(session.session_id, (s) => {
    s.attachments = s.attachments.filter((a) => a.path !== record.path);
  });
  await updateDraft(stateDir, session.session_id, (d) =>
    d.attachments.some((a) => a.path === record.path) ? { ...d, attachments: d.attachments.filter((a) => a.path !== record.path) } : d,
  ).catch((err: unknown) => log.warn('could not update a draft after removing its attachment', err));
  return updated;
}
