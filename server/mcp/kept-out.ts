// "Keep out of MCP" covers a conversation's workspace too (issue 33, finding 12). Conversations share folders:
// every one made without a workspace works in the same default one, and a conversation may work in the home
// folder while another works in a project below it. Hiding the kept-out conversation alone left its workspace
// readable through any visible conversation whose workspace holds it. So, for MCP, a kept-out conversation's
// workspace is a protected place (never listed, walked into, read or searched, exactly like Satchel's state
// folder: store/protected.ts), unless a visible conversation works in that very folder: the person showed that
// conversation, and its workspace is its own as much as the hidden one's.
//
// The nearest workspace decides: a walk starts at the asking conversation's own root and only the folders it
// steps into are checked, so a visible conversation whose workspace lies inside a kept-out one still reads its
// own workspace, while a visible conversation above both cannot walk down into the kept-out folder.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Stats } from 'node:fs';
import type { SessionStore } from '../store/sessions.js';
import type { Workspaces } from '../store/workspaces.js';
import { ProtectedPlaceError, type PlaceGuard } from '../store/protected.js';
import { sessionVisible } from '../store/profiles.js';

type Identity = Pick<Stats, 'dev' | 'ino'>;
const key = (id: Identity): string => `${id.dev}:${id.ino}`;

/** A folder's real path and identity; undefined when it is gone (a missing workspace hides nothing). */
async function folder(dir: string): Promise<{ real: string; id: string } | undefined> {
  try {
    const real = await fs.realpath(dir);
    const st = await fs.stat(real);
    return st.isDirectory() ? { real, id: key(st) } : undefined;
  } catch {
    return undefined;
  }
}

/** Workspaces named by the listings, each distinct name resolved once (thousands of conversations share a few). */
async function folders(names: Iterable<string>): Promise<{ real: string; id: string }[]> {
  const found = await Promise.all([...new Set(names)].map(folder));
  return found.filter((f) => f !== undefined);
}

class KeptOutGuard implements PlaceGuard {
  constructor(
    private readonly base: PlaceGuard,
    private readonly paths: ReadonlySet<string>,
    private readonly ids: ReadonlySet<string>,
  ) {}

  async fresh(): Promise<this> {
    await this.base.fresh();
    return this;
  }

  isPlace(dirPath: string, id?: Identity): boolean {
    return this.base.isPlace(dirPath, id) || this.paths.has(path.resolve(dirPath)) || (id !== undefined && this.ids.has(key(id)));
  }

  check = (dirPath: string, id: Identity): void => {
    if (this.isPlace(dirPath, id)) throw new ProtectedPlaceError();
  };
}

/**
 * The places an MCP read of `profile` must not reach in a workspace: the protected places, and the workspace of
 * every conversation kept out of MCP (any profile's: hiding more is the safe side) that no conversation the
 * client sees works in. Computed per request, from the listings held in memory: no session is read.
 */
export async function mcpWorkspaceGuard(
  app: { workspaces: Pick<Workspaces, 'protectedPlaces'>; sessions: Pick<SessionStore, 'list'> },
  profile: string,
  // Issue 39: the conversations an agent key is granted (mcp/scope.ts); the ones it is not are hidden as kept-out
  // ones are, so no granted conversation's workspace walks into theirs. Unset: every visible conversation.
  granted?: (s: ReturnType<SessionStore['list']>[number]) => boolean,
): Promise<PlaceGuard> {
  const base = app.workspaces.protectedPlaces;
  const listings = app.sessions.list();
  const isShown = granted ?? ((s: (typeof listings)[number]) => s.keep_out_of_mcp !== true && sessionVisible(s.profile, profile));
  const keptNames = listings.filter((s) => (s.keep_out_of_mcp === true || (granted !== undefined && !granted(s))) && typeof s.workspace === 'string').map((s) => s.workspace as string);
  if (keptNames.length === 0) return base;
  const shownNames = listings.filter((s) => s.keep_out_of_mcp !== true && isShown(s) && typeof s.workspace === 'string').map((s) => s.workspace as string);
  const [kept, shown] = await Promise.all([folders(keptNames), folders(shownNames)]);
  const shownPaths = new Set(shown.map((f) => f.real));
  const shownIds = new Set(shown.map((f) => f.id));
  const hidden = kept.filter((f) => !shownPaths.has(f.real) && !shownIds.has(f.id));
  if (hidden.length === 0) return base;
  return new KeptOutGuard(base, new Set(hidden.map((f) => f.real)), new Set(hidden.map((f) => f.id)));
}
