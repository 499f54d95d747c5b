// POST /api/workspace/upload (4.7): files into the session's workspace, archives unpacked in place, Office
// documents given a Markdown preview beside them.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { HandlerInput } from '../app.js';
import { allocateExtractionDir, archiveKind, extractArchive, maxExtractedBytes } from '../archive/index.js';
import { ClientGoneError, DISK_FULL_EXTRACT, HttpError, isDiskFull, ValueError } from '../errors.js';
import { mkdirInside, placeUnique } from '../files.js';
import { guessMime } from '../mime.js';
import { sanitizeFilename } from '../names.js';
import { isInside } from '../paths.js';
import { log } from '../log.js';
import { parseMultipart, type StagedFile } from '../multipart.js';
import { officeFormat, writeOfficeSidecar, type Sidecar } from '../office/index.js';
import { sendJson } from '../respond.js';
import { visibleSession } from './sessions.js';

const EXTRACTION_FAILED = 'Archive extraction failed';
const SIDECAR_FAILED = 'Office sidecar extraction failed';
const ESCAPES = 'Upload target escapes workspace';

export interface WorkspaceItem {
  filename: string;
  path: string;
  size: number;
  mime?: string;
  is_image: boolean;
  extracted: boolean;
  extracted_files?: string[];
  extracted_count?: number;
  extract_error?: string;
  sidecar?: Sidecar;
  sidecar_error?: string;
}

/** 4.7 step 3: the target directory, created, proven inside the workspace after symlinks are resolved. */
export async function uploadTarget(workspace: string, requested: string): Promise<string> {
  const root = await fs.realpath(workspace);
  const target = path.resolve(root, requested);
  if (!isInside(root, target)) throw new HttpError(403, ESCAPES);
  try {
    return await mkdirInside(root, target);
  } catch {
    throw new HttpError(403, ESCAPES);
  }
}

async function storeOne(file: StagedFile, target: string, maxUploadBytes: number, signal: AbortSignal): Promise<WorkspaceItem> {
  const safeName = sanitizeFilename(file.filename);
  if (!isInside(target, path.join(target, safeName))) throw new HttpError(403, `Path traversal blocked: ${safeName}`);
  const placed = await placeUnique(file.stagedPath, target, safeName, {
    exists: (name) => `Upload destination already exists: ${name}`,
    rejected: (name) => [403, `Path traversal blocked: ${name}`],
  });
  const type = guessMime(placed.name);

  if (archiveKind(placed.name)) {
    try {
      const dest = await allocateExtractionDir(target, placed.name);
      const result = await extractArchive(placed.path, placed.name, dest, target, { maxBytes: maxExtractedBytes(maxUploadBytes), signal });
      return {
        filename: placed.name,
        path: dest,
        size: file.size,
        is_image: false,
        extracted: true,
        extracted_files: result.files,
        extracted_count: result.extracted,
      };
    } catch (err) {
      if (!(err instanceof ValueError)) log.warn(`extracting ${placed.name} failed:`, err);
      const text =
        isDiskFull(err)
          ? DISK_FULL_EXTRACT
          : err instanceof ValueError && err.message.trim()
            ? err.message
            : EXTRACTION_FAILED;
      return { filename: placed.name, path: placed.path, size: file.size, mime: type, is_image: false, extracted: false, extract_error: text };
    } finally {
      await fs.rm(placed.path, { force: true });
    }
  }

  const item: WorkspaceItem = { filename: placed.name, path: placed.path, size: file.size, mime: type, is_image: type.startsWith('image/'), extracted: false };
  const format = officeFormat(placed.name);
  if (format) {
    try {
      item.sidecar = await writeOfficeSidecar(placed.path, format);
    } catch (err) {
      log.info(`no preview for ${placed.name}:`, err);
      item.sidecar_error = SIDECAR_FAILED;
    }
  }
  return item;
}

export async function uploadToWorkspace(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const form = await parseMultipart(ctx, { stagingDir: app.stagingDir, capBytes: app.config.maxUploadBytes });
  const items: WorkspaceItem[] = [];
  try {
    const sessionId = form.fields.get('session_id') ?? '';
    if (!sessionId) throw new HttpError(400, 'Missing session_id');
    if (form.files.length === 0) throw new HttpError(400, 'No file field in request');
    const session = visibleSession(input, sessionId);
    const workspace = await app.workspaces.validate(session.workspace);
    const requested = form.fields.get('path') ?? '';
    const target = await uploadTarget(workspace, requested);
    // A client that leaves stops a running extraction (the extractor removes what it wrote).
    const abort = new AbortController();
    const onClose = () => {
      if (!ctx.res.writableFinished) abort.abort(new ClientGoneError());
    };
    ctx.res.once('close', onClose);
    try {
      for (const file of form.files) {
        if (!file.filename) continue;
        items.push(await storeOne(file, target, app.config.maxUploadBytes, abort.signal));
        if (abort.signal.aborted) throw abort.signal.reason;
      }
    } finally {
      ctx.res.off('close', onClose);
    }
    app.events.publish({
      name: 'workspace_changed',
      profile,
      data: { session_id: session.session_id, path: path.relative(workspace, target).split(path.sep).join('/') },
    });
  } finally {
    await form.cleanup();
  }
  await sendJson(ctx, 200, items.length === 1 ? items[0] : { files: items, count: items.length });
}
