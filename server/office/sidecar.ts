// Office sidecars (spec-notes 4.7 step 7): the Markdown preview `<name>.md` beside a .docx, .xlsx or .pptx,
// read back instead of converting again. Every sidecar is read and written here, always through the folder
// its document was opened in (held as a descriptor), never through a symlink, and written whole under a
// temporary name first: a reader finds the whole sidecar or none, never half of one.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { AnchoredDir } from '../store/anchored.js';
import { STORED_FILE_MODE } from '../store/file-mode.js';

/** A sidecar is its document's name with this appended. */
export const SIDECAR_SUFFIX = '.md';
/** The spec's fixed text for any sidecar failure in an upload's answer; `sidecar_reason` says which. */
export const SIDECAR_FAILED = 'Office sidecar extraction failed';
/** The random part of a temporary sidecar's name: never guessed, never met twice. */
const TEMP_NAME_BYTES = 6;

const { O_RDONLY, O_WRONLY } = fs.constants;
// A FIFO put where the sidecar should be would hold the open (and the request) until a writer came.
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/** The sidecar's name for the document named `document`. */
export function sidecarName(document: string): string {
  return document + SIDECAR_SUFFIX;
}

/**
 * The sidecar of `document` in the held folder `dir`: at most `maxBytes` of it and its whole size; undefined
 * when there is none, or what is there is not a regular file (a symlink is never followed).
 */
export function readSidecar(dir: AnchoredDir, document: string, maxBytes: number): Promise<{ bytes: Buffer; size: number } | undefined> {
  return readBeside(dir, sidecarName(document), maxBytes);
}

/** The file `name` of the held folder `dir`, read as a sidecar is (any sidecar: the Office preview, the agent's
 *  view of an attachment): at most `maxBytes`, undefined when missing or not a regular file. */
export async function readBeside(dir: AnchoredDir, name: string, maxBytes: number): Promise<{ bytes: Buffer; size: number } | undefined> {
  let handle: FileHandle;
  try {
    handle = await dir.openFile(name, O_RDONLY | O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return undefined;
    const bytes = Buffer.alloc(Math.min(stat.size, maxBytes));
    let got = 0;
    while (got < bytes.length) {
      const { bytesRead } = await handle.read(bytes, got, bytes.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return { bytes: bytes.subarray(0, got), size: stat.size };
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => {});
  }
}

/**
 * Write `data` as the sidecar of `document` in the held folder `dir`: whole, under a temporary name created
 * exclusively and never through a symlink, then put in place inside that same folder. `replace: false` (an
 * upload's sidecar) links it in, so anything already at the sidecar's name, a symlink included, stays and the
 * write fails with EEXIST; `replace: true` (the agent's, written when there was no usable sidecar) renames it
 * over whatever is there, a symlink replaced and never followed. On any failure nothing of ours is left.
 */
export function writeSidecar(dir: AnchoredDir, document: string, data: Buffer, opts: { replace: boolean }): Promise<void> {
  return writeBeside(dir, sidecarName(document), data, opts);
}

/** `data` written whole as the file `name` of the held folder `dir`, as writeSidecar writes a sidecar. */
export async function writeBeside(dir: AnchoredDir, name: string, data: Buffer, opts: { replace: boolean }): Promise<void> {
  const temp = `.${name}.${randomBytes(TEMP_NAME_BYTES).toString('hex')}.tmp`;
  const handle = await dir.createFile(temp, O_WRONLY, STORED_FILE_MODE);
  let placed = false;
  try {
    await handle.writeFile(data);
    await handle.close();
    // Through the held descriptor on Linux (both names reached inside that very folder). Elsewhere these are
    // paths, and a folder swapped just now could only make this fail: the temporary name is random and was
    // created in our folder.
    if (opts.replace) await fs.promises.rename(dir.entry(temp), dir.entry(name));
    else await fs.promises.link(dir.entry(temp), dir.entry(name));
    placed = opts.replace;
  } catch (err) {
    await handle.close().catch(() => {});
    throw err;
  } finally {
    if (!placed) await dir.unlink(temp).catch(() => {});
  }
}
