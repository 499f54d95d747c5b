// The one resolver every MCP tool and resource goes through (issue 39): what the agent key of an MCP session may
// see. mcp/data.ts takes an McpScope, never a bare profile, so a new tool cannot reach a conversation without
// asking it. A conversation outside the key's grants answers exactly as one that does not exist (the very 404);
// "Keep out of MCP" stays the override (no grant reaches a kept-out conversation). The key's state is read at
// every call, so a revoke, a pause or a grant changed lands on the next call, in an open session too.
import { HttpError } from '../core/errors.js';
import { sessionVisible, visibleSession } from '../store/profiles.js';
import { SESSION_NOT_FOUND, type Session, type SessionStore } from '../store/sessions.js';
import { findFolder, FOLDER_NOT_FOUND, listFolders } from '../store/folders.js';
import type { Workspaces } from '../store/workspaces.js';
import type { StoredGrant } from '../store/mcp-keys.js';
import type { PlaceGuard } from '../store/protected.js';
import { isWithin, liveGrants } from './grants.js';
import { agentKeysOf, KEY_PAUSED } from './keys.js';
import { mcpWorkspaceGuard } from './kept-out.js';
import type { Roots } from './roots.js';
import { NOT_FOUND } from '../store/anchored-browse.js';

/** The ledger's key id for the launch token: the person's own, which sees everything MCP may. */
export const LAUNCH_KEY_ID = 'launch';
/** What a call of a key revoked while the call was on its way answers. */
export const KEY_GONE = 'This agent key is no longer valid';

/** What a grant is checked against: a conversation's listing row. */
export interface Grantable {
  session_id: string;
  profile?: unknown;
  workspace?: unknown;
  keep_out_of_mcp?: unknown;
  folder?: unknown;
}

type Listing = ReturnType<SessionStore['list']>[number];

/** What the resolver reads of the application; its callers (mcp/data.ts) hold the whole one as `A`. */
export interface ScopeApp {
  sessions: SessionStore;
  workspaces: Pick<Workspaces, 'protectedPlaces'>;
}

export class McpScope<A extends ScopeApp = ScopeApp> {
  constructor(
    readonly app: A,
    readonly profile: string,
    readonly keyId: string,
    /** Whether a conversation is the profile's Inbox (inbox/session.ts isInboxSession), for an `inbox` grant. */
    private readonly isInbox: (sessionId: string) => Promise<boolean>,
    /** The folders the client declared as its roots (mcp/roots.ts); undefined: it declared none. */
    private readonly roots: Roots = async () => undefined,
  ) {}

  /** Whether a workspace place (its real path) lies within the client's roots, when it declared any: a root only
   *  narrows what the grants allow (their intersection). */
  async withinRoots(place: string): Promise<boolean> {
    const roots = await this.roots();
    return roots === undefined || roots.some((root) => isWithin(root, place));
  }

  /** Refuses, as a place that does not exist, a workspace place outside the client's roots. */
  async checkRoots(place: string): Promise<void> {
    if (!(await this.withinRoots(place))) throw new HttpError(404, NOT_FOUND);
  }

  /** The grants in force now; 'all' for the launch token and for an app built without keys. Refuses a key that
   *  is revoked or paused since its request was let in. */
  grants(now = Date.now()): readonly StoredGrant[] | 'all' {
    const keys = agentKeysOf(this.app);
    if (this.keyId === LAUNCH_KEY_ID || !keys) return 'all';
    const key = keys.live(this.keyId);
    if (!key) throw new HttpError(401, KEY_GONE);
    if (key.paused) throw new HttpError(403, KEY_PAUSED);
    return liveGrants(key.grants, now);
  }

