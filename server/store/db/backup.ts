// Automatic backups of the conversation database, the way back from damage (issue 33, finding 10): SQLite's
// online backup into `backups/` in the state folder, daily and before every schema migration. A copy counts
// only once `PRAGMA quick_check` on it says ok: it is written under a `.partial-` name and given its real name
// after the check, so a listed backup is always a checked one, and a crash mid-copy leaves only a partial that
// the next backup removes. The newest BACKUPS_KEPT are kept. A restore sets the current files aside (never
// deleting them) and copies the chosen backup in.
import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Db } from './connection.js';

/** The folder in the state folder that holds the backups. */
export const BACKUP_DIR = 'backups';
/** Where a restore puts the files it replaced: never deleted, in a folder named by the time of the restore. */
export const SET_ASIDE_DIR = 'set-aside';
/** A daily backup is due when the newest one is older than this. */
export const BACKUP_INTERVAL_MS = 24 * 60 * 60 * 1000;
/** Backups kept (daily and before-migration together); the oldest beyond go once a new one is checked. */
export const BACKUPS_KEPT = 7;
/**
 * How often the server looks whether a daily backup is due. Hourly rather than one 24 h timer: a laptop asleep
 * through the due time (timers do not count sleep on every platform) backs up within the hour it wakes.
 */
export const BACKUP_CHECK_EVERY_MS = 60 * 60 * 1000;
/** The first look after start, once the start's own reads are done (a due backup then copies the whole file). */
export const BACKUP_FIRST_CHECK_MS = 15_000;
/** File modes: a backup holds every conversation, as the database does. */
const BACKUP_FILE_MODE = 0o600;
const BACKUP_DIR_MODE = 0o700;
const PARTIAL_PREFIX = '.partial-';
/**
 * FTS5's part of the check writes, so a connection that only reads (the one used here, never the server's own)
 * cannot run it. The search index is derived data (rebuilt from search_docs); the rows it indexes are checked.
 */
const FTS_CHECK_NEEDS_WRITE = /^unable to validate the inverted index for FTS5 table .*: attempt to write a readonly database$/;
/** Problems of a failed check named in the sentence; the rest are counted. */
const PROBLEMS_SHOWN = 2;

export type BackupReason = 'daily' | `before-schema-${number}`;

/** A checked backup in backups/. */
export interface BackupInfo {
  /** Its file name in backups/ (what a restore names). */
  name: string;
  /** When it was made (ISO). */
  created_at: string;
  reason: BackupReason;
  size: number;
}

/** `satchel-2026-11-28T18-51-51-123Z-daily.db`: the time first, so names sort by age. */
const BACKUP_NAME = /^satchel-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z-(daily|before-schema-\d{1,4})\.db$/;

export function backupName(at: Date, reason: BackupReason): string {
  return `satchel-${at.toISOString().replace(/[:.]/g, '-')}-${reason}.db`;
}

function parseName(name: string): { created_at: string; reason: BackupReason } | undefined {
  const m = BACKUP_NAME.exec(name);
  if (!m) return undefined;
  return { created_at: `${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`, reason: m[6] as BackupReason };
}

export function backupDir(stateDir: string): string {
  return path.join(stateDir, BACKUP_DIR);
}

