// Read-only views of a session's workspace for the UI: a directory listing, a text preview, a preview by kind
// (workspace/preview.ts) and a file's raw bytes for images and downloads (workspace/raw.ts). The walking and
// reading rules live in store/anchored-browse.ts, shared with the MCP tools and the attachment routes.
import type { HandlerInput } from '../app.js';
import { HttpError } from '../core/errors.js';
import { redact } from '../redact/index.js';
import { sendJson, sendText } from '../http/respond.js';
import { publicWorkspaceListing } from '../projections/index.js';
import { visibleSession } from '../store/profiles.js';
import { listWorkspaceDir, openWorkspaceFile, openWorkspacePath, readWorkspaceBytes, type OpenedFile, type WorkspacePath } from '../store/anchored-browse.js';
import { decodeText } from '../content/index.js';
import { describeFile, previewJson } from '../workspace/preview.js';
import { DOWNLOAD_PARAM, sendRawFile } from '../workspace/raw.js';
import type { WorkspaceListing } from '../core/wire.js';

export { MAX_LIST_ENTRIES, MAX_PREVIEW_BYTES } from '../store/anchored-browse.js';
import { MAX_PREVIEW_BYTES } from '../store/anchored-browse.js';
/** The query flag that shows hidden entries (`hidden=1`). Credential stores stay out regardless. */
export const SHOW_HIDDEN_PARAM = 'hidden';
export const NOT_TEXT = 'Not a text file';

async function openRequest(input: HandlerInput): Promise<WorkspacePath & { workspace: string }> {
  const { ctx, app } = input;
  const session = await visibleSession(app.sessions, ctx.url.searchParams.get('session_id'), input.profile);
  const workspace = await app.workspaces.validate(session.workspace);
  const at = await openWorkspacePath(workspace, ctx.url.searchParams.get('path') ?? '', ctx.url.searchParams.get(SHOW_HIDDEN_PARAM) === '1', app.workspaces.protectedPlaces);
  return { ...at, workspace };
}

/** Run `use` on the request's workspace path; the workspace is released whatever happens. */
async function withRequest(input: HandlerInput, use: (at: WorkspacePath) => Promise<void>): Promise<void> {
  const at = await openRequest(input);
  try {
    await use(at);
  } finally {
    await at.root.close();
  }
}

/** Run `use` on the regular file the request names, opened through descriptors; both are released after. */
function withRequestFile(input: HandlerInput, use: (file: OpenedFile, at: WorkspacePath) => Promise<void>): Promise<void> {
  return withRequest(input, async (at) => {
    const file = await openWorkspaceFile(at);
    try {
      await use(file, at);
    } finally {
      await file.close();
    }
  });
}

export async function listWorkspace(input: HandlerInput): Promise<void> {
  await withRequest(input, async (at) => {
    const listing = await listWorkspaceDir(at);
    await sendJson(input.ctx, 200, publicWorkspaceListing(listing) satisfies WorkspaceListing);
  });
}

/** GET /api/workspace/file: the text, decoded (UTF-8, or UTF-8/UTF-16 with a byte order mark) and sent as UTF-8. */
export async function readWorkspaceFile(input: HandlerInput): Promise<void> {
  await withRequest(input, async (at) => {
    const { bytes } = await readWorkspaceBytes(at, MAX_PREVIEW_BYTES);
    const decoded = decodeText(bytes);
    // Bytes that are not text are not answered as if they were.
    if (!decoded) throw new HttpError(415, NOT_TEXT);
    // Previews are API responses too: secrets in a workspace file are masked like everywhere else.
    sendText(input.ctx, 200, redact(decoded.text));
  });
}

/** GET /api/workspace/preview: what the preview shows, by the file's kind. */
export async function previewWorkspaceFile(input: HandlerInput): Promise<void> {
  await withRequestFile(input, async (file, at) => {
    await sendJson(input.ctx, 200, previewJson(await describeFile(file, at.root.path, { stateDir: input.app.config.stateDir, signal: input.app.stopping })));
  });
}

/** GET /api/workspace/raw: an image's or a binary file's bytes; never a text file's (those are redacted). */
export async function rawWorkspaceFile(input: HandlerInput): Promise<void> {
  await withRequestFile(input, (file) => sendRawFile(input.ctx, file, input.ctx.url.searchParams.get(DOWNLOAD_PARAM) === '1'));
}
