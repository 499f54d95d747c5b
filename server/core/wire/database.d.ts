// The conversation database's state and its backups as Settings shows them (issue 33). Apart from wire.d.ts
// (which re-exports it) so each topic of the API is one file under 400 lines.

/** A checked backup of the conversation database (GET /api/database). */
export interface DatabaseBackup {
  name: string;
  created_at: string;
  reason: string;
  size: number;
}
/** GET /api/database: the database's state, its backups, and (damaged) one sentence of what to do. */
export interface DatabaseStateResponse {
  state: 'ok' | 'damaged';
  file: string;
  message?: string;
  /** Conversations set aside at start: their header could not be read. */
  unreadable: { session_id: string; reason: string }[];
  backups: DatabaseBackup[];
}
/** POST /api/database/restore {backup}: the state after the restore, what came back and where the old files went. */
export interface DatabaseRestoreResponse extends DatabaseStateResponse {
  restored: DatabaseBackup;
  set_aside: string;
}