/** The checked backups, the newest first. */
export async function listBackups(stateDir: string): Promise<BackupInfo[]> {
  let names: string[];
  try {
    names = await fs.readdir(backupDir(stateDir));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const found: BackupInfo[] = [];
  for (const name of names) {
    const parsed = parseName(name);
    if (!parsed) continue;
    const st = await fs.lstat(path.join(backupDir(stateDir), name)).catch(() => undefined);
    // A regular file only: never a symlink someone put there.
    if (st?.isFile()) found.push({ name, ...parsed, size: st.size });
  }
  return found.sort((a, b) => b.name.localeCompare(a.name));
}

/**
 * What `PRAGMA quick_check` says of the database in `file`: undefined when ok, else its first problems. `copy`:
 * a backup no server uses, opened read-write in rollback mode (nothing left beside it); else the live file,
 * read on a connection of its own that never writes.
 */
export async function checkDatabase(file: string, copy = false): Promise<string | undefined> {
  let db: Db;
  try {
    db = copy ? await Db.openCopy(file) : await Db.openReadOnly(file);
  } catch (err) {
    return (err as Error).message;
  }
  try {
    const rows = await db.all<{ quick_check: string }>('PRAGMA quick_check');
    // One line for a sentence: SQLite's report lists one problem a line under a heading.
    const problems = rows
      .flatMap((r) => r.quick_check.split('\n'))
      .filter((line) => line !== 'ok' && !line.startsWith('***') && !FTS_CHECK_NEEDS_WRITE.test(line));
    if (problems.length === 0) return undefined;
    const more = problems.length > PROBLEMS_SHOWN ? ` and ${problems.length - PROBLEMS_SHOWN} more` : '';
    return problems.slice(0, PROBLEMS_SHOWN).join('; ') + more;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await db.close().catch(() => {});
  }
}

/** Why a backup did not count. `damaged` when the copy failed its check: the source's pages are damaged. */
export class BackupFailed extends Error {
  constructor(
    message: string,
    readonly damaged: boolean,
  ) {
    super(message);
  }
}

/**
 * Copy `db` into backups/ as a checked backup for `reason`, then drop the oldest beyond BACKUPS_KEPT. Throws
 * BackupFailed when the copy fails its check (nothing is listed, no older backup is dropped).
 */
export async function makeBackup(db: Db, stateDir: string, reason: BackupReason, now: Date = new Date()): Promise<BackupInfo> {
  const dir = backupDir(stateDir);
  await fs.mkdir(dir, { recursive: true, mode: BACKUP_DIR_MODE });
  // Partials of a backup a crash or a failed check left: never listed, never restored.
  for (const name of await fs.readdir(dir)) if (name.startsWith(PARTIAL_PREFIX)) await fs.rm(path.join(dir, name), { force: true });
  const name = backupName(now, reason);
  const partial = path.join(dir, PARTIAL_PREFIX + name);
  // Made here first so its mode is ours, as the database's is (connection.ts).
  await (await fs.open(partial, 'w', BACKUP_FILE_MODE)).close();
  try {
    await db.backupTo(partial);
    await fs.chmod(partial, BACKUP_FILE_MODE);
    const problem = await checkDatabase(partial, true);
    if (problem) throw new BackupFailed(problem, true);
    // Never over another file: link under the real name, then drop the partial's name.
    await fs.link(partial, path.join(dir, name));
  } catch (err) {
    throw err instanceof BackupFailed ? err : new BackupFailed((err as Error).message, false);
  } finally {
    // The partial's name, and anything SQLite may have left beside it.
    for (const suffix of ['', '-journal', '-wal', '-shm']) await fs.rm(partial + suffix, { force: true });
  }
  await pruneBackups(stateDir);
  const st = await fs.stat(path.join(dir, name));
  return { name, created_at: now.toISOString(), reason, size: st.size };
}

/** Remove the checked backups beyond the newest BACKUPS_KEPT. */
export async function pruneBackups(stateDir: string): Promise<void> {
  const all = await listBackups(stateDir);
  for (const old of all.slice(BACKUPS_KEPT)) await fs.rm(path.join(backupDir(stateDir), old.name), { force: true });
}

/** True when no checked backup is newer than BACKUP_INTERVAL_MS. */
export async function dailyBackupDue(stateDir: string, now: Date = new Date()): Promise<boolean> {
  const [latest] = await listBackups(stateDir);
  return !latest || now.getTime() - Date.parse(latest.created_at) >= BACKUP_INTERVAL_MS;
}

/** The schema version a database holds (0 for a new one), read without changing anything. */
export async function storedSchemaVersion(db: Db): Promise<number> {
  const table = await db.get<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'");
  if (!table) return 0;
  return (await db.get<{ version: number }>('SELECT version FROM schema_version'))?.version ?? 0;
}

/**
 * Put the backup `name` in place of the database `file`: the files there now (the database, its WAL and
 * shared-memory file) are moved into set-aside/<time>/ as they are, then the backup is copied in under a
 * temporary name and renamed over. The caller has closed (or let go of) every connection to `file`.
 * Returns the folder the replaced files went to.
 */
export async function putBackupInPlace(stateDir: string, file: string, name: string, now: Date = new Date()): Promise<string> {
  const source = path.join(backupDir(stateDir), name);
  const aside = path.join(stateDir, SET_ASIDE_DIR, now.toISOString().replace(/[:.]/g, '-'));
  await fs.mkdir(aside, { recursive: true, mode: BACKUP_DIR_MODE });
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    try {
      await fs.rename(`${file}${suffix}`, path.join(aside, path.basename(file) + suffix));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  const incoming = `${file}.restoring`;
  await fs.rm(incoming, { force: true });
  await fs.copyFile(source, incoming, fsConstants.COPYFILE_EXCL);
  await fs.chmod(incoming, BACKUP_FILE_MODE);
  const handle = await fs.open(incoming, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(incoming, file);
  return aside;
}
