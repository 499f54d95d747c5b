// Reading a settled file out of a watched folder (issue 33): into a private staging file while hashed, through a
// descriptor opened in the held folder without following a symlink, and only if it is still the file that
// settled, with one link, unchanged from the first byte to the last. Apart from the importer (importer.ts) so
// each refusal can be tested on real files on its own (copy.test.ts).
import { createHash } from 'node:crypto';
import { constants as fsc } from 'node:fs';
import fs from 'node:fs/promises';
import { errno } from '../store/anchored.js';
import { sigOf, stillThere, type Folder, type Held } from './folder.js';
import { sameSignature, type Signature } from './rules.js';

/** Reading a file in pieces of this size keeps memory flat whatever the file's size. */
const READ_CHUNK_BYTES = 1 << 20;

/** Why a file that settled was not read. */
export type Skip = 'symlink' | 'unreadable' | 'hard_link';

/** A copy's outcome: its hash, or that it changed, went away, or is one Satchel does not read. */
export type Copied = { hash: string } | 'changed' | 'gone' | { skip: Skip };

/**
 * Copy the file into `staged` while hashing it, through a descriptor opened in the held folder without
 * following a symlink (a name swapped for a link after the last stat is refused by the kernel, never read),
 * and only when the folder is still the one watched, the file is the one that settled, it has one link, and
 * it did not change while it was read.
 */
export async function copyIfUnchanged(f: Folder, held: Held, name: string, sig: Signature, staged: string): Promise<Copied> {
  if (held.retired || !(await stillThere(f, held))) return 'gone';
  let src: fs.FileHandle;
  try {
    src = await held.dir.openFile(name, fsc.O_RDONLY | fsc.O_NONBLOCK);
  } catch (err) {
    const code = errno(err);
    if (code === 'ELOOP' || code === 'EMLINK') return { skip: 'symlink' };
    if (code === 'EACCES' || code === 'EPERM') return { skip: 'unreadable' };
    return 'gone';
  }
  try {
    const before = await src.stat();
    if (!before.isFile() || !sameSignature(sigOf(before), sig)) return 'changed';
    // A second name for the file: it may be ~/.ssh/id_rsa linked in from outside (it needs no access to it
    // beyond the same disk). Looked at on the descriptor, so it is the file that would be read.
    if (before.nlink > 1) return { skip: 'hard_link' };
    const hash = createHash('sha256');
    const out = await fs.open(staged, 'wx', 0o600);
    try {
      const buf = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      let total = 0;
      for (;;) {
        const { bytesRead } = await src.read(buf, 0, buf.length, total);
        if (bytesRead === 0) break;
        total += bytesRead;
        if (total > sig.size) return 'changed';
        hash.update(buf.subarray(0, bytesRead));
        await out.write(buf, 0, bytesRead);
      }
      if (total !== sig.size) return 'changed';
    } finally {
      await out.close();
    }
    const after = await src.stat();
    if (!sameSignature(sigOf(after), sig)) return 'changed';
    if (after.nlink > 1) return { skip: 'hard_link' };
    return { hash: hash.digest('hex') };
  } finally {
    await src.close();
  }
}
