// GET /api/session/receipts?session_id=: the MCP read receipts of a conversation (store/receipts.ts: from the
// ledger, each agent by its key's name), the latest read first. A deleted conversation answers 404 like any other route of it; its receipts go with it.
import type { HandlerInput } from '../app.js';
import { sendJson } from '../http/respond.js';
import { publicReceipt } from '../projections/index.js';
import { visibleSession } from '../store/profiles.js';
import { wireReceipt } from '../store/receipts.js';
import { keyNames } from '../mcp/receipts.js';

export async function listSessionReceipts(input: HandlerInput): Promise<void> {
  const session = await visibleSession(input.app.sessions, input.ctx.url.searchParams.get('session_id'), input.profile);
  const receipts = await input.app.sessions.receipts(session.session_id, keyNames(input.app));
  await sendJson(input.ctx, 200, { receipts: receipts.map((r) => publicReceipt(wireReceipt(r))) });
}
