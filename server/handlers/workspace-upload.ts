// POST /api/workspace/upload (spec-notes 4.7): files into the session's workspace, archives unpacked in place, Office
// documents given a Markdown preview beside them.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { HandlerInput } from '../app.js';
import { AnchoredDir } from '../store/anchored.js';
import { openInside } from '../store/anchored-walk.js';
import { ProtectedPlaceError, type ProtectedPlaces } from '../store/protected.js';
import { allocateExtractionDir, archiveKind, extractArchive, maxExtractedBytes } from '../archive/index.js';
import { NAME_MAX_BYTES, PATH_MAX_BYTES } from '../archive/fit-names.js';
import { DISK_FULL_EXTRACT, HttpError, isDiskFull, ValueError } from '../core/errors.js';
import { mkdirInside, placeUnique, removeCreatedDirs } from '../store/files.js';
import { classifyFile } from '../content/index.js';
import { guessMime } from '../core/mime.js';
import { sanitizeFilename } from '../core/names.js';
import { isCredentialPath, isHiddenName, isInside } from '../core/paths.js';
import { log } from '../core/log.js';
import { parseMultipart, type StagedFile } from '../http/multipart.js';
import { officeFormat, SidecarBudget, sidecarReason, writeOfficeSidecar, type Sidecar } from '../office/index.js';
import { writeExtractedSidecars } from '../office/batch.js';
import { SIDECAR_FAILED } from '../office/sidecar.js';
import { sendJson } from '../http/respond.js';
import { publicWorkspaceUpload } from '../projections/index.js';
import { visibleSession } from '../store/profiles.js';

const EXTRACTION_FAILED = 'Archive extraction failed';
const ESCAPES = 'Upload target escapes workspace';

import type { WorkspaceItem } from '../core/wire.js';
import type { WorkspaceUploadResponse } from '../core/wire.js';

export type { WorkspaceItem };

export const CREDENTIAL_TARGET = 'Upload target is a credential folder';
export const HIDDEN_TARGET = 'Upload target is a hidden folder (turn on hidden files to use it)';
/** The folder asked for cannot exist on this file system, or a file in it could not be opened by path. */
export const TARGET_TOO_LONG = 'Upload target path is too long for the file system';
export const PROTECTED_TARGET = "Upload target is a protected folder (Satchel's own data or saved credentials)";

/**
 * True when `target` (below `root`) is, or lies inside, a protected place (store/protected.ts): by the name of
 * every component, then by the identity of every existing directory on the way, walked as uploads walk. A
 * missing component ends the walk without a verdict: what follows does not exist yet, so only its name counts.
 */
async function reachesProtected(root: string, target: string, guard: ProtectedPlaces): Promise<boolean> {
  await guard.fresh();
  const segments = path.relative(root, target).split(path.sep).filter(Boolean);
  if (segments.some((_, i) => guard.isPlace(path.join(root, ...segments.slice(0, i + 1))))) return true;
  const anchor = await AnchoredDir.open(root);
  try {
    await (await openInside(anchor, segments, { check: guard.check })).close();
    return false;
  } catch (err) {
    return err instanceof ProtectedPlaceError;
  } finally {
    await anchor.close();
  }
}

/** Why a target below the workspace root may not receive uploads, judged on its components; null when it may. */
function targetProblem(root: string, target: string, allowHidden: boolean): string | null {
  const segments = path.relative(root, target).split(path.sep).filter(Boolean);
  // What the workspace never lists or previews, it does not write into either (`~/.ssh/authorized_keys`).
  if (isCredentialPath(segments)) return CREDENTIAL_TARGET;
  if (!allowHidden && segments.some(isHiddenName)) return HIDDEN_TARGET;
  return null;
}

/** spec-notes 4.7 step 3: the target directory, created, held open, proven inside the workspace after symlinks are
 *  resolved, and neither a credential store nor (unless asked for) hidden, by its name or by where a link on
 *  the way led. Directories it made are pushed onto `created` (parents first). The caller closes it. */
