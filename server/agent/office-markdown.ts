// The Markdown an Office attachment is sent to the agent as: its sidecar `<name>.md` when there is one, else the
// document converted now, with the sidecar written for the next turn. Everything goes through what input.ts's
// anchored walk holds: the attachment's folder, open as a descriptor, and the file it opened there. A folder
// swapped for a symlink between the walk and this work can then neither have an outside document converted and
// sent to the agent nor have the sidecar written outside (by path, both followed the swap).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { officeToMarkdown, SIDECAR_SUFFIX, type OfficeFormat } from '../office/index.js';
import type { AnchoredDir } from '../store/anchored.js';
import { STORED_FILE_MODE } from '../store/file-mode.js';

const { O_RDONLY, O_WRONLY } = fs.constants;
// A FIFO put where the sidecar should be would hold the open (and the turn) until a writer came.
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
const TEMP_NAME_BYTES = 6;

/** The Markdown of the Office file `file`, named `name` in the held folder `dir`. Throws when it cannot be
 *  converted; a sidecar that cannot be written only goes unwritten. */
export async function officeMarkdownIn(dir: AnchoredDir, name: string, file: FileHandle, format: OfficeFormat): Promise<string> {
  const sidecar = name + SIDECAR_SUFFIX;
  const existing = await readSidecar(dir, sidecar);
  if (existing !== undefined) return existing;
  const markdown = Buffer.from(await officeToMarkdown(file, format), 'utf8');
  // A read-only folder or a race is no reason to lose the document: the next turn converts it again.
  await writeSidecar(dir, sidecar, markdown).catch(() => {});
  // As the next turn will read it back from the sidecar.
  return markdown.toString('utf8');
}

/** The sidecar's text; undefined when there is none, or what is there is not a regular file. No symlink is
 *  followed. */
async function readSidecar(dir: AnchoredDir, name: string): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await dir.openFile(name, O_RDONLY | O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    return (await handle.readFile()).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => {});
  }
}

/**
 * Written whole under a temporary name, created exclusively and never through a symlink, then renamed into
 * place inside the same held folder: a turn reading at the same time finds the whole sidecar or none, and a
 * symlink at the sidecar's name is replaced, never followed. On failure the temporary file is removed.
 */
async function writeSidecar(dir: AnchoredDir, name: string, data: Buffer): Promise<void> {
  const temp = `.${name}.${randomBytes(TEMP_NAME_BYTES).toString('hex')}.tmp`;
  const handle = await dir.createFile(temp, O_WRONLY, STORED_FILE_MODE);
  try {
    await handle.writeFile(data);
    await handle.close();
    // Through the held descriptor on Linux (both names reached inside that very folder). Elsewhere these are
    // paths, and a folder swapped just now could only turn this into a rename of a file that is not there:
    // the temporary name is random and was created in our folder.
    await fs.promises.rename(dir.entry(temp), dir.entry(name));
  } catch (err) {
    await handle.close().catch(() => {});
    await dir.unlink(temp).catch(() => {});
    throw err;
  }
}
