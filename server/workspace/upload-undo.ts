// Taking back a failed workspace upload: a request is all or nothing, so a refused part, a full disk or a
// departed client removes what the earlier parts left (upload-store.ts names it) and the folders the target
// walk made (upload-target.ts). Here, beside the two steps it reverses, not in the route, so what an upload
// writes and what undoes it are read together.
import type { AnchoredDir } from '../store/anchored.js';
import { removeCreatedDirs } from '../store/files.js';
import { log } from '../core/log.js';
import type { PlacedPart } from './upload-store.js';

/** Take back what a failed request placed: its files, sidecars and extraction directories, then the
 *  directories it made for the target (only if they are empty: a concurrent upload may be using them). */
export async function undoUpload(workspace: string, target: AnchoredDir, placed: readonly PlacedPart[], created: readonly string[]): Promise<void> {
  for (const name of placed.flatMap((p) => p.names)) {
    await target.removeTree(name).catch((err: unknown) => log.warn(`could not take back ${target.pathOf(name)}:`, err));
  }
  await removeCreatedDirs(workspace, created);
}
