// Read-only views of a session's workspace for the UI: a directory listing and a bounded text preview.
import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { HandlerInput } from '../app.js';
import { HttpError } from '../errors.js';
import { isInside } from '../paths.js';
import { redact } from '../redact.js';
import { sendJson, sendText } from '../respond.js';
import { visibleSession } from './sessions.js';

export const MAX_LIST_ENTRIES = 5000;
export const MAX_PREVIEW_BYTES = 1024 * 1024;
const NONBLOCK = fsConstants.O_NONBLOCK ?? 0;
const NOFOLLOW = fsConstants.O_NOFOLLOW ?? 0;

async function resolveInWorkspace(input: HandlerInput): Promise<{ root: string; target: string }> {
  const { ctx, app } = input;
  const session = visibleSession(input, ctx.url.searchParams.get('session_id'));
  const root = await app.workspaces.validate(session.workspace);
  const requested = ctx.url.searchParams.get('path') ?? '';
  const target = path.resolve(root, requested);
  let real: string;
  try {
    real = await fs.realpath(target);
  } catch {
    throw new HttpError(404, 'Not found');
  }
  if (!isInside(root, target) || !isInside(root, real)) throw new HttpError(403, 'Path escapes workspace');
  return { root, target: real };
}

export async function listWorkspace(input: HandlerInput): Promise<void> {
  const { root, target } = await resolveInWorkspace(input);
  let dirents;
  try {
    dirents = await fs.readdir(target, { withFileTypes: true });
  } catch {
    throw new HttpError(400, 'Not a directory');
  }
  const entries = [];
  for (const d of dirents.slice(0, MAX_LIST_ENTRIES)) {
    if (!d.isFile() && !d.isDirectory()) continue;
    const stat = await fs.lstat(path.join(target, d.name)).catch(() => undefined);
    if (!stat) continue;
    entries.push({ name: d.name, type: d.isDirectory() ? 'dir' : 'file', size: stat.size, mtime: stat.mtime.toISOString() });
  }
  entries.sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name) : a.type === 'dir' ? -1 : 1));
  await sendJson(input.ctx, 200, {
    path: path.relative(root, target).split(path.sep).join('/'),
    entries,
    truncated: dirents.length > MAX_LIST_ENTRIES,
  });
}

export async function readWorkspaceFile(input: HandlerInput): Promise<void> {
  const { target } = await resolveInWorkspace(input);
  // Only regular files: opening a FIFO for reading would block a threadpool thread until a writer appears, and
  // four such requests would stall every file operation of the server. O_NONBLOCK makes even a FIFO swapped
  // in after the stat open at once, and the fstat after open catches that swap.
  const before = await fs.stat(target).catch(() => undefined);
  if (!before) throw new HttpError(404, 'Not found');
  if (!before.isFile()) throw new HttpError(400, 'Not a file');
  if (before.size > MAX_PREVIEW_BYTES) throw new HttpError(413, `File too large to preview (max ${MAX_PREVIEW_BYTES} bytes)`);
  const handle = await fs.open(target, fsConstants.O_RDONLY | NONBLOCK | NOFOLLOW).catch(() => {
    throw new HttpError(404, 'Not found');
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
