// Tests name a document by its path; writeOfficeSidecar takes the folder held open and the name in it.
import path from 'node:path';
import { AnchoredDir } from '../../store/anchored.js';
import type { OfficeFormat, Sidecar } from '../index.js';
import { writeOfficeSidecar } from '../index.js';

type Writer = { writeOfficeSidecar: typeof writeOfficeSidecar };

/** writeOfficeSidecar for the document at `file`, in its folder opened for the call (by `office`: the module
 *  under test, compiled or not). */
export async function sidecarFor(file: string, format: OfficeFormat, office: Writer = { writeOfficeSidecar }): Promise<Sidecar> {
  const dir = await AnchoredDir.open(path.dirname(file));
  try {
    return await office.writeOfficeSidecar(dir, path.basename(file), format);
  } finally {
    await dir.close();
  }
}
