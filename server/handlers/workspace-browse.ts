// Read-only views of a session's workspace for the UI: a directory listing and a bounded text preview.
import { constants as fsConstants } from 'node:fs';
import path from 'node:path';
import type { HandlerInput } from '../http/app.js';
import { AnchoredDir, EscapeError } from '../store/anchored.js';
import { locateInside, openInside } from '../store/anchored-walk.js';
import { HttpError } from '../errors.js';
import { isCredentialPath, isHiddenName, isInside } from '../paths.js';
import { redact } from '../redact.js';
import { sendJson, sendText } from '../http/respond.js';
import { visibleSession } from '../store/profiles.js';
import type { WorkspaceEntry, WorkspaceListing } from '../wire.js';

export const MAX_LIST_ENTRIES = 5000;
export const MAX_PREVIEW_BYTES = 1024 * 1024;
/** The query flag that shows hidden entries (`hidden=1`). Credential stores stay out regardless. */
export const SHOW_HIDDEN_PARAM = 'hidden';
const NONBLOCK = fsConstants.O_NONBLOCK ?? 0;
const NOT_FOUND = 'Not found';

interface Request {
  root: AnchoredDir;
  /** The requested path's components below the root (lexically normalized, so no `..`). */
  segments: string[];
  showHidden: boolean;
}

/**
 * The session's workspace held open, and the requested path as components. Every later step goes through
 * descriptors (anchored.ts), so a directory swapped for a symlink meanwhile is refused, never followed out.
 */
async function openRequest(input: HandlerInput): Promise<Request> {
  const { ctx, app } = input;
  const session = visibleSession(input.app.sessions, ctx.url.searchParams.get('session_id'), input.profile);
  const workspace = await app.workspaces.validate(session.workspace);
  const requested = ctx.url.searchParams.get('path') ?? '';
  // No file has a NUL in its name: missing, as it always was.
  if (requested.includes('\0')) throw new HttpError(404, NOT_FOUND);
  const target = path.resolve(workspace, requested);
  if (!isInside(workspace, target)) throw new HttpError(403, 'Path escapes workspace');
  const segments = path.relative(workspace, target).split(path.sep).filter(Boolean);
  const showHidden = ctx.url.searchParams.get(SHOW_HIDDEN_PARAM) === '1';
  // Refused before the disk is touched, with the answer a missing file gets: existence is not revealed.
  if (!visible(segments, showHidden)) throw new HttpError(404, NOT_FOUND);
  const root = await AnchoredDir.open(workspace).catch(() => {
    throw new HttpError(404, NOT_FOUND);
  });
  return { root, segments, showHidden };
}

/** Hidden components only when asked for; credential stores never. */
function visible(segments: readonly string[], showHidden: boolean): boolean {
  if (isCredentialPath(segments)) return false;
  return showHidden || !segments.some(isHiddenName);
}

/** Escapes are 403 as before; anything else that stops a walk (missing, not a directory) is 404. */
function walkFailure(err: unknown): HttpError {
  if (err instanceof EscapeError) return new HttpError(403, 'Path escapes workspace');
  return new HttpError(404, NOT_FOUND);
}

function relative(root: AnchoredDir, dir: string): string[] {
  return path.relative(root.path, dir).split(path.sep).filter(Boolean);
}

export async function listWorkspace(input: HandlerInput): Promise<void> {
  const { root, segments, showHidden } = await openRequest(input);
  try {
    const dir = await openInside(root, segments).catch((err: unknown) => {
      if (err instanceof EscapeError) throw walkFailure(err);
      // A file is not a directory (400, as before); a missing path is 404.
      throw (err as NodeJS.ErrnoException).code === 'ENOENT' ? new HttpError(404, NOT_FOUND) : new HttpError(400, 'Not a directory');
    });
    try {
      const real = relative(root, dir.path);
      // Where a symlink led counts too: a link to `.ssh` lists nothing.
      if (!visible(real, showHidden)) throw new HttpError(404, NOT_FOUND);
      const dirents = (await dir.readdir()).filter((d) => (d.isFile() || d.isDirectory()) && visible([...real, d.name], showHidden));
      const entries: WorkspaceEntry[] = [];
      for (const d of dirents.slice(0, MAX_LIST_ENTRIES)) {
        const stat = await dir.lstat(d.name).catch(() => undefined);
        if (!stat) continue;
        entries.push({ name: d.name, type: d.isDirectory() ? 'dir' : 'file', size: stat.size, mtime: stat.mtime.toISOString() });
      }
      entries.sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name) : a.type === 'dir' ? -1 : 1));
      await sendJson(input.ctx, 200, { path: real.join('/'), entries, truncated: dirents.length > MAX_LIST_ENTRIES } satisfies WorkspaceListing);
    } finally {
      await dir.close();
    }
  } finally {
    await root.close();
  }
}

export async function readWorkspaceFile(input: HandlerInput): Promise<void> {
  const { root, segments, showHidden } = await openRequest(input);
  try {
    if (segments.length === 0) throw new HttpError(400, 'Not a file');
    const found = await locateInside(root, segments).catch((err: unknown) => {
      if (err instanceof HttpError) throw err;
      if ((err as Error).message === 'Not a file') throw new HttpError(400, 'Not a file');
      throw walkFailure(err);
    });
    try {
      if (!visible(found.segments, showHidden)) throw new HttpError(404, NOT_FOUND);
      await sendPreview(input, found.parent, found.name, found.stat);
    } finally {
      await found.parent.close();
    }
  } finally {
    await root.close();
  }
}

async function sendPreview(input: HandlerInput, dir: AnchoredDir, name: string, before: { ino: number; dev: number; size: number; isFile(): boolean }): Promise<void> {
  // Only regular files: opening a FIFO for reading would block a threadpool thread until a writer appears, and
  // four such requests would stall every file operation of the server. O_NONBLOCK makes even a FIFO swapped
  // in after the stat open at once, and the fstat after open catches that swap.
  if (!before.isFile()) throw new HttpError(400, 'Not a file');
  if (before.size > MAX_PREVIEW_BYTES) throw new HttpError(413, `File too large to preview (max ${MAX_PREVIEW_BYTES} bytes)`);
  const handle = await dir.openFile(name, fsConstants.O_RDONLY | NONBLOCK).catch(() => {
    throw new HttpError(404, NOT_FOUND);
  });
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.ino !== before.ino || stat.dev !== before.dev) throw new HttpError(400, 'Not a file');
    if (stat.size > MAX_PREVIEW_BYTES) throw new HttpError(413, `File too large to preview (max ${MAX_PREVIEW_BYTES} bytes)`);
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(stat.size), 0, stat.size, 0);
    // Previews are API responses too: secrets in a workspace file are masked like everywhere else.
    sendText(input.ctx, 200, redact(buffer.subarray(0, bytesRead).toString('utf8')));
  } finally {
    await handle.close();
  }
}
