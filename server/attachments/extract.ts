// Extracting an archive into a session's attachment folder, with its Office files' sidecars, for both routes
// that do it (POST /api/upload/extract and POST /api/attachment/extract).
import path from 'node:path';
import { allocateExtractionDir, archiveKind, extractArchive, maxExtractedBytes } from '../archive/index.js';
import { DISK_FULL_EXTRACT, HttpError, isDiskFull } from '../core/errors.js';
import { log } from '../core/log.js';
import { writeExtractedSidecars } from '../office/batch.js';
import { SidecarBudget } from '../office/budget.js';
import type { AnchoredDir } from '../store/anchored.js';
import type { EventBus } from '../store/events.js';
import type * as wire from '../core/wire.js';
import { attachKind, RAR_REFUSED, SEVEN_ZIP_REFUSED } from './attach-kind.js';

/** What an extraction needs of its request and its application: no more (not the whole `App`). */
export interface ExtractRequest {
  /** The upload limit, from which the cap on extracted bytes follows. */
  maxUploadBytes: number;
  events: EventBus;
  profile: string;
  /** The request's: a client that leaves (or a server that stops) ends the extraction. */
  signal: AbortSignal;
}

export type ExtractBody = { ok: true; extracted: number; files: string[]; dest: string; sidecars: wire.ExtractedSidecar[]; skipped: wire.SkippedMember[] };

/**
 * The specification's 400 for a name no engine extracts (http-and-uploads.md 4.4.3 fixes its text), with the
 * reason as `hint` when the archive is a 7z or RAR one (by its bytes, else its name): the person learns what to do.
 */
async function unsupportedArchive(archivePath: string, safeName: string): Promise<HttpError> {
  const kind = await attachKind(archivePath, safeName).catch(() => undefined);
  const lower = safeName.toLowerCase();
  const reason = kind?.kind === 'refused' ? kind.reason : lower.endsWith('.7z') ? SEVEN_ZIP_REFUSED : lower.endsWith('.rar') ? RAR_REFUSED : undefined;
  return new HttpError(400, `Unsupported archive format: ${safeName}`, reason ? { hint: reason } : undefined);
}

/**
 * Extract the archive at `archivePath` (named `safeName`) into a new folder of the session's attachment folder
 * `base`, with its Office files' sidecars, and say so on the event stream. Shared by an upload extracted as it
 * arrives (handlers/attachments.ts) and by a stored attachment extracted later (handlers/attachment-extract.ts).
 */
export async function extractIntoSession(request: ExtractRequest, base: AnchoredDir, archivePath: string, safeName: string, sessionId: string): Promise<ExtractBody> {
  const { events, profile, signal } = request;
  if (!archiveKind(safeName)) throw await unsupportedArchive(archivePath, safeName);
  const dest = await allocateExtractionDir(base, safeName);
  // A client that leaves (or a server that stops) ends the extraction: the extractor removes what it wrote.
  const result = await extractArchive(archivePath, safeName, dest, base, {
    maxBytes: maxExtractedBytes(request.maxUploadBytes),
    signal,
  }).catch((err: NodeJS.ErrnoException) => {
    // Whatever the engine threw on the way out, a departed client is a normal disconnect (debug only).
    if (signal.aborted) throw signal.reason;
    if (isDiskFull(err)) throw new HttpError(507, DISK_FULL_EXTRACT);
    throw err;
  });
  // Office files inside get their sidecars as in a workspace upload, within one request's allowance. A
  // client that leaves meanwhile ends the request as during the extraction: nothing of it stays.
  const sidecars = await writeExtractedSidecars(base, result.files, new SidecarBudget(), signal).catch(async (err: unknown) => {
    await base.removeTree(path.basename(dest)).catch((rmErr: unknown) => log.warn('could not remove an abandoned extraction', rmErr));
    throw err;
  });
  events.publish({ name: 'attachment_added', profile, data: { session_id: sessionId, file_count: result.files.length, dest } });
  return { ok: true, extracted: result.extracted, files: result.files, dest, sidecars, skipped: result.skipped };
}
