// GET /api/database and POST /api/database/restore as they leave the server: every string is one the server
// made (paths in the state folder, backup names and times, its own sentences, SQLite's words), sent as it is.
import type { DatabaseState } from '../store/database-care.js';
import type { BackupInfo } from '../store/db/backup.js';
import { serverValue, type ServerValue } from './brand.js';

export interface PublicDatabaseBackup {
  name: ServerValue;
  created_at: ServerValue;
  reason: ServerValue;
  size: number;
}

export interface PublicDatabaseState {
  state: 'ok' | 'damaged';
  file: ServerValue;
  message?: ServerValue;
  unreadable: { session_id: ServerValue; reason: ServerValue }[];
  backups: PublicDatabaseBackup[];
}

export function publicBackup(b: BackupInfo): PublicDatabaseBackup {
  return { name: serverValue(b.name), created_at: serverValue(b.created_at), reason: serverValue(b.reason), size: b.size };
}

export function publicDatabaseState(s: DatabaseState): PublicDatabaseState {
  return {
    state: s.state,
    file: serverValue(s.file),
    ...(s.message !== undefined ? { message: serverValue(s.message) } : {}),
    unreadable: s.unreadable.map((u) => ({ session_id: serverValue(u.session_id), reason: serverValue(u.reason) })),
    backups: s.backups.map(publicBackup),
  };
}
