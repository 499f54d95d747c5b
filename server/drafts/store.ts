// Drafts: what a session's composer holds before it is sent (its text and attachment chips), one small JSON
// file per session under <state>/drafts, so a reload or a restart of Satchel (a new token each launch) finds it
// again. Written atomically and one write at a time per session; read from disk each time, so what a client
// sees is what a restart would see.
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../store/atomic.js';
import { isSessionId } from '../store/sessions.js';
import type { DraftExtraction } from '../core/wire.js';

export const DRAFTS_DIR = 'drafts';
/** A draft's text: as long as a message may be. */
export const MAX_DRAFT_TEXT_CHARS = 100_000;
/** Chips one draft keeps: as many as the message it becomes may name (the caps table). */
export { MAX_MESSAGE_ATTACHMENTS as MAX_DRAFT_ATTACHMENTS } from '../settings/caps.js';
/** Extracted paths kept per chip for its list; the count says how many there were. */
export const MAX_DRAFT_LISTED_FILES = 1_000;
/** A stored draft bigger than this is not read (a damaged or foreign file), the session simply has none. */
export const MAX_DRAFT_FILE_BYTES = 4 * 1024 * 1024;

/** One chip as stored: the upload's path (resolved against the session's attachments on reading). */
export interface StoredDraftItem {
  path: string;
  extract?: DraftExtraction;
}

export interface StoredDraft {
  text: string;
  attachments: StoredDraftItem[];
  updated_at: string;
}

export const EMPTY_DRAFT: StoredDraft = { text: '', attachments: [], updated_at: '' };

function draftFile(stateDir: string, sessionId: string): string {
  // Only a well-formed id names a file: nothing a client sends becomes a path component unchecked.
  if (!isSessionId(sessionId)) throw new Error('invalid session id for a draft');
  return path.join(stateDir, DRAFTS_DIR, `${sessionId}.json`);
}

function isExtraction(v: unknown): v is DraftExtraction {
  const x = v as DraftExtraction | null;
  return Boolean(x) && typeof x!.dest === 'string' && Number.isInteger(x!.extracted) && Array.isArray(x!.files) && x!.files.every((f) => typeof f === 'string');
}

/** A stored draft, or the empty one when there is none (or it cannot be read: a draft is never worth an error). */
export async function readDraft(stateDir: string, sessionId: string): Promise<StoredDraft> {
  try {
    const file = draftFile(stateDir, sessionId);
    const stat = await fs.lstat(file);
    if (!stat.isFile() || stat.size > MAX_DRAFT_FILE_BYTES) return EMPTY_DRAFT;
    const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<StoredDraft>;
    const text = typeof parsed.text === 'string' ? parsed.text : '';
    const attachments = Array.isArray(parsed.attachments)
      ? parsed.attachments
          .filter((a): a is StoredDraftItem => typeof (a as StoredDraftItem | null)?.path === 'string')
          .map((a) => (isExtraction(a.extract) ? { path: a.path, extract: a.extract } : { path: a.path }))
      : [];
    return { text, attachments, updated_at: typeof parsed.updated_at === 'string' ? parsed.updated_at : '' };
  } catch {
    return EMPTY_DRAFT;
  }
}

// One write at a time per draft file: the last PUT to arrive is the one on disk.
const queues = new Map<string, Promise<unknown>>();

export function serialized<T>(key: string, work: () => Promise<T>): Promise<T> {
  const next = (queues.get(key) ?? Promise.resolve()).catch(() => {}).then(work);
  queues.set(key, next);
  void next
    .finally(() => {
      if (queues.get(key) === next) queues.delete(key);
    })
    .catch(() => {});
  return next;
}

/** Store `draft` (an empty one removes the file). */
export function writeDraft(stateDir: string, sessionId: string, draft: Omit<StoredDraft, 'updated_at'>): Promise<StoredDraft> {
  const file = draftFile(stateDir, sessionId);
  return serialized(file, async () => {
    if (!draft.text && draft.attachments.length === 0) {
      await fs.rm(file, { force: true });
      return EMPTY_DRAFT;
    }
    const stored: StoredDraft = { text: draft.text, attachments: draft.attachments, updated_at: new Date().toISOString() };
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFileAtomic(file, JSON.stringify(stored));
    return stored;
  });
}

/** Change a stored draft in place (e.g. drop a chip whose file was deleted), under the same per-file order. */
export function updateDraft(stateDir: string, sessionId: string, change: (draft: StoredDraft) => StoredDraft): Promise<void> {
  const file = draftFile(stateDir, sessionId);
  return serialized(file, async () => {
    const before = await readDraft(stateDir, sessionId);
    const after = change(before);
    if (after === before) return;
    if (!after.text && after.attachments.length === 0) {
      await fs.rm(file, { force: true });
      return;
    }
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFileAtomic(file, JSON.stringify({ ...after, updated_at: new Date().toISOString() }));
  });
}

/** Remove a session's draft (its session is being deleted); none is fine. */
export function removeDraft(stateDir: string, sessionId: string): Promise<void> {
  return writeDraft(stateDir, sessionId, { text: '', attachments: [] }).then(() => undefined);
}
