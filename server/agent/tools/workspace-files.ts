// The conversation's workspace as Satchel's tools see it: a bounded listing (hidden entries and protected places
// left out, as MCP's listing leaves them) and one file resolved by a name the agent wrote. Every step goes
// through store/anchored-browse.ts: `..`, an absolute path, a symlink out, a hidden file and a protected place
// are refused there, never followed.
import path from 'node:path';
import { HttpError } from '../../core/errors.js';
import { listWorkspaceDir, openWorkspaceFile, openWorkspacePath } from '../../store/anchored-browse.js';
import type { PlaceGuard } from '../../store/protected.js';
import { MAX_LISTED_WORKSPACE_FILES, MAX_LISTING_DEPTH } from './limits.js';

export interface WorkspaceFile {
  /** Below the workspace, `/`-separated: the name the agent is told and may read. */
  rel: string;
  size: number;
}

export interface WorkspaceListed {
  files: WorkspaceFile[];
  /** Files or folders left out for the bounds (MAX_LISTED_WORKSPACE_FILES, MAX_LISTING_DEPTH). */
  more: boolean;
}

/** The workspace's files, breadth first (the top level first), at most MAX_LISTED_WORKSPACE_FILES. */
export async function listWorkspaceFiles(workspace: string, guard: PlaceGuard | undefined): Promise<WorkspaceListed> {
  const files: WorkspaceFile[] = [];
  let more = false;
  let level: string[] = [''];
  for (let depth = 0; level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      const at = await openWorkspacePath(workspace, dir, false, guard);
      let listing;
      try {
        listing = await listWorkspaceDir(at, MAX_LISTED_WORKSPACE_FILES);
      } catch {
        // A folder gone or refused meanwhile lists nothing.
        continue;
      } finally {
        await at.root.close();
      }
      more ||= listing.truncated;
      for (const e of listing.entries) {
        const rel = dir ? `${dir}/${e.name}` : e.name;
        if (e.type === 'dir') {
          if (depth + 1 < MAX_LISTING_DEPTH) next.push(rel);
          else more = true;
        } else if (files.length < MAX_LISTED_WORKSPACE_FILES) files.push({ rel, size: e.size });
        else more = true;
      }
      if (files.length >= MAX_LISTED_WORKSPACE_FILES && next.length > 0) return { files, more: true };
    }
    level = next;
  }
  return { files, more };
}

/** Why a name the agent wrote is no file of the workspace, in one sentence. */
export class Refused extends Error {}

export const NOT_RELATIVE = 'Refused: name a file as list_files names it; absolute paths, "~" and ".." are not allowed.';

/** Whether the agent's name reaches out of the workspace by its letters alone (checked before the disk is). */
export function escapesByName(name: string): boolean {
  if (name.startsWith('~') || path.isAbsolute(name) || path.win32.isAbsolute(name) || /^[a-z]:/i.test(name)) return true;
  return name.split(/[\\/]+/).some((s) => s === '..');
}

/**
 * The workspace file `rel` names, checked by the anchored walk (hidden, protected, symlinked out, missing: all
 * refused), as the path below the workspace it really is. Throws Refused with the sentence for the agent.
 */
export async function resolveWorkspaceFile(workspace: string, rel: string, guard: PlaceGuard | undefined, shown: string): Promise<string> {
  if (escapesByName(rel)) throw new Refused(NOT_RELATIVE);
  const missing = `No file named "${shown}" among this conversation's documents or in its workspace; list_files names them.`;
  let at;
  try {
    at = await openWorkspacePath(workspace, rel, false, guard);
  } catch (err) {
    throw new Refused(err instanceof HttpError && err.status === 403 ? NOT_RELATIVE : missing);
  }
  try {
    const file = await openWorkspaceFile(at);
    await file.close();
    return file.path;
  } catch (err) {
    if (err instanceof HttpError && err.status === 403) throw new Refused(`Refused: "${shown}" leads out of the workspace.`);
    if (err instanceof HttpError && err.status === 400) throw new Refused(`"${shown}" is a folder, not a file; list_files names its files.`);
    throw new Refused(missing);
  } finally {
    await at.root.close();
  }
}