export async function uploadTarget(
  workspace: string,
  requested: string,
  created?: string[],
  allowHidden = false,
  guard?: ProtectedPlaces,
): Promise<AnchoredDir> {
  const root = await fs.realpath(workspace);
  const target = path.resolve(root, requested);
  if (!isInside(root, target)) throw new HttpError(403, ESCAPES);
  const asNamed = targetProblem(root, target, allowHidden);
  if (asNamed) throw new HttpError(403, asNamed);
  // A folder name over NAME_MAX would fail mkdir with ENAMETOOLONG (reported as an escape before); a path leaving
  // no room for a file name in it (NAME_MAX more) would hold files nothing can open by path. The person's
  // choice, not shortened: a clear 400.
  const tooLong = (s: string) => Buffer.byteLength(s, 'utf8') > NAME_MAX_BYTES;
  if (path.relative(root, target).split(path.sep).some(tooLong) || Buffer.byteLength(target, 'utf8') + 1 + NAME_MAX_BYTES + 1 > PATH_MAX_BYTES) {
    throw new HttpError(400, TARGET_TOO_LONG);
  }
  // Before anything is made: no directory is created inside a protected place.
  if (guard && (await reachesProtected(root, target, guard))) throw new HttpError(403, PROTECTED_TARGET);
  const made: string[] = [];
  let dir: AnchoredDir;
  try {
    dir = await mkdirInside(root, target, made);
  } catch {
    // A target refused half-way (a file or an outside link further down) leaves no directories behind.
    await removeCreatedDirs(root, made);
    throw new HttpError(403, ESCAPES);
  }
  // And where the walk really led, now that every directory exists (a link or another spelling on the way).
  const asReached = targetProblem(root, dir.path, allowHidden) ?? (guard && (await reachesProtected(root, dir.path, guard)) ? PROTECTED_TARGET : null);
  if (asReached) {
    await dir.close();
    await removeCreatedDirs(root, made);
    throw new HttpError(403, asReached);
  }
  created?.push(...made);
  return dir;
}

/** What one stored part left in the target directory, so a failed request can take it back. */
interface Placed {
  item: WorkspaceItem;
  /** Names in the target directory: the file, its sidecar, or the extraction directory. */
  names: string[];
}

async function storeOne(file: StagedFile, target: AnchoredDir, maxUploadBytes: number, signal: AbortSignal, budget: SidecarBudget): Promise<Placed> {
  const safeName = sanitizeFilename(file.filename);
  if (!isInside(target.path, target.pathOf(safeName))) throw new HttpError(403, `Path traversal blocked: ${safeName}`);
  const placed = await placeUnique(file.stagedPath, target, safeName, {
    exists: (name) => `Upload destination already exists: ${name}`,
    rejected: (name) => [403, `Path traversal blocked: ${name}`],
  });
  const type = guessMime(placed.name);

  if (archiveKind(placed.name)) {
    try {
      const dest = await allocateExtractionDir(target, placed.name);
      // Extracted from the staged copy, which no other process can rearrange; the placed archive only
      // reserved the name and goes away below.
      const result = await extractArchive(file.stagedPath, placed.name, dest, target, { maxBytes: maxExtractedBytes(maxUploadBytes), signal });
      const item: WorkspaceItem = {
        filename: placed.name,
        path: dest,
        size: file.size,
        is_image: false,
        extracted: true,
        extracted_files: result.files,
        extracted_count: result.extracted,
        skipped: result.skipped,
      };
      // Office files inside the archive get their sidecars too (inside the extraction directory, so a failed
      // request takes them back with it).
      const sidecars = await writeExtractedSidecars(target, result.files, budget, signal);
      if (sidecars.length) item.sidecars = sidecars;
      return { item, names: [path.basename(dest)] };
    } catch (err) {
      // A departed client or a stopping server is a normal end, not an extraction problem worth a warning.
      if (signal.aborted) throw signal.reason;
      if (!(err instanceof ValueError)) log.warn(`extracting ${placed.name} failed:`, err);
      const text =
        isDiskFull(err)
          ? DISK_FULL_EXTRACT
          : err instanceof ValueError && err.message.trim()
            ? err.message
            : EXTRACTION_FAILED;
      // `path` is where it would have been extracted in place (the archive itself is removed below).
      return { item: { filename: placed.name, path: target.path, size: file.size, mime: type, is_image: false, extracted: false, extract_error: text }, names: [] };
    } finally {
      await target.unlink(placed.name).catch(() => {});
    }
  }

  // An image by its bytes (content/kind.ts), read from the staged copy: the name never makes one.
  const isImage = (await classifyFile(file.stagedPath, placed.name)).kind === 'image';
  const item: WorkspaceItem = { filename: placed.name, path: placed.path, size: file.size, mime: type, is_image: isImage, extracted: false };
  const names = [placed.name];
  const format = officeFormat(placed.name);
  if (format) {
    try {
      // Read and written through the directory's descriptor, so the sidecar lands beside the document.
      const sidecar = await writeOfficeSidecar(target, placed.name, format, budget);
      names.push(sidecar.filename);
      item.sidecar = sidecar;
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      log.info(`no preview for ${placed.name}:`, err);
      item.sidecar_error = SIDECAR_FAILED;
      item.sidecar_reason = sidecarReason(err);
    }
  }
  return { item, names };
}

