// POST /api/upload (spec-notes 4.3) and POST /api/upload/extract (spec-notes 4.4): a file or an archive into a session's
// attachment directory.
import type { HandlerInput } from '../app.js';
import { openSessionFolder, storedName } from '../attachments/layout.js';
import { storeStagedAttachment } from '../attachments/store-upload.js';
import { parseMultipart, type Multipart, type StagedFile } from '../http/multipart.js';
import { CLASSIFY_BYTES } from '../content/index.js';
import { STORED_FILE_MODE } from '../store/file-mode.js';
import { sendJson } from '../http/respond.js';
import { publicAttachment, publicExtractResult } from '../projections/index.js';
import type { Attachment } from '../store/sessions.js';
import { extractIntoSession, type ExtractBody } from '../attachments/extract.js';
import { visibleSession } from '../store/profiles.js';
import type * as wire from '../core/wire.js';

/** spec-notes 4.3 steps 2 and 3 (shared with 4.4): the file part, its name, and a session the caller may see. */
async function fileAndSession(input: HandlerInput, form: Multipart): Promise<{ file: StagedFile; sessionId: string }> {
  const file = form.requireFile('file');
  const session = await visibleSession(input.app.sessions, form.fields.get('session_id'), input.profile);
  return { file, sessionId: session.session_id };
}

export async function uploadAttachment(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  // Staged as it will be stored (its mode, no chmod later) and with its first bytes kept (its kind is judged by
  // them without opening it again): issue 37, finding 5.
  const form = await parseMultipart(ctx, { stagingDir: app.stagingDir, capBytes: app.config.maxUploadBytes, headBytes: CLASSIFY_BYTES, fileMode: STORED_FILE_MODE });
  let attachment: Attachment;
  try {
    const { file, sessionId } = await fileAndSession(input, form);
    const { stagedPath, filename, size, head } = file;
    attachment = await storeStagedAttachment(app, profile, sessionId, { stagedPath, filename, size, head, storedMode: file.mode === STORED_FILE_MODE });
  } finally {
    // Before answering: once the client has its answer, nothing of the upload may be left in staging.
    await form.cleanup();
  }
  // A hot path (32 uploads at once into one session): the compact form the specification allows there.
  await sendJson(ctx, 200, publicAttachment(attachment) satisfies wire.Attachment, { compact: true });
}

export async function uploadAndExtract(input: HandlerInput): Promise<void> {
  const { ctx, app } = input;
  const form = await parseMultipart(ctx, { stagingDir: app.stagingDir, capBytes: app.config.maxUploadBytes });
  let body: ExtractBody;
  try {
    const { file, sessionId } = await fileAndSession(input, form);
    const safeName = storedName(file.filename);
    const base = await openSessionFolder(app.config.stateDir, sessionId);
    try {
      body = await extractIntoSession({ maxUploadBytes: input.app.config.maxUploadBytes, events: input.app.events, profile: input.profile, signal: input.ctx.signal }, base, file.stagedPath, safeName, sessionId);
    } finally {
      await base.close();
    }
  } finally {
    await form.cleanup();
  }
  await sendJson(ctx, 200, publicExtractResult(body) satisfies wire.ExtractResult);
}
