// An extracted archive as a message refers to it: the extraction folder, directly inside the session's
// attachment folder (the agent side reads it, so a client must not be able to name any other folder), its
// archive's name and how many files it holds.
import path from 'node:path';
import { archiveStem } from '../archive/index.js';
import { sanitizeName } from '../names.js';
import type { Session } from '../store/sessions.js';
import type * as wire from '../wire.js';
import { isExtractionFolder } from './layout.js';

/** Longer than any name an upload keeps: not worth sanitizing to compare. */
const MAX_ARCHIVE_NAME_CHARS = 1024;

/** `given` as an extracted attachment of `session`, or undefined when it is not one. */
export function extractedAttachment(given: unknown, session: Pick<Session, 'session_id'>, stateDir: string): wire.ExtractedAttachment | undefined {
  const g = given as { path?: unknown; name?: unknown; extracted?: unknown; files?: unknown } | null;
  if (!g || !g.extracted || typeof g.path !== 'string' || !isExtractionFolder(stateDir, session.session_id, g.path)) return undefined;
  const folder = path.basename(g.path);
  const name = typeof g.name === 'string' && namesFolder(g.name, folder) ? g.name : folder;
  const files = Number.isInteger(g.files) && (g.files as number) >= 0 ? (g.files as number) : undefined;
  return files === undefined ? { name, path: g.path, extracted: true } : { name, path: g.path, extracted: true, files };
}

// allocateExtractionDir's second and later choices: the stem, `_`, three digits.
const RETRY_SUFFIX = /^_\d{3}$/;

/**
 * Whether `name` is the archive `folder` was extracted into (its sanitized stem, maybe with a retry suffix). The
 * name is sent back verbatim, as the server's own value: only then does it say nothing the folder does not.
 */
function namesFolder(name: string, folder: string): boolean {
  const safe = name.length <= MAX_ARCHIVE_NAME_CHARS ? sanitizeName(name) : null;
  if (!safe) return false;
  const stem = archiveStem(safe);
  return folder === stem || (folder.startsWith(stem) && RETRY_SUFFIX.test(folder.slice(stem.length)));
}
