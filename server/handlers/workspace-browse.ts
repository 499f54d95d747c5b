// Read-only views of a session's workspace for the UI: a directory listing and a bounded text preview. The
// walking and reading rules live in workspace/browse.ts, shared with the MCP tools.
import type { HandlerInput } from '../http/app.js';
import { redact } from '../redact.js';
import { sendJson, sendText } from '../http/respond.js';
import { visibleSession } from '../store/profiles.js';
import { listWorkspaceDir, openWorkspacePath, readWorkspaceBytes, type WorkspacePath } from '../workspace/browse.js';
import type { WorkspaceListing } from '../wire.js';

export { MAX_LIST_ENTRIES, MAX_PREVIEW_BYTES } from '../workspace/browse.js';
import { MAX_PREVIEW_BYTES } from '../workspace/browse.js';
/** The query flag that shows hidden entries (`hidden=1`). Credential stores stay out regardless. */
export const SHOW_HIDDEN_PARAM = 'hidden';

async function openRequest(input: HandlerInput): Promise<WorkspacePath> {
  const { ctx, app } = input;
  const session = visibleSession(app.sessions, ctx.url.searchParams.get('session_id'), input.profile);
  const workspace = await app.workspaces.validate(session.workspace);
  return openWorkspacePath(workspace, ctx.url.searchParams.get('path') ?? '', ctx.url.searchParams.get(SHOW_HIDDEN_PARAM) === '1');
}

export async function listWorkspace(input: HandlerInput): Promise<void> {
  const at = await openRequest(input);
  try {
    const listing = await listWorkspaceDir(at);
    await sendJson(input.ctx, 200, listing satisfies WorkspaceListing);
  } finally {
    await at.root.close();
  }
}

export async function readWorkspaceFile(input: HandlerInput): Promise<void> {
  const at = await openRequest(input);
  try {
    const { bytes } = await readWorkspaceBytes(at, MAX_PREVIEW_BYTES);
    // Previews are API responses too: secrets in a workspace file are masked like everywhere else.
    sendText(input.ctx, 200, redact(bytes.toString('utf8')));
  } finally {
    await at.root.close();
  }
}
