// One file of a workspace upload stored in its target folder (spec-notes 4.7 steps 4-6): placed under a unique
// safe name, an archive unpacked in place (the archive itself not kept), an Office document given its Markdown
// preview beside it. Here, not in the route (handlers/workspace-upload.ts), because what an upload leaves in a
// workspace is the workspace's business; the route only reads the request and answers. What each part left is
// returned as names in the target, so a failed request can take it all back (upload-undo.ts).
import path from 'node:path';
import type { AnchoredDir } from '../store/anchored.js';
import { placeUnique } from '../store/files.js';
import { allocateExtractionDir, archiveKind, extractArchive, maxExtractedBytes } from '../archive/index.js';
import { DISK_FULL_EXTRACT, HttpError, isDiskFull, ValueError } from '../core/errors.js';
import { classifyFile } from '../content/index.js';
import { guessMime } from '../core/mime.js';
import { sanitizeFilename } from '../core/names.js';
import { isInside } from '../core/paths.js';
import { log } from '../core/log.js';
import type { StagedFile } from '../http/multipart.js';
import { officeFormat, sidecarReason, writeOfficeSidecar, type SidecarBudget } from '../office/index.js';
import { writeExtractedSidecars } from '../office/batch.js';
import { SIDECAR_FAILED } from '../office/sidecar.js';
import type { WorkspaceItem } from '../core/wire.js';

const EXTRACTION_FAILED = 'Archive extraction failed';

/** What one stored part left in the target directory, so a failed request can take it back. */
export interface PlacedPart {
  item: WorkspaceItem;
  /** Names in the target directory: the file, its sidecar, or the extraction directory. */
  names: string[];
}

/**
 * Store one staged part in `target`. A refused name or a full disk throws (the caller takes back the request's
 * earlier parts); an archive that cannot be extracted is an item with `extract_error`, not a failure.
 */
export async function storeUploadPart(file: StagedFile, target: AnchoredDir, maxUploadBytes: number, signal: AbortSignal, budget: SidecarBudget): Promise<PlacedPart> {
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

  // An image by its bytes (content/kind.ts), read from the staged copy: the name never makes one. A read that
  // fails only costs the thumbnail (the placed file is not yet listed for an undo to remove).
  const isImage = (await classifyFile(file.stagedPath, placed.name).catch(() => undefined))?.kind === 'image';
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
