// Read receipts (store/receipts.ts): read from the ledger, so there is nothing to write here. A receipt names the
// agent by its key (the name the person gave it in the MCP panel), never by the name its client declares. The
// windows showing a conversation are told of each read of it once the read is in the ledger (the `mcp_read`
// event), after the read was answered: telling them never delays nor fails a read.
import { log } from '../core/log.js';
import type { EventBus } from '../store/events.js';
import { ledgerReceipts, wireReceipt, type KeyName, type ReceiptKind } from '../store/receipts.js';
import type { SessionStore } from '../store/sessions.js';
import { agentKeysOf } from './keys.js';
import type { LedgerWhat } from './ledger.js';
import { LAUNCH_KEY_ID } from './scope.js';

/** What a receipt calls a read made with the person's own launch token (no agent key, no name given). */
export const LAUNCH_TOKEN_LABEL = 'Launch token';
/** A key the app does not know (none is ever deleted; an app built without keys). */
export const UNKNOWN_KEY_LABEL = 'An MCP client';

/** The name of each agent key as receipts show it. */
export function keyNames(app: object): KeyName {
  const keys = agentKeysOf(app);
  return (keyId) => (keyId === LAUNCH_KEY_ID ? LAUNCH_TOKEN_LABEL : (keys?.list().find((k) => k.id === keyId)?.name ?? UNKNOWN_KEY_LABEL));
}

const RECEIPT_KINDS: Readonly<Record<string, ReceiptKind>> = { conversation: 'conversation', attachment: 'attachment', workspace: 'workspace', search: 'conversation' };

export type Announce = (what: LedgerWhat) => void;

/** Tells the profile's windows of a recorded read of the key `keyId`: its receipt as the list now shows it. */
export function readAnnouncer(app: { sessions: Pick<SessionStore, 'query'>; events: EventBus }, profile: string, keyId: string): Announce {
  const names = keyNames(app);
  return (what) => {
    const kind = RECEIPT_KINDS[what.kind];
    if (!kind) return;
    const sessions = what.sessions && what.sessions.length > 0 ? [...new Set(what.sessions)] : what.session_id !== undefined ? [what.session_id] : [];
    for (const sessionId of sessions) {
      void app.sessions
        .query((q) => ledgerReceipts(q, sessionId, names, { keyId, kind }))
        .then((mine) => {
          const receipt = mine.find((r) => r.name === (kind === 'conversation' ? '' : what.name)) ?? mine[0];
          if (receipt) app.events.publish({ name: 'mcp_read', profile, data: { session_id: sessionId, receipt: wireReceipt(receipt) } });
        })
        .catch((err: unknown) => log.warn('mcp: a read was not announced', err));
    }
  };
}
