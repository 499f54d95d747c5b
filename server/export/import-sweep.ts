// What an import left when the process died (issue 33: four padded conversations in one "Export all" killed the
// server and left a 257 MB `.satchel-import/` behind for good). Every session folder an import makes holds its
// work folder from the moment it is made until the import is stored (export/import.ts `ImportFolders`), so at
// the next start a folder holding one is an unfinished import's: removed whole when no session is stored under
// its id (the import never committed), or only its work folder when one is (it died after the commit). An empty
// folder of no stored session goes too (an import that died between making the folder and marking it). Nothing
// else in the attachment folders is touched: a folder with files and without the mark is a conversation's,
// whatever the store says of it (a damaged database must never cost the person their files).
import { attachmentRoot } from '../attachments/layout.js';
import { log } from '../core/log.js';
import { AnchoredDir, errno } from '../store/anchored.js';
import { isSessionId } from '../store/sessions.js';
import { IMPORT_WORK_DIR } from './import.js';

/**
 * Sweep the attachment folders of `stateDir` for unfinished imports; `isStored(id)` tells a stored session
 * (deleted ones waiting for Undo included). Returns how many folders were removed whole.
 */
export async function sweepUnfinishedImports(stateDir: string, isStored: (id: string) => boolean): Promise<number> {
  let root: AnchoredDir;
  try {
    root = await AnchoredDir.open(attachmentRoot(stateDir));
  } catch (err) {
    if (errno(err) === 'ENOENT') return 0;
    throw err;
  }
  let removed = 0;
  try {
    for (const entry of await root.readdir()) {
      if (!entry.isDirectory() || !isSessionId(entry.name)) continue;
      const dir = await root.openDir(entry.name).catch(() => undefined);
      if (!dir) continue;
      let marked: boolean;
      try {
        const names = (await dir.readdir()).map((e) => e.name);
        // Empty: made by an import that died before it could mark it (or by nothing at all); it holds nothing.
        marked = names.includes(IMPORT_WORK_DIR) || names.length === 0;
        if (marked && isStored(entry.name) && names.length > 0) await dir.removeTree(IMPORT_WORK_DIR);
      } finally {
        await dir.close();
      }
      if (marked && !isStored(entry.name)) {
        await root.removeTree(entry.name);
        removed++;
      }
    }
  } finally {
    await root.close();
  }
  if (removed > 0) log.warn(`removed ${removed} folder(s) of an import that did not finish when Satchel last stopped`);
  return removed;
}
