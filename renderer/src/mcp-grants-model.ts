// What an agent's key may read, as the MCP panel's grants editor holds it (issue 39), and the words the panel uses
// for keys, grants and ledger rows. Pure: no DOM, so every rule here is tested by itself.
// The server takes a list of grants, each with its own expiry (docs/API.md "Agent keys"); the editor offers one
// expiry for the whole set, the way a person says "until Friday".
import type { AgentKey, AgentKeyKind, McpGrant, McpLedgerEntry } from './api.js';

export const AGENT_KINDS: { kind: AgentKeyKind; label: string }[] = [
  { kind: 'claude_code', label: 'Claude Code' },
  { kind: 'codex', label: 'Codex' },
  { kind: 'cursor', label: 'Cursor' },
  { kind: 'hermes', label: 'Hermes Agent' },
  { kind: 'other', label: 'Other MCP client' },
];

export const kindLabel = (kind: string): string => AGENT_KINDS.find((k) => k.kind === kind)?.label ?? kind;

/** The id the shared MCP token's key has, and the ledger's name for Satchel's own launch token. */
export const UNNAMED_KEY_ID = 'unnamed';
export const LAUNCH_KEY_ID = 'launch';

export interface GrantChoice {
  all: boolean;
  conversations: string[];
  /** Folder ids: each grants the conversations in that folder at the time of each read. */
  folders: string[];
  inbox: boolean;
  workspaces: string[];
  /** A local day, `yyyy-mm-dd` (what `<input type="date">` holds), through which the grants last; '' for no end. */
  expires: string;
}

export const EMPTY_CHOICE: GrantChoice = { all: false, conversations: [], folders: [], inbox: false, workspaces: [], expires: '' };

const pad = (n: number) => String(n).padStart(2, '0');

/** A time as the local day `yyyy-mm-dd`. */
export function localDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The first moment after the local day `day` (grants chosen "until Friday" last all Friday). */
export function endOfDay(day: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  const end = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1, 0, 0, 0, 0).getTime();
  return Number.isFinite(end) ? end : null;
}

/** The editor's state for a key's grants: one expiry shown, the earliest (the set is no wider than the screen says). */
export function choiceFromGrants(grants: readonly McpGrant[]): GrantChoice {
  const ends = grants.map((g) => (g.expires_at ? Date.parse(g.expires_at) : NaN)).filter((t) => Number.isFinite(t));
  // An expiry the server holds is the first moment after a day; the day shown is the one it ends.
  const expires = ends.length > 0 ? localDay(Math.min(...ends) - 1) : '';
  return {
    all: grants.some((g) => g.kind === 'all'),
    conversations: grants.flatMap((g) => (g.kind === 'conversation' ? [g.session_id] : [])),
    folders: grants.flatMap((g) => (g.kind === 'folder' ? [g.folder_id] : [])),
    inbox: grants.some((g) => g.kind === 'inbox'),
    workspaces: grants.flatMap((g) => (g.kind === 'workspace' ? [g.path] : [])),
    expires,
  };
}

export type GrantsResult = { ok: true; grants: McpGrant[] } | { ok: false; error: string };

export const EXPIRY_PAST = 'Pick an end day from today on, or leave it empty.';
export const WORKSPACE_NOT_ABSOLUTE = 'A workspace must be a full path (starting with /).';

