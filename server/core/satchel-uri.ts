// The names Satchel gives a conversation's files outside this machine: `satchel://session/<id>/attachment/<name>`
// and `…/workspace/<rel>`. MCP's resources and the chat agent's tools take them, and a turn names a file by one
// where it would otherwise name a path: a path hands the person's user name and folder layout to a possibly
// remote server, and no model can open it. Here in core/ because MCP (a feature), the readers (content/) and the
// turn's context (context/) all name files so.
import path from 'node:path';
import { isInside } from './paths.js';

export function sessionUri(id: string): string {
  return `satchel://session/${id}`;
}

/** An attachment, or a file inside an extracted archive as `folder/inner/path`, percent-encoded whole. */
export function attachmentUri(id: string, name: string): string {
  return `${sessionUri(id)}/attachment/${encodeURIComponent(name)}`;
}

/** A file of the session's workspace, `rel` percent-encoded whole (`docs%2Fplan.md`), like an attachment name. */
export function workspaceUri(id: string, rel: string): string {
  return `${sessionUri(id)}/workspace/${encodeURIComponent(rel)}`;
}

/** `file` below `root` as `/`-separated segments; undefined when it is not strictly below it. */
function below(root: string, file: string): string | undefined {
  const r = path.resolve(root);
  const f = path.resolve(file);
  if (f === r || !isInside(r, f)) return undefined;
  return path.relative(r, f).split(path.sep).join('/');
}

/**
 * The URI of a file a turn reads, from its path: below the session's attachment folder an attachment URI, below
 * its workspace a workspace URI; undefined elsewhere (the file is then named only, never by its path).
 */
export function uriOfPath(sessionId: string, attachmentDir: string, workspace?: string): (file: string) => string | undefined {
  return (file) => {
    const attached = below(attachmentDir, file);
    if (attached !== undefined) return attachmentUri(sessionId, attached);
    const inWorkspace = workspace === undefined ? undefined : below(workspace, file);
    return inWorkspace === undefined ? undefined : workspaceUri(sessionId, inWorkspace);
  };
}
