// The Markdown an Office attachment is sent to the agent as: its sidecar `<name>.md` when there is one, else the
// document converted now, with the sidecar written for the next turn. Everything goes through what input.ts's
// anchored walk holds: the attachment's folder, open as a descriptor, and the file it opened there. A folder
// swapped for a symlink between the walk and this work can then neither have an outside document converted and
// sent to the agent nor have the sidecar written outside (by path, both followed the swap).
import type { FileHandle } from 'node:fs/promises';
import { officeToMarkdown, PREVIEW_MAX_CHARS, type OfficeFormat } from '../../office/index.js';
import { readSidecar, writeSidecar } from '../../office/sidecar.js';
import type { AnchoredDir } from '../../store/anchored.js';

/** Bytes of a sidecar read: all of one Satchel wrote (PREVIEW_MAX_CHARS characters of at most 4 bytes, and
 *  its truncation notice); a larger file someone put there is cut, as the turn's budget would cut it anyway. */
export const MAX_SIDECAR_READ_BYTES = PREVIEW_MAX_CHARS * 4 + 1024;

/** The Markdown of the Office file `file`, named `name` in the held folder `dir`. Throws when it cannot be
 *  converted; a sidecar that cannot be written only goes unwritten, and none is written unless `write`. */
export async function officeMarkdownIn(dir: AnchoredDir, name: string, file: FileHandle, format: OfficeFormat, write = true): Promise<string> {
  const existing = await readSidecar(dir, name, MAX_SIDECAR_READ_BYTES);
  if (existing !== undefined) return existing.bytes.toString('utf8');
  const markdown = Buffer.from(await officeToMarkdown(file, format), 'utf8');
  if (!write) return markdown.toString('utf8');
  // Replacing whatever is at the sidecar's name (no usable sidecar was there). A read-only folder or a race is
  // no reason to lose the document: the next turn converts it again.
  await writeSidecar(dir, name, markdown, { replace: true }).catch(() => {});
  // As the next turn will read it back from the sidecar.
  return markdown.toString('utf8');
}
