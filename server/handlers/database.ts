// The conversation database's state and its way back (docs/API.md "Database and backups"): GET /api/database
// for Settings and the page's banner, POST /api/database/restore to put a checked backup in place.
import { recoverInterruptedTurns } from '../agent/turns.js';
import type { HandlerInput } from '../app.js';
import { agentKeysOf } from '../mcp/keys.js';
import type { DatabaseRestoreResponse, DatabaseStateResponse } from '../core/wire.js';
import { readJsonBody } from '../http/body.js';
import { sendJson } from '../http/respond.js';
import { serverValue } from '../projections/brand.js';
import { publicBackup, publicDatabaseState } from '../projections/database.js';
import { databaseState, restoreBackup } from '../store/database-care.js';

export async function getDatabase({ ctx, app }: HandlerInput): Promise<void> {
  await sendJson(ctx, 200, publicDatabaseState(await databaseState(app.config.stateDir, app.sessions)) satisfies DatabaseStateResponse);
}

/** `{ "backup": "<name from GET /api/database>" }`. */
export async function restoreDatabase({ ctx, app }: HandlerInput): Promise<void> {
  const body = await readJsonBody(ctx);
  const { restored, setAside } = await restoreBackup(app.config.stateDir, app.sessions, body.backup, app.turns.activeCount);
  // A backup taken while a reply was written holds that turn as running: no turn runs now (restoreBackup refuses
  // while one does), so it is closed as interrupted, as at start, and the rows written meanwhile are stored.
  await recoverInterruptedTurns(app.sessions);
  // The agent keys as the restored database holds them, a revocation made since the backup kept (mcp/keys.ts).
  await agentKeysOf(app)?.reload();
  const state = publicDatabaseState(await databaseState(app.config.stateDir, app.sessions));
  await sendJson(ctx, 200, { ...state, restored: publicBackup(restored), set_aside: serverValue(setAside) } satisfies DatabaseRestoreResponse);
}
