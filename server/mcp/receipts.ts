// Read receipts of one MCP session's client (store/receipts.ts holds them): each successful read of a
// conversation's content is recorded under the name the client gave at `initialize`, and the windows showing
// that conversation are told at once (the `mcp_read` event). A receipt that cannot be stored never fails the read.
import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import { log } from '../core/log.js';
import type { EventBus } from '../store/events.js';
import { clientLabel, clientVersion, wireReceipt, type ReceiptKind } from '../store/receipts.js';
import type { SessionStore } from '../store/sessions.js';

export type RecordRead = (sessionId: string, kind: ReceiptKind, name?: string) => Promise<void>;

export function receiptRecorder(app: { sessions: Pick<SessionStore, 'recordReceipt'>; events: EventBus }, profile: string, client: () => Implementation | undefined): RecordRead {
  return async (sessionId, kind, name = '') => {
    const info = client();
    try {
      const stored = await app.sessions.recordReceipt(sessionId, { client: clientLabel(info?.name), clientVersion: clientVersion(info?.version), kind, name });
      app.events.publish({ name: 'mcp_read', profile, data: { session_id: sessionId, receipt: wireReceipt(stored) } });
    } catch (err) {
      // The session was deleted between the read and its receipt (cascade), or the database is closing.
      log.warn('mcp: a read receipt was not stored', err);
    }
  };
}
