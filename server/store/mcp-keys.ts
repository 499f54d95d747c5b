// The agents' MCP keys and their grants on disk (issue 39; tables of schema.ts's migration 9). Only a SHA-256 of
// a key's token is stored: the token itself is shown once, when the key is made (mcp/keys.ts). The key
// UNNAMED_KEY_ID has no hash: it stands for the shared MCP token (mcp/token.ts), which keeps working as
// "Unnamed client" until the person revokes that key.
import type { Queries } from './db/connection.js';

export const UNNAMED_KEY_ID = 'unnamed';
export const UNNAMED_KEY_NAME = 'Unnamed client';

export const AGENT_KINDS = ['claude_code', 'codex', 'cursor', 'hermes', 'other'] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];

export const GRANT_KINDS = ['all', 'conversation', 'inbox', 'workspace', 'folder'] as const;
export type GrantKind = (typeof GRANT_KINDS)[number];

export interface StoredGrant {
  kind: GrantKind;
  /** The conversation's id, the workspace's absolute path, the folder's id; '' for `all` and `inbox`. */
  target: string;
  /** Epoch ms after which the grant no longer counts; null: no expiry. */
  expires_at: number | null;
}

export interface StoredKey {
  id: string;
  name: string;
  kind: AgentKind;
  /** Hex SHA-256 of the token; null for UNNAMED_KEY_ID. */
  hash: string | null;
  created_at: number;
  last_used_at: number | null;
  paused: boolean;
  revoked_at: number | null;
  grants: StoredGrant[];
}

interface KeyRow extends Omit<StoredKey, 'paused' | 'grants'> {
  paused: number;
}

/** Every key with its grants, the oldest first. */
export async function loadKeys(q: Queries): Promise<StoredKey[]> {
  const rows = await q.all<KeyRow>('SELECT id, name, kind, hash, created_at, last_used_at, paused, revoked_at FROM mcp_keys ORDER BY created_at, id');
  const grants = await q.all<StoredGrant & { key_id: string }>('SELECT key_id, kind, target, expires_at FROM mcp_grants ORDER BY id');
  return rows.map((r) => ({
    ...r,
    paused: r.paused !== 0,
    grants: grants.filter((g) => g.key_id === r.id).map(({ kind, target, expires_at }) => ({ kind, target, expires_at })),
  }));
}

/** The unnamed key (the shared MCP token), granted everything: what every client saw before keys existed. */
export async function ensureUnnamedKey(q: Queries, now: number): Promise<void> {
  const made = await q.run("INSERT OR IGNORE INTO mcp_keys (id, name, kind, hash, created_at) VALUES (?, ?, 'other', NULL, ?)", [UNNAMED_KEY_ID, UNNAMED_KEY_NAME, now]);
  if (made.changes > 0) await q.run("INSERT INTO mcp_grants (key_id, kind, target, expires_at) VALUES (?, 'all', '', NULL)", [UNNAMED_KEY_ID]);
}

export async function insertKey(q: Queries, key: StoredKey): Promise<void> {
  await q.run('INSERT INTO mcp_keys (id, name, kind, hash, created_at, paused) VALUES (?, ?, ?, ?, ?, 0)', [key.id, key.name, key.kind, key.hash, key.created_at]);
  await replaceGrants(q, key.id, key.grants);
}

export async function replaceGrants(q: Queries, keyId: string, grants: readonly StoredGrant[]): Promise<void> {
  await q.run('DELETE FROM mcp_grants WHERE key_id = ?', [keyId]);
  for (const g of grants) await q.run('INSERT INTO mcp_grants (key_id, kind, target, expires_at) VALUES (?, ?, ?, ?)', [keyId, g.kind, g.target, g.expires_at]);
}

export async function updateKey(q: Queries, keyId: string, change: { name?: string; paused?: boolean; revoked_at?: number; last_used_at?: number }): Promise<void> {
  if (change.name !== undefined) await q.run('UPDATE mcp_keys SET name = ? WHERE id = ?', [change.name, keyId]);
  if (change.paused !== undefined) await q.run('UPDATE mcp_keys SET paused = ? WHERE id = ?', [change.paused ? 1 : 0, keyId]);
  // A revoked key's hash is dropped too: nothing is left that could match its token again.
  if (change.revoked_at !== undefined) await q.run('UPDATE mcp_keys SET revoked_at = ?, hash = NULL WHERE id = ?', [change.revoked_at, keyId]);
  if (change.last_used_at !== undefined) await q.run('UPDATE mcp_keys SET last_used_at = ? WHERE id = ?', [change.last_used_at, keyId]);
}
