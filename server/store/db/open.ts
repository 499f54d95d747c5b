// Opening the conversation database at start, damaged or not (issue 33, finding 10). The files are looked at
// before SQLite opens them (damage.ts); a database of an older schema is backed up before it is migrated
// (backup.ts); damage met on the way is returned, not thrown, so the server starts and says what happened.
import { BackupFailed, makeBackup, storedSchemaVersion } from './backup.js';
import { Db, isDatabaseCorrupt } from './connection.js';
import { backupCheckDamage, corruptDamage, inspectDatabaseFiles, logUnreadable, type DatabaseDamage, type UnreadableSession } from './damage.js';
import { importJsonSessions } from './import-json.js';
import { finishShownImports } from './import-rows.js';
import { applyIndexMergePolicy } from './index-merge.js';
import { migrateSchema, SCHEMA_VERSION } from './schema.js';
import { readListings, type SessionListing } from './session-rows.js';

/** The answer to a write while a restore puts another database in place (503). */
export const DATABASE_REPLACING = 'The conversation database is being replaced by a backup; try again in a moment';

export interface OpenedDatabase {
  /** The connection; none when the files were damaged before SQLite could open them. */
  db: Db | undefined;
  listings: SessionListing[];
  unreadable: UnreadableSession[];
  damage?: DatabaseDamage;
}

/**
 * Open `file` (created on first start), back it up if its schema is older, migrate it, move in an older
 * Satchel's JSON session files, and read every listing. `onCorrupt` is told of damage met later, at run time.
 */
export async function openSessionDatabase(stateDir: string, file: string, onCorrupt: (err: Error) => void, idleCheckpointMs?: number): Promise<OpenedDatabase> {
  const unreadable: UnreadableSession[] = [];
  const found = await inspectDatabaseFiles(file);
  if (found) return { db: undefined, listings: [], unreadable, damage: found };
  let db: Db;
  try {
    db = await Db.open(file, idleCheckpointMs);
  } catch (err) {
    if (isDatabaseCorrupt(err)) return { db: undefined, listings: [], unreadable, damage: corruptDamage(file, err as Error) };
    throw err;
  }
  let damage: DatabaseDamage | undefined;
  let listings: SessionListing[] = [];
  try {
    const version = await storedSchemaVersion(db);
    if (version > 0 && version < SCHEMA_VERSION) {
      try {
        await makeBackup(db, stateDir, `before-schema-${version}`);
      } catch (err) {
        if (!(err instanceof BackupFailed && err.damaged)) throw new Error(`Could not back up ${file} before upgrading it, so it was left as it is: ${(err as Error).message}`);
        damage = backupCheckDamage(file, err.message);
      }
    }
    if (!damage) {
      await migrateSchema(db);
      // After the migrations, which may make the index again: FTS5's merges in bounded steps (index-merge.ts).
      await applyIndexMergePolicy(db);
      db.mergeIndexAfterWrites();
      await importJsonSessions(db, stateDir);
      // An import killed after its commit is shown whole before anything is listed (import-rows.ts).
      await finishShownImports(db);
    }
    listings = await readListings(db, (u) => {
      unreadable.push(u);
      logUnreadable(file, u);
    });
  } catch (err) {
    if (!isDatabaseCorrupt(err)) {
      await db.close().catch(() => {});
      throw err;
    }
    damage ??= corruptDamage(file, err as Error);
  }
  db.onCorrupt = onCorrupt;
  return { db, listings, unreadable, damage };
}
