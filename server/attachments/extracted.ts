// An extracted archive as a message refers to it: the extraction folder, directly inside the session's
// attachment folder (the agent side reads it, so a client must not be able to name any other folder), its
// archive's name and how many files it holds.
import path from 'node:path';
import { archiveStem } from '../archive/index.js';
import { sanitizeName } from '../core/names.js';
import { ValueError } from '../core/errors.js';
import type { Session } from '../store/sessions.js';
import type * as wire from '../core/wire.js';
import { isExtractionFolder } from './layout.js';

/** Longer than any name an upload keeps: not worth sanitizing to compare. */
const MAX_ARCHIVE_NAME_CHARS = 1024;

/** `given` as an extracted attachment of `session`, or undefined when it is not one. */
export function extractedAttachment(given: unknown, session: Pick<Session, 'session_id'>, stateDir: string): wire.ExtractedAttachment | undefined {
  const g = given as { path?: unknown; name?: unknown; kind?: unknown; extracted?: unknown; file_count?: unknown } | null;
  // `extracted` is how ../shared/spec/agent.md names one; `kind` how Satchel's own messages do.
  if (!g || !(g.extracted || g.kind === 'extraction') || typeof g.path !== 'string' || !isExtractionFolder(stateDir, session.session_id, g.path)) return undefined;
  const folder = path.basename(g.path);
  const name = typeof g.name === 'string' && namesFolder(g.name, folder) ? g.name : folder;
  const out: wire.ExtractedAttachment = { kind: 'extraction', name, path: g.path, extracted: true };
  if (Number.isInteger(g.file_count) && (g.file_count as number) >= 0) out.file_count = g.file_count as number;
  return out;
}

/**
 * One attachment a message or a turn names, as it is stored: an upload this session recorded (by its path), or
 * one of its extraction folders with the upload it was extracted from when that is one of the session's too.
 * Undefined when it names neither: a client cannot point a message at any other file.
 */
export function namedAttachment(given: unknown, session: Pick<Session, 'session_id'>, uploads: ReadonlyMap<string, wire.Attachment>, stateDir: string): wire.ChatAttachment | undefined {
  const where = typeof given === 'string' ? given : (given as { path?: unknown } | null)?.path;
  const upload = typeof where === 'string' ? uploads.get(where) : undefined;
  if (upload) return { ...upload, kind: 'file' };
  const extraction = extractedAttachment(given, session, stateDir);
  const archive = (given as { archive_path?: unknown } | null)?.archive_path;
  if (extraction && typeof archive === 'string' && uploads.has(archive)) extraction.archive_path = archive;
  return extraction;
}

/**
 * Each item of a request's attachment list as one of the session's attachments (namedAttachment), in order.
 * An item that names none of them is `Unknown attachment`: a client cannot point a message or a turn at any
 * other file. `unnamed`, when given, is the error for an item without any path at all.
 */
export function namedAttachments(items: readonly unknown[], session: Pick<Session, 'session_id' | 'attachments'>, stateDir: string, unnamed?: string): wire.ChatAttachment[] {
  const uploads = uploadsByPath(session);
  return items.map((item) => {
    const where = typeof item === 'string' ? item : (item as { path?: unknown } | null)?.path;
    if (unnamed !== undefined && typeof where !== 'string') throw new ValueError(unnamed);
    const found = namedAttachment(item, session, uploads, stateDir);
    if (!found) throw new ValueError('Unknown attachment');
    return found;
  });
}

/** A session's uploads by path, for namedAttachment. */
export function uploadsByPath(session: Pick<Session, 'attachments'>): ReadonlyMap<string, wire.Attachment> {
  return new Map(session.attachments.map((a) => [a.path, a]));
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
