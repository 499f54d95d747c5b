// Agent keys and ledger rows as the MCP panel's routes send them (issue 39, handlers/mcp-keys.ts). A key's name is
// text a person typed (redacted); ids, kinds, times and hashes are the server's. A key's token is never here: it
// is sent once, by the creation route, outside any projection.
import type { StoredGrant, StoredKey } from '../store/mcp-keys.js';
import type { LedgerEntry } from '../store/mcp-ledger.js';
import { redactText, serverValue, type RedactedText, type ServerValue } from './brand.js';

const iso = (ms: number | null): ServerValue | null => (ms === null ? null : serverValue(new Date(ms).toISOString()));

export interface PublicGrant {
  kind: ServerValue;
  session_id?: ServerValue;
  path?: ServerValue;
  folder_id?: ServerValue;
  expires_at: ServerValue | null;
}

export function publicGrant(g: StoredGrant): PublicGrant {
  return {
    kind: serverValue(g.kind),
    ...(g.kind === 'conversation' ? { session_id: serverValue(g.target) } : {}),
    ...(g.kind === 'workspace' ? { path: serverValue(g.target) } : {}),
    ...(g.kind === 'folder' ? { folder_id: serverValue(g.target) } : {}),
    expires_at: iso(g.expires_at),
  };
}

export interface PublicAgentKey {
  id: ServerValue;
  name: RedactedText;
  kind: ServerValue;
  created_at: ServerValue;
  last_used_at: ServerValue | null;
  paused: boolean;
  revoked: boolean;
  revoked_at: ServerValue | null;
  grants: PublicGrant[];
}

export function publicAgentKey(k: StoredKey): PublicAgentKey {
  return {
    id: serverValue(k.id),
    name: redactText(k.name),
    kind: serverValue(k.kind),
    created_at: iso(k.created_at)!,
    last_used_at: iso(k.last_used_at),
    paused: k.paused,
    revoked: k.revoked_at !== null,
    revoked_at: iso(k.revoked_at),
    grants: k.grants.map(publicGrant),
  };
}

export interface PublicLedgerEntry {
  id: number;
  key_id: ServerValue;
  at: ServerValue;
  op: ServerValue;
  outcome: ServerValue;
  session_id: ServerValue | null;
  kind: ServerValue;
  /** What the agent named (a path it asked for may hold anything): redacted. */
  name: RedactedText;
  range: ServerValue;
  query: RedactedText;
  bytes: number;
  sha256: ServerValue | null;
}

/** The query was redacted when recorded; it is redacted again on the way out (a secret learnt since is masked). */
export function publicLedgerEntry(e: LedgerEntry): PublicLedgerEntry {
  return {
    id: e.id,
    key_id: serverValue(e.key_id),
    at: iso(e.at)!,
    op: serverValue(e.op),
    outcome: serverValue(e.outcome),
    session_id: e.session_id === null ? null : serverValue(e.session_id),
    kind: serverValue(e.kind),
    name: redactText(e.name),
    range: serverValue(e.range),
    query: redactText(e.query),
    bytes: e.bytes,
    sha256: e.sha256 === null ? null : serverValue(e.sha256),
  };
}
