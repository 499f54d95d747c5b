// The move from one JSON file per session (sessions/<id>.json, Satchel before the database) into the database.
// Each file is imported in one transaction, read back and compared, and only then moved to
// sessions.json-backup/. A file still in sessions/ is therefore one whose import did not finish: the next
// start imports it again, replacing whatever part of it is stored, so a kill at any moment loses nothing.
// Until every file is done the server does not serve, so a stored copy can never be newer than its file.
import fs from 'node:fs/promises';
import path from 'node:path';
import { log } from '../../core/log.js';
import { normalizeAttachments, normalizeMessage } from '../messages.js';
import type { Session } from '../sessions.js';
import type { Db } from './connection.js';
import { deleteSession, headerOf, readSession, writeSession } from './session-rows.js';

/** The folder of the JSON session files, in the state folder. */
export const JSON_SESSIONS_DIR = 'sessions';
/** Where imported JSON files go, kept as they were (the person may want them back; nothing reads them). */
export const JSON_BACKUP_DIR = 'sessions.json-backup';
const SESSION_FILE = /^([0-9a-f]{12})\.json$/;

/**
 * A session file larger than this is not imported. Replies are bounded now (agent/turns.ts MAX_REPLY_BYTES),
 * but an older Satchel stored a 400 MB reply whole: parsing it took 2 GB and 6.8 s at every start. 64 MiB is
 * some fifteen replies cut at their bound and parses in about 0.1 s; a larger file is left on disk untouched
 * (nothing is lost), named in a warning at each start, and absent from the list until it is made smaller.
 */
export const MAX_SESSION_FILE_BYTES = 64 * 1024 * 1024;

/** The warning for a session file over MAX_SESSION_FILE_BYTES. */
export function oversizedSessionWarning(file: string, size: number): string {
  const mib = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MiB`;
  return `session file ${file} is ${mib(size)}, over the ${mib(MAX_SESSION_FILE_BYTES)} Satchel loads; not loaded, left on disk as it is`;
}

/** A session as a file of any older version holds it, in the one shape every reader expects (messages.ts). */
export function normalizedSession(parsed: Session): Session {
  const messages: unknown[] = Array.isArray(parsed.messages) ? parsed.messages : [];
  const session: Session = { ...parsed, messages: messages.map(normalizeMessage), attachments: Array.isArray(parsed.attachments) ? parsed.attachments : [] };
  if (parsed.pending_attachments !== undefined) session.pending_attachments = normalizeAttachments(parsed.pending_attachments);
  if (typeof session.title !== 'string') session.title = 'Untitled';
  if (typeof session.updated_at !== 'string') session.updated_at = typeof session.created_at === 'string' ? session.created_at : new Date(0).toISOString();
  return session;
}

/** Two sessions equal as stored (JSON), whatever the order of their fields around the messages. */
function sameSession(a: Session, b: Session): boolean {
  const json = (s: Session) => [headerOf(s), s.messages, s.attachments].map((part) => JSON.stringify(part)).join('\n');
  return json(a) === json(b);
}

/** The file's text, or its size when that is over `max` (then nothing is read). */
async function readUnless(file: string, max: number): Promise<string | number> {
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size > max) return size;
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Files imported per transaction: one commit (one fsync) per file made 10,000 files a minute's work; 200 per
 * commit, or fewer when they hold more than IMPORT_BATCH_CHARS of text, keeps a batch's memory small.
 */
const IMPORT_BATCH_FILES = 200;
/**
 * A line in the log every this many files: a first start over a long history (10,000 files took 43 s on a
 * shared 2-core machine, most of it indexing their text) shows it is moving, not hung.
 */
const IMPORT_PROGRESS_FILES = 1000;
const IMPORT_BATCH_CHARS = 32 * 1024 * 1024;

/**
 * Store `batch` in one transaction (each session replaced whole: a kill after an earlier attempt committed
 * leaves its file here and its rows stored), read each back, and move the files of those that read back
 * equal into the backup folder. Returns how many were moved.
 */
async function importBatch(db: Db, batch: { file: string; name: string; session: Session }[], backup: string): Promise<number> {
  await db.transaction(async (q) => {
    for (const { session } of batch) {
      await deleteSession(q, session.session_id);
      await writeSession(q, undefined, session);
    }
  });
  await fs.mkdir(backup, { recursive: true, mode: 0o700 });
  let moved = 0;
  for (const { file, name, session } of batch) {
    const back = await readSession(db, session.session_id);
    if (!back || !sameSession(back, session)) {
      log.warn(`session file ${file} did not read back equal from the database; left in place, imported again at the next start`);
      continue;
    }
    await fs.rename(file, path.join(backup, name));
    moved++;
  }
  return moved;
}

/** The session a file holds, or why it is left where it is. */
async function sessionInFile(file: string, id: string): Promise<Session | undefined> {
  // The size first, from the open file: a bloated file is never read into memory.
  const text = await readUnless(file, MAX_SESSION_FILE_BYTES);
  if (typeof text === 'number') {
    log.warn(oversizedSessionWarning(file, text));
    return undefined;
  }
  const parsed = JSON.parse(text) as Session;
  return parsed && typeof parsed === 'object' && parsed.session_id === id ? normalizedSession(parsed) : undefined;
}

/**
 * Import every JSON session file of `stateDir` into `db`; returns how many were imported. A file that cannot
 * be read or parsed is left in place (one bad file must not lock the person out of the rest), as is one whose
 * stored copy does not read back equal (said in a warning; the next start tries again).
 */
export async function importJsonSessions(db: Db, stateDir: string): Promise<number> {
  const dir = path.join(stateDir, JSON_SESSIONS_DIR);
  const names = await fs.readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  const backup = path.join(stateDir, JSON_BACKUP_DIR);
  let imported = 0;
  let batch: { file: string; name: string; session: Session }[] = [];
  let batchChars = 0;
  const files = names.filter((name) => SESSION_FILE.test(name)).length;
  let reported = 0;
  const flush = async (): Promise<void> => {
    if (batch.length > 0) imported += await importBatch(db, batch, backup);
    batch = [];
    batchChars = 0;
    if (imported - reported >= IMPORT_PROGRESS_FILES) {
      reported = imported;
      log.info(`moving session files into the database: ${imported} of ${files} done`);
    }
  };
  for (const name of names.sort()) {
    const id = SESSION_FILE.exec(name)?.[1];
    if (!id) continue;
    const file = path.join(dir, name);
    let session: Session | undefined;
    try {
      session = await sessionInFile(file, id);
    } catch {
      continue;
    }
    if (!session) continue;
    batch.push({ file, name, session });
    batchChars += session.messages.reduce((n, m) => n + m.content.length, 0);
    if (batch.length >= IMPORT_BATCH_FILES || batchChars >= IMPORT_BATCH_CHARS) await flush();
  }
  await flush();
  if (imported > 0) log.info(`moved ${imported} session file(s) into the database; the files are kept in ${backup}`);
  return imported;
}