/** The grants the server is sent: "All conversations" covers the rest, so it is sent alone. */
export function grantsFromChoice(choice: GrantChoice, now = Date.now()): GrantsResult {
  let expires_at: string | undefined;
  if (choice.expires !== '') {
    const end = endOfDay(choice.expires);
    if (end === null || end <= now) return { ok: false, error: EXPIRY_PAST };
    expires_at = new Date(end).toISOString();
  }
  const until = expires_at !== undefined ? { expires_at } : {};
  if (choice.all) return { ok: true, grants: [{ kind: 'all', ...until }] };
  const workspaces = [...new Set(choice.workspaces.map((w) => w.trim()).filter((w) => w !== ''))];
  // The server resolves the path; it must be absolute (a Windows drive or a POSIX root).
  if (workspaces.some((w) => !/^(\/|[A-Za-z]:[\\/])/.test(w))) return { ok: false, error: WORKSPACE_NOT_ABSOLUTE };
  return {
    ok: true,
    grants: [
      ...[...new Set(choice.conversations)].map((session_id): McpGrant => ({ kind: 'conversation', session_id, ...until })),
      ...[...new Set(choice.folders)].map((folder_id): McpGrant => ({ kind: 'folder', folder_id, ...until })),
      ...(choice.inbox ? [{ kind: 'inbox' as const, ...until }] : []),
      ...workspaces.map((path): McpGrant => ({ kind: 'workspace', path, ...until })),
    ],
  };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A folder's name by its id; undefined for one deleted since. */
export type FolderNameOf = (id: string) => string | undefined;
const noFolders: FolderNameOf = () => undefined;

/**
 * One line for the agents list: "All conversations", "2 conversations, the folder “Travel”, the Inbox · until Dec 3",
 * "Nothing yet".
 */
export function grantsSummary(grants: readonly McpGrant[], titleOf: (id: string) => string | undefined, now = Date.now(), folderOf: FolderNameOf = noFolders): string {
  const live = grants.filter((g) => !g.expires_at || Date.parse(g.expires_at) > now);
  if (grants.length > 0 && live.length === 0) return 'Nothing: its access has ended';
  const c = choiceFromGrants(live);
  const parts: string[] = [];
  if (c.all) parts.push('All conversations');
  else {
    if (c.conversations.length === 1) parts.push(`“${titleOf(c.conversations[0]!) ?? 'a conversation that is gone'}”`);
    else if (c.conversations.length > 1) parts.push(plural(c.conversations.length, 'conversation', 'conversations'));
    // A deleted folder grants nothing (the server matches no conversation to it): said so, not hidden.
    if (c.folders.length === 1) parts.push(`the folder “${folderOf(c.folders[0]!) ?? 'a folder that is gone'}”`);
    else if (c.folders.length > 1) parts.push(`the folders ${c.folders.map((id) => `“${folderOf(id) ?? 'a folder that is gone'}”`).join(', ')}`);
    if (c.inbox) parts.push('the Inbox');
    if (c.workspaces.length === 1) parts.push(`the workspace ${c.workspaces[0]}`);
    else if (c.workspaces.length > 1) parts.push(plural(c.workspaces.length, 'workspace', 'workspaces'));
  }
  if (parts.length === 0) return 'Nothing yet';
  const line = parts.join(', ');
  if (c.expires === '') return line;
  const end = endOfDay(c.expires)! - 1;
  return `${line} · until ${new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' }).format(new Date(end))}`;
}

/** What a key is doing now, as its row says it. */
export function keyStatus(key: Pick<AgentKey, 'paused' | 'revoked' | 'id'>): 'Active' | 'Paused' | 'Revoked' | 'Retired' {
  if (key.revoked) return key.id === UNNAMED_KEY_ID ? 'Retired' : 'Revoked';
  return key.paused ? 'Paused' : 'Active';
}

const OUTCOMES: Record<McpLedgerEntry['outcome'], string> = { ok: '', not_found: 'not found', refused: 'refused', error: 'failed' };

const OPS: Record<string, string> = {
  list_sessions: 'listed conversations',
  read_session: 'read',
  read_attachment: 'read',
  list_workspace: 'listed the workspace of',
  read_workspace_file: 'read',
  search: 'searched',
};

/**
 * A ledger row in words, without its agent and time (the timeline shows those in their own columns):
 * "read report.docx in “Trip” (chars 0-1000)", "searched “lease” in “Trip”", "listed conversations".
 */
export function ledgerWhat(e: Pick<McpLedgerEntry, 'op' | 'kind' | 'name' | 'range' | 'query' | 'session_id' | 'outcome'>, titleOf: (id: string) => string | undefined, folderOf: FolderNameOf = noFolders): string {
  const title = e.session_id ? `“${titleOf(e.session_id) ?? e.session_id}”` : '';
  const verb = OPS[e.op] ?? (e.op.startsWith('resource:') ? 'read' : e.op);
  let text: string;
  if (e.op === 'search') text = `searched “${e.query}”${title ? ` in ${title}` : ''}`;
  // list_sessions' `name` is the folder the agent asked for, by id or by name: shown by its name where it is known.
  else if (e.op === 'list_sessions' && e.name) text = `${verb} in the folder “${folderOf(e.name) ?? e.name}”`;
  else if (e.op === 'list_sessions' || (e.kind === 'list' && !title)) text = verb;
  else if (e.op === 'list_workspace') text = `listed ${e.name ? `${e.name} in ` : ''}the workspace of ${title}`;
  else if (e.name) text = `${verb} ${e.name}${title ? ` in ${title}` : ''}`;
  else text = `${verb} ${title || e.kind}`;
  if (e.range) text += ` (${e.range})`;
  const outcome = OUTCOMES[e.outcome];
  return outcome ? `${text}: ${outcome}` : text;
}

/** The agent a ledger row names. */
export function ledgerAgent(keyId: string, keys: readonly Pick<AgentKey, 'id' | 'name'>[]): string {
  if (keyId === LAUNCH_KEY_ID) return 'Satchel itself';
  return keys.find((k) => k.id === keyId)?.name ?? 'A removed key';
}
