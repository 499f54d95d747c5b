// The files of a session's attachment folder an export carries: every regular file below it (its uploads, the
// Office sidecars beside them, its extraction folders' files), listed by the one walker everything else lists
// attachments with (store/anchored-walk.ts: no symlink, no hidden name), and the names an export may refer to.
import { sessionFolder } from '../attachments/layout.js';
import { HttpError } from '../core/errors.js';
import { MAX_ARCHIVE_MEMBERS } from '../archive/index.js';
import { AnchoredDir, errno } from '../store/anchored.js';
import { walkFiles, type FileBelow } from '../store/anchored-walk.js';

/**
 * Files one conversation's export holds at most: its import reads the archive with the extractor's member cap
 * (archive/limits.ts), and the conversation's JSON and Markdown take a member each, so an export never holds
 * more than its import accepts.
 */
export const MAX_EXPORT_FILES = MAX_ARCHIVE_MEMBERS - 2;
export const TOO_MANY_EXPORT_FILES = `This conversation has more than ${MAX_EXPORT_FILES} attachment files, more than an export can hold`;

export interface SessionFiles {
  /** The session's attachment folder (absolute; may not exist). */
  folder: string;
  files: FileBelow[];
  /** What the export's paths may name: each file (`a/b`), and each folder directly in the session's folder. */
  held: ReadonlySet<string>;
}

export async function sessionFiles(stateDir: string, sessionId: string): Promise<SessionFiles> {
  const folder = sessionFolder(stateDir, sessionId);
  const empty: SessionFiles = { folder, files: [], held: new Set() };
  let dir: AnchoredDir;
  try {
    dir = await AnchoredDir.open(folder);
  } catch (err) {
    // Nothing was ever uploaded to this session: it has no folder, and its export no files.
    if (errno(err) === 'ENOENT') return empty;
    throw err;
  }
  try {
    const below = await walkFiles(dir, MAX_EXPORT_FILES + 1);
    if (!below.complete || below.total > MAX_EXPORT_FILES) throw new HttpError(413, TOO_MANY_EXPORT_FILES);
    const held = new Set<string>();
    for (const f of below.files) {
      held.add(f.path);
      const slash = f.path.indexOf('/');
      if (slash > 0) held.add(f.path.slice(0, slash));
    }
    return { folder, files: below.files, held };
  } finally {
    await dir.close();
  }
}
