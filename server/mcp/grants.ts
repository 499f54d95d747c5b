// What an agent's key is granted (issue 39): all conversations, chosen ones, the Inbox, the conversations of
// chosen workspaces or of a folder (those in it at the time of each call), each with an optional expiry. Parsed here from the panel's JSON; applied by mcp/scope.ts.
import path from 'node:path';
import { ValueError } from '../core/errors.js';
import { isFolderId } from '../store/folders.js';
import { GRANT_KINDS, type GrantKind, type StoredGrant } from '../store/mcp-keys.js';

/** Longest target (a conversation id, a workspace path). */
export const MAX_GRANT_TARGET_CHARS = 4096;

/** `[{kind: "all"|"conversation"|"inbox"|"workspace"|"folder", session_id?, path?, folder_id?, expires_at?: ISO time}]`. */
export function parseGrants(value: unknown, now = Date.now()): StoredGrant[] {
  if (!Array.isArray(value)) throw new ValueError('grants must be a list');
  return value.map((g: unknown) => parseGrant(g, now));
}

function parseGrant(value: unknown, now: number): StoredGrant {
  if (typeof value !== 'object' || value === null) throw new ValueError('Each grant must be an object');
  const g = value as Record<string, unknown>;
  if (typeof g.kind !== 'string' || !(GRANT_KINDS as readonly string[]).includes(g.kind)) throw new ValueError(`A grant's kind must be one of ${GRANT_KINDS.join(', ')}`);
  const kind = g.kind as GrantKind;
  let target = '';
  if (kind === 'conversation') {
    if (typeof g.session_id !== 'string' || g.session_id === '' || g.session_id.length > 64) throw new ValueError('A conversation grant needs a session_id');
    target = g.session_id;
  } else if (kind === 'workspace') {
    if (typeof g.path !== 'string' || !path.isAbsolute(g.path) || g.path.length > MAX_GRANT_TARGET_CHARS || g.path.includes('\0')) {
      throw new ValueError('A workspace grant needs an absolute path');
    }
    target = path.resolve(g.path);
  } else if (kind === 'folder') {
    // Its shape only: the routes check the folder is the profile's (handlers/mcp-settings.ts); one deleted later grants nothing.
    if (!isFolderId(g.folder_id)) throw new ValueError('A folder grant needs a folder_id');
    target = g.folder_id;
  }
  let expires: number | null = null;
  if (g.expires_at !== undefined && g.expires_at !== null) {
    const at = typeof g.expires_at === 'string' ? Date.parse(g.expires_at) : NaN;
    if (!Number.isFinite(at)) throw new ValueError('expires_at must be an ISO time');
    if (at <= now) throw new ValueError('expires_at must be in the future');
    expires = at;
  }
  return { kind, target, expires_at: expires };
}

/** The grants still in force at `now`. */
export function liveGrants(grants: readonly StoredGrant[], now = Date.now()): StoredGrant[] {
  return grants.filter((g) => g.expires_at === null || g.expires_at > now);
}

/** Whether `dir` is `root` or below it (both absolute, compared as resolved paths). */
export function isWithin(root: string, dir: string): boolean {
  const rel = path.relative(root, path.resolve(dir));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