  /** A sync test of one conversation, made once per call: the Inbox's id is looked up only if a grant needs it. */
  async predicate(): Promise<(s: Grantable) => boolean> {
    const grants = this.grants();
    const base = (s: Grantable) => sessionVisible(s.profile, this.profile) && s.keep_out_of_mcp !== true;
    if (grants === 'all' || grants.some((g) => g.kind === 'all')) return base;
    const ids = new Set(grants.filter((g) => g.kind === 'conversation').map((g) => g.target));
    const roots = grants.filter((g) => g.kind === 'workspace').map((g) => g.target);
    // A folder grant holds the conversations in the folder now: read at each call, so one moved out, or the
    // folder deleted (its conversations may still name it until they are moved back: store/folders.ts), is
    // outside it from the next call on.
    const folderGrants = grants.filter((g) => g.kind === 'folder').map((g) => g.target);
    const folders = new Set<string>();
    if (folderGrants.length > 0) {
      const live = new Set((await this.app.sessions.query((q) => listFolders(q, this.profile))).map((f) => f.id));
      for (const id of folderGrants) if (live.has(id)) folders.add(id);
    }
    const inbox = grants.some((g) => g.kind === 'inbox');
    const inboxIds = new Set<string>();
    if (inbox) {
      for (const s of this.app.sessions.list()) {
        if (base(s) && (await this.isInbox(s.session_id))) inboxIds.add(s.session_id);
      }
    }
    return (s) =>
      base(s) &&
      (ids.has(s.session_id) ||
        inboxIds.has(s.session_id) ||
        (typeof s.folder === 'string' && folders.has(s.folder)) ||
        (typeof s.workspace === 'string' && roots.some((root) => isWithin(root, s.workspace as string))));
  }

  /** The conversation `id`, if this key may read it; otherwise the 404 of one that does not exist. */
  async session(id: unknown): Promise<Session> {
    const s = await visibleSession(this.app.sessions, id, this.profile);
    const allowed = await this.predicate();
    if (!allowed(s)) throw new HttpError(404, SESSION_NOT_FOUND);
    return s;
  }

  /**
   * The ids of the conversations this key may see (the same set as sessions()). A key granted chosen conversations
   * only is answered from its grants, each looked up: a search across conversations asked for them on every call,
   * and filtering every listing (2,000 at 200,000 messages) cost 5-7 ms of CPU per search on the shared machine
   * (docs/benchmarks.md, session 16), for a set its grants already name.
   */
  async sessionIds(): Promise<string[]> {
    const grants = this.grants();
    if (grants === 'all' || grants.some((g) => g.kind !== 'conversation')) return (await this.sessions()).map((s) => s.session_id);
    const allowed = await this.predicate();
    const ids: string[] = [];
    for (const id of new Set(grants.map((g) => g.target))) {
      const s = this.app.sessions.listing(id);
      if (s && allowed(s)) ids.push(id);
    }
    return ids;
  }

  /** The conversations this key may see, as listed. */
  async sessions(): Promise<Listing[]> {
    const allowed = await this.predicate();
    return this.app.sessions.list().filter((s) => allowed(s));
  }

  /** The conversations this key may see in the folder `ref` (its id or name). A folder the key is neither granted
   *  (by `all` or by it) nor sees a conversation in answers as one that does not exist: its name tells nothing. */
  async sessionsInFolder(ref: string): Promise<Listing[]> {
    const grants = this.grants();
    const folder = findFolder(await this.app.sessions.query((q) => listFolders(q, this.profile)), ref);
    if (!folder) throw new HttpError(404, FOLDER_NOT_FOUND);
    const inside = (await this.sessions()).filter((s) => s.folder === folder.id);
    const granted = grants === 'all' || grants.some((g) => g.kind === 'all' || (g.kind === 'folder' && g.target === folder.id));
    if (!granted && inside.length === 0) throw new HttpError(404, FOLDER_NOT_FOUND);
    return inside;
  }

  /** The places a workspace read must not reach: the protected ones, the workspaces of conversations kept out of
   *  MCP and of conversations this key is not granted, unless a granted one works in that very folder. */
  async workspaceGuard(): Promise<PlaceGuard> {
    return mcpWorkspaceGuard(this.app, this.profile, await this.predicate());
  }
}