/** Take back what a failed request placed: its files, sidecars and extraction directories, then the
 *  directories it made for the target (only if they are empty: a concurrent upload may be using them). */
async function undo(workspace: string, target: AnchoredDir, placed: readonly Placed[], created: readonly string[]): Promise<void> {
  for (const name of placed.flatMap((p) => p.names)) {
    await target.removeTree(name).catch((err: unknown) => log.warn(`could not take back ${target.pathOf(name)}:`, err));
  }
  await removeCreatedDirs(workspace, created);
}

export async function uploadToWorkspace(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const form = await parseMultipart(ctx, { stagingDir: app.stagingDir, capBytes: app.config.maxUploadBytes });
  const placed: Placed[] = [];
  try {
    const sessionId = form.fields.get('session_id') ?? '';
    if (!sessionId) throw new HttpError(400, 'Missing session_id');
    const parts = form.fileParts();
    if (parts.length === 0) throw new HttpError(400, 'No file field in request');
    const session = await visibleSession(input.app.sessions, sessionId, input.profile);
    const workspace = await app.workspaces.validate(session.workspace);
    const requested = form.fields.get('path') ?? '';
    const created: string[] = [];
    const target = await uploadTarget(workspace, requested, created, form.fields.get('hidden') === '1', app.workspaces.protectedPlaces);
    // One allowance for every Office preview this request writes, however many files it carries or unpacks.
    const budget = new SidecarBudget();
    try {
      // All or nothing: a refused part (a bad name, a full disk) or a departed client takes back the earlier
      // parts. A client that leaves stops a running extraction (the extractor removes what it wrote).
      for (const file of parts) {
        if (!file.filename) continue;
        ctx.signal.throwIfAborted();
        placed.push(await storeOne(file, target, app.config.maxUploadBytes, ctx.signal, budget));
      }
      ctx.signal.throwIfAborted();
    } catch (err) {
      await undo(workspace, target, placed, created);
      throw err;
    } finally {
      await target.close();
    }
    app.events.publish({
      name: 'workspace_changed',
      profile,
      data: { session_id: session.session_id, path: path.relative(workspace, target.path).split(path.sep).join('/') },
    });
  } finally {
    await form.cleanup();
  }
  await sendJson(ctx, 200, publicWorkspaceUpload(placed.map((p) => p.item)) satisfies WorkspaceUploadResponse | undefined);
}
