// Sidecars for the Office files an extraction wrote: every `.docx`, `.xlsx` and `.pptx` unpacked from an
// uploaded archive gets its preview, like a file uploaded on its own, within the request's shared budget.
import path from 'node:path';
import type { AnchoredDir } from '../store/anchored.js';
import type { ExtractedSidecar } from '../core/wire.js';
import type { SidecarBudget } from './budget.js';
import { officeFormat, writeOfficeSidecar } from './index.js';
import { sidecarReason } from './office-error.js';
import { SIDECAR_FAILED } from './sidecar.js';
import { log } from '../core/log.js';


/**
 * Write the sidecar of each Office file among `files` (relative to `base`, '/'-separated, as an extraction
 * reports them). Each is reached through directory descriptors from `base`, never following a symlink on the
 * way. A failure is reported for that file and the others go on; a departed client stops the loop.
 */
export async function writeExtractedSidecars(base: AnchoredDir, files: readonly string[], budget: SidecarBudget, signal?: AbortSignal): Promise<ExtractedSidecar[]> {
  const out: ExtractedSidecar[] = [];
  for (const file of files) {
    const format = officeFormat(file);
    if (!format) continue;
    signal?.throwIfAborted();
    const segments = file.split('/');
    const name = segments.pop()!;
    const dirs: AnchoredDir[] = [];
    try {
      let dir = base;
      for (const segment of segments) dirs.push((dir = await dir.openDir(segment)));
      out.push({ file, sidecar: await writeOfficeSidecar(dir, name, format, budget) });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      log.info(`no preview for ${path.posix.basename(file)}:`, err);
      out.push({ file, sidecar_error: SIDECAR_FAILED, sidecar_reason: sidecarReason(err) });
    } finally {
      for (const d of dirs.reverse()) await d.close();
    }
  }
  return out;
}
