// MCP Roots (issue 39): a client that declares the `roots` capability says which folders it works in; its workspace
// reads are then limited to those folders, on top of its key's grants (the intersection: a root never widens what
// a key may read). Asked of the client when a workspace read first needs them, kept until the client says its
// roots changed (`notifications/roots/list_changed`). A client that declared roots but does not answer for them in
// time, or answers with none Satchel can use (only `file://` URIs name folders here), reads no workspace file:
// the safe side of a limit the client asked for.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { log } from '../core/log.js';

/** How long a client has to answer `roots/list`. */
export const ROOTS_REQUEST_TIMEOUT_MS = 5_000;
/** Roots taken of one answer at most: a client's handful of project folders, not a list to scan per read. */
export const MAX_ROOTS = 64;
/** A root's URI longer than this is skipped. */
export const MAX_ROOT_URI_CHARS = 4096;

/** The folders a root list names, resolved (symlinks too, as the workspace's own root is), at most MAX_ROOTS. */
export async function rootFolders(roots: readonly { uri?: unknown }[]): Promise<string[]> {
  const found: string[] = [];
  for (const root of roots.slice(0, MAX_ROOTS)) {
    if (typeof root.uri !== 'string' || root.uri.length > MAX_ROOT_URI_CHARS || !root.uri.startsWith('file://')) continue;
    let dir: string;
    try {
      dir = fileURLToPath(root.uri);
    } catch {
      continue;
    }
    if (!path.isAbsolute(dir) || dir.includes('\0')) continue;
    found.push(await fs.realpath(dir).catch(() => path.resolve(dir)));
  }
  return found;
}

/** The client's roots as folders, or undefined for a client that declared none (no limit). */
export type Roots = () => Promise<string[] | undefined>;

export function clientRoots(server: McpServer): Roots {
  let asked: Promise<string[]> | undefined;
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    asked = undefined;
  });
  return () => {
    if (!server.server.getClientCapabilities()?.roots) return Promise.resolve(undefined);
    asked ??= server.server
      .listRoots(undefined, { timeout: ROOTS_REQUEST_TIMEOUT_MS })
      .then((answer) => rootFolders(answer.roots))
      .catch((err: unknown) => {
        // Not kept: the next read asks again.
        asked = undefined;
        log.warn('mcp: the client declared roots but did not list them; its workspace reads are refused', err);
        return [];
      });
    return asked;
  };
}
