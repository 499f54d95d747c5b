// A session's stored attachments, opened from their chips: GET /api/attachment/preview (the preview by kind)
// and GET /api/attachment/raw (an image's or binary file's bytes: thumbnails, downloads). `name` is relative to
// the session's attachment folder (an uploaded file, or a file inside an extracted archive's folder), walked
// with the workspace rules: no escape, no symlink out, no special file, hidden names and credential stores never.
import type { HandlerInput } from '../app.js';
import { ATTACHMENT_NOT_FOUND, requestedAttachmentPath } from '../attachments/open.js';
import { HttpError } from '../core/errors.js';
import { sendJson } from '../http/respond.js';
import { openWorkspaceFile, type OpenedFile } from '../store/anchored-browse.js';
import { describeFile, previewJson } from '../workspace/preview.js';
import { DOWNLOAD_PARAM, sendRawFile } from '../workspace/raw.js';

async function withAttachment(input: HandlerInput, use: (file: OpenedFile, root: string) => Promise<void>): Promise<void> {
  const at = await requestedAttachmentPath({ sessions: input.app.sessions, stateDir: input.app.config.stateDir, profile: input.profile, params: input.ctx.url.searchParams });
  try {
    const file = await openWorkspaceFile(at).catch((err: unknown) => {
      throw err instanceof HttpError && err.status === 404 ? new HttpError(404, ATTACHMENT_NOT_FOUND) : err;
    });
    try {
      await use(file, at.root.path);
    } finally {
      await file.close();
    }
  } finally {
    await at.root.close();
  }
}

export function previewAttachment(input: HandlerInput): Promise<void> {
  return withAttachment(input, async (file, root) => sendJson(input.ctx, 200, previewJson(await describeFile(file, root, { stateDir: input.app.config.stateDir, signal: input.app.stopping }))));
}

export function rawAttachment(input: HandlerInput): Promise<void> {
  return withAttachment(input, (file) => sendRawFile(input.ctx, file, input.ctx.url.searchParams.get(DOWNLOAD_PARAM) === '1'));
}
