// Looking after the conversation database while the server runs (issue 33, finding 10): SQLite's check of it
// once after start, a checked backup when one is due (db/backup.ts), what the page shows of its state, and a
// restore from a backup. The check and the backups never run on a damaged database: a damaged copy must not
// push a good backup out of the seven kept.
import path from 'node:path';
import { HttpError, ValueError } from '../core/errors.js';
import { log } from '../core/log.js';
import {
  BACKUP_CHECK_EVERY_MS,
  BACKUP_FIRST_CHECK_MS,
  backupDir,
  BackupFailed,
  checkDatabase,
  dailyBackupDue,
  listBackups,
  makeBackup,
  putBackupInPlace,
  type BackupInfo,
} from './db/backup.js';
import { backupCheckDamage, checkDamage, damageSentence, type UnreadableSession } from './db/damage.js';
import type { SessionStore } from './sessions.js';

export const NO_SUCH_BACKUP = 'No such backup: choose one of those listed in Settings → Backups';
export const RESTORE_WHILE_REPLYING = 'A reply is being written: wait for it to finish (or stop it), then restore';
export const RESTORE_UNDER_WAY = 'A restore is already under way';

export interface DatabaseCare {
  /** Ends the timer and waits for a check or backup under way. */
  stop(): Promise<void>;
  /** The check and first backup look after start have run (tests wait on it). */
  readonly started: Promise<void>;
}

export interface CareTimings {
  firstCheckMs: number;
  everyMs: number;
}

/** Back up `store` now if a daily backup is due; a copy failing its check marks the database damaged. */
export async function backupIfDue(stateDir: string, store: SessionStore, now: Date = new Date()): Promise<BackupInfo | undefined> {
  if (store.damage || !(await dailyBackupDue(stateDir, now))) return undefined;
  try {
    const made = await store.backup('daily', now);
    log.info(`Backed up the conversation database to ${path.join(backupDir(stateDir), made.name)}`);
    return made;
  } catch (err) {
    if (err instanceof BackupFailed && err.damaged) store.damaged(backupCheckDamage(store.file, err.message));
    else log.warn('Could not back up the conversation database:', err);
    return undefined;
  }
}

/**
 * SQLite's quick_check of the database, on a connection of its own that only reads (WAL mode: the server's
 * writes go on meanwhile), once the store has loaded; then a backup whenever one is due, looked at every
 * `everyMs`.
 */
export function startDatabaseCare(stateDir: string, store: SessionStore, timings: CareTimings = { firstCheckMs: BACKUP_FIRST_CHECK_MS, everyMs: BACKUP_CHECK_EVERY_MS }): DatabaseCare {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const checked = (async () => {
    if (store.damage) return;
    const problem = await checkDatabase(store.file);
    if (problem && !stopped) store.damaged(checkDamage(store.file, problem));
  })().catch((err: unknown) => log.warn('Could not check the conversation database:', err));
  let onFirst!: () => void;
  const started = new Promise<void>((resolve) => (onFirst = resolve));
  const tick = (): void => {
    running = checked
      .then(() => (stopped ? undefined : backupIfDue(stateDir, store)))
      .finally(() => {
        onFirst();
        if (!stopped) timer = setTimeout(tick, timings.everyMs);
      });
  };
  timer = setTimeout(tick, timings.firstCheckMs);
  return {
    started,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      onFirst();
      await checked;
      await running.catch(() => {});
    },
  };
}

/** What Settings and the page's banner show of the database. */
export interface DatabaseState {
  state: 'ok' | 'damaged';
  file: string;
  /** One sentence: what happened and what to do (damaged only). */
  message?: string;
  unreadable: UnreadableSession[];
  backups: BackupInfo[];
}

export async function databaseState(stateDir: string, store: SessionStore): Promise<DatabaseState> {
  const backups = await listBackups(stateDir);
  const damage = store.damage;
  return {
    state: damage ? 'damaged' : 'ok',
    file: store.file,
    ...(damage ? { message: damageSentence(damage, backups[0]?.created_at) } : {}),
    unreadable: store.unreadable,
    backups,
  };
}

const restoring = new WeakSet<SessionStore>();

/**
 * Put the checked backup `name` in place of the database: the files replaced go to set-aside/<time>/ (never
 * deleted), and the store loads again from the backup, at once (no restart). Refused while a reply is written.
 */
export async function restoreBackup(stateDir: string, store: SessionStore, name: unknown, turnsRunning: number): Promise<{ restored: BackupInfo; setAside: string }> {
  const chosen = typeof name === 'string' ? (await listBackups(stateDir)).find((b) => b.name === name) : undefined;
  if (!chosen) throw new ValueError(NO_SUCH_BACKUP);
  if (turnsRunning > 0) throw new HttpError(409, RESTORE_WHILE_REPLYING);
  if (restoring.has(store)) throw new HttpError(409, RESTORE_UNDER_WAY);
  restoring.add(store);
  try {
    const problem = await checkDatabase(path.join(backupDir(stateDir), chosen.name), true);
    if (problem) throw new HttpError(409, `The backup of ${chosen.created_at} failed SQLite's check (${problem}): choose another`);
    let setAside = '';
    await store.replaceDatabase(async () => {
      setAside = await putBackupInPlace(stateDir, store.file, chosen.name);
    });
    log.warn(`Restored the conversation database from the backup of ${chosen.created_at}; the files it replaced are kept in ${setAside}`);
    return { restored: chosen, setAside };
  } finally {
    restoring.delete(store);
  }
}
