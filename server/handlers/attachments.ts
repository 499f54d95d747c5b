// POST /api/upload (spec-notes 4.3) and POST /api/upload/extract (spec-notes 4.4): a file or an archive into a session's
// attachment directory.
import path from 'node:path';
import type { HandlerInput } from '../http/app.js';
import type { AnchoredDir } from '../store/anchored.js';
import { allocateExtractionDir, archiveKind, extractArchive, maxExtractedBytes } from '../archive/index.js';
import { writeExtractedSidecars } from '../office/batch.js';
import { SidecarBudget } from '../office/budget.js';
import { readSetting, SETTINGS } from '../settings/table.js';
import { DISK_FULL_EXTRACT, HttpError, isDiskFull, ValueError } from '../errors.js';
import { ensureDir, mkdirInside, placeUnique } from '../store/files.js';
import { guessMime } from '../mime.js';
import { sanitizeFilename, sanitizeName } from '../names.js';
import { isInside } from '../paths.js';
import { parseMultipart, type Multipart, type StagedFile } from '../http/multipart.js';
import { sendJson } from '../http/respond.js';
import { publicAttachment, publicExtractResult } from '../projections/index.js';
import type { Attachment } from '../store/sessions.js';
import { log } from '../log.js';
import { visibleSession } from '../store/profiles.js';
import type * as wire from '../wire.js';

export const MAX_SESSION_DIR_CHARS = 120;
export const ATTACHMENT_DIR_ENV = SETTINGS.attachmentDir.env;

/** SATCHEL_WEBUI_ATTACHMENT_DIR when set and not blank (with `~` expanded), else `<state>/attachments`. */
export function attachmentRoot(stateDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return readSetting('attachmentDir', env) ?? path.join(stateDir, 'attachments');
}

/** spec-notes 4.3 step 5: `<root>/<session dir>`, created, held open and proven to stay inside the root after symlinks
 *  (files.ts mkdirInside). The caller closes it. */
export async function sessionAttachmentDir(stateDir: string, sessionId: string): Promise<AnchoredDir> {
  const root = attachmentRoot(stateDir);
  const name = sanitizeName(sessionId, MAX_SESSION_DIR_CHARS) ?? 'session';
  const dir = path.join(root, name);
  if (!isInside(root, dir) || dir === root) throw new ValueError('Invalid attachment directory');
  try {
    await ensureDir(root);
    return await mkdirInside(root, dir);
  } catch {
    throw new ValueError('Invalid upload destination');
  }
}

/** spec-notes 4.3 steps 2 and 3 (shared with 4.4): the file part, its name, and a session the caller may see. */
function fileAndSession(input: HandlerInput, form: Multipart): { file: StagedFile; sessionId: string } {
  const file = form.requireFile('file');
  const session = visibleSession(input.app.sessions, form.fields.get('session_id'), input.profile);
  return { file, sessionId: session.session_id };
}

export async function uploadAttachment(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const form = await parseMultipart(ctx, { stagingDir: app.stagingDir, capBytes: app.config.maxUploadBytes });
  let attachment: Attachment;
  try {
    const { file, sessionId } = fileAndSession(input, form);
    const safeName = sanitizeFilename(file.filename);
    const dir = await sessionAttachmentDir(app.config.stateDir, sessionId);
    try {
      const placed = await placeUnique(file.stagedPath, dir, safeName, {
        exists: () => `Upload destination already exists: ${safeName}`,
        rejected: () => [403, 'Upload destination rejected'],
      });
      const type = guessMime(placed.name);
      attachment = { filename: placed.name, path: placed.path, size: file.size, mime: type, is_image: type.startsWith('image/') };
      // A file the session does not record would be an orphan nobody can see: it goes if the record fails.
      await app.sessions.addAttachment(sessionId, attachment).catch(async (err: unknown) => {
        await dir.unlink(placed.name).catch((rmErr: unknown) => log.warn('could not remove an unrecorded attachment', rmErr));
        throw err;
      });
    } finally {
      await dir.close();
    }
    app.events.publish({ name: 'attachment_added', profile, data: { session_id: sessionId, attachment } });
  } finally {
    // Before answering: once the client has its answer, nothing of the upload may be left in staging.
    await form.cleanup();
  }
  // A hot path (32 uploads at once into one session): the compact form the specification allows there.
  await sendJson(ctx, 200, publicAttachment(attachment) satisfies wire.Attachment, { compact: true });
}

export type ExtractBody = { ok: true; extracted: number; files: string[]; dest: string; sidecars: wire.ExtractedSidecar[]; skipped: wire.SkippedMember[] };

/**
 * Extract the archive at `archivePath` (named `safeName`) into a new folder of the session's attachment folder
 * `base`, with its Office files' sidecars, and say so on the event stream. Shared by an upload extracted as it
 * arrives and by a stored attachment extracted later (attachment-extract.ts).
 */
export async function extractIntoSession(input: HandlerInput, base: AnchoredDir, archivePath: string, safeName: string, sessionId: string): Promise<ExtractBody> {
  const { ctx, app, profile } = input;
  if (!archiveKind(safeName)) throw new ValueError(`Unsupported archive format: ${safeName}`);
  const dest = await allocateExtractionDir(base, safeName);
  // A client that leaves (or a server that stops) ends the extraction: the extractor removes what it wrote.
  const result = await extractArchive(archivePath, safeName, dest, base, {
    maxBytes: maxExtractedBytes(app.config.maxUploadBytes),
    signal: ctx.signal,
  }).catch((err: NodeJS.ErrnoException) => {
    // Whatever the engine threw on the way out, a departed client is a normal disconnect (debug only).
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (isDiskFull(err)) throw new HttpError(507, DISK_FULL_EXTRACT);
    throw err;
  });
  // Office files inside get their sidecars as in a workspace upload, within one request's allowance. A
  // client that leaves meanwhile ends the request as during the extraction: nothing of it stays.
  const sidecars = await writeExtractedSidecars(base, result.files, new SidecarBudget(), ctx.signal).catch(async (err: unknown) => {
    await base.removeTree(path.basename(dest)).catch((rmErr: unknown) => log.warn('could not remove an abandoned extraction', rmErr));
    throw err;
  });
  app.events.publish({ name: 'attachment_added', profile, data: { session_id: sessionId, file_count: result.files.length, dest } });
  return { ok: true, extracted: result.extracted, files: result.files, dest, sidecars, skipped: result.skipped };
}

export async function uploadAndExtract(input: HandlerInput): Promise<void> {
  const { ctx, app } = input;
  const form = await parseMultipart(ctx, { stagingDir: app.stagingDir, capBytes: app.config.maxUploadBytes });
  let body: ExtractBody;
  try {
    const { file, sessionId } = fileAndSession(input, form);
    const safeName = sanitizeFilename(file.filename);
    const base = await sessionAttachmentDir(app.config.stateDir, sessionId);
    try {
      body = await extractIntoSession(input, base, file.stagedPath, safeName, sessionId);
    } finally {
      await base.close();
    }
  } finally {
    await form.cleanup();
  }
  await sendJson(ctx, 200, publicExtractResult(body) satisfies wire.ExtractResult);
}
