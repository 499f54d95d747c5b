// POST /api/upload (spec-notes 4.3) and POST /api/upload/extract (spec-notes 4.4): a file or an archive into a session's
// attachment directory.
import type { HandlerInput } from '../app.js';
import { placeUnique } from '../store/files.js';
import { guessMime } from '../core/mime.js';
import { openSessionFolder, storedName } from '../attachments/layout.js';
import { parseMultipart, type Multipart, type StagedFile } from '../http/multipart.js';
import { sendJson } from '../http/respond.js';
import { publicAttachment, publicExtractResult } from '../projections/index.js';
import type { Attachment } from '../store/sessions.js';
import { log } from '../core/log.js';
import { extractIntoSession, type ExtractBody } from '../attachments/extract.js';
import { visibleSession } from '../store/profiles.js';
import { storedAttachmentText } from '../search/attachment-text.js';
import type * as wire from '../core/wire.js';
import { attachKind, refusal } from '../attachments/attach-kind.js';
import { gunzipToStaging } from '../attachments/gunzip-upload.js';
import { maxExtractedBytes } from '../archive/index.js';
import fsp from 'node:fs/promises';

/** spec-notes 4.3 steps 2 and 3 (shared with 4.4): the file part, its name, and a session the caller may see. */
async function fileAndSession(input: HandlerInput, form: Multipart): Promise<{ file: StagedFile; sessionId: string }> {
  const file = form.requireFile('file');
  const session = await visibleSession(input.app.sessions, form.fields.get('session_id'), input.profile);
  return { file, sessionId: session.session_id };
}

export async function uploadAttachment(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const form = await parseMultipart(ctx, { stagingDir: app.stagingDir, capBytes: app.config.maxUploadBytes });
  let attachment: Attachment;
  let gunzipped: { file: string; size: number } | undefined;
  try {
    const { file, sessionId } = await fileAndSession(input, form);
    // A 7z or RAR archive is refused before anything is stored; a plain `.gz` is stored as what it holds.
    const kind = await attachKind(file.stagedPath, file.filename);
    if (kind.kind === 'refused') throw refusal(kind.reason);
    gunzipped = kind.kind === 'gzip' ? await gunzipToStaging(file.stagedPath, app.stagingDir, maxExtractedBytes(app.config.maxUploadBytes)) : undefined;
    // What a `.gz` holds is judged as a dropped file would be: a `notes.7z.gz` is still a 7z.
    const inner = gunzipped && kind.kind === 'gzip' ? await attachKind(gunzipped.file, kind.innerName) : undefined;
    if (inner?.kind === 'refused') throw refusal(inner.reason);
    const safeName = storedName(kind.kind === 'gzip' ? kind.innerName : file.filename);
    const dir = await openSessionFolder(app.config.stateDir, sessionId);
    try {
      const placed = await placeUnique(gunzipped?.file ?? file.stagedPath, dir, safeName, {
        exists: () => `Upload destination already exists: ${safeName}`,
        rejected: () => [403, 'Upload destination rejected'],
      });
      const type = guessMime(placed.name);
      attachment = { filename: placed.name, path: placed.path, size: gunzipped?.size ?? file.size, mime: type, is_image: type.startsWith('image/') };
      // The chip says "server.log (from server.log.gz)": the name the person dropped, as the upload's answer carries it.
      if (gunzipped) attachment.decompressed_from = storedName(file.filename);
      // A file the session does not record would be an orphan nobody can see: it goes if the record fails.
      await app.sessions.addAttachment(sessionId, attachment).catch(async (err: unknown) => {
        await dir.unlink(placed.name).catch((rmErr: unknown) => log.warn('could not remove an unrecorded attachment', rmErr));
        throw err;
      });
    } finally {
      await dir.close();
    }
    // A text file's text is what the agent will get of it: searchable from now on (an Office document's, once a
    // turn has converted it; search/attachment-text.ts). A failure here costs the search, never the upload.
    if (!attachment.is_image) {
      const text = await storedAttachmentText(app.config.stateDir, sessionId, attachment.filename);
      if (text !== '') await app.sessions.indexAttachmentText(sessionId, attachment.path, text).catch((err: unknown) => log.warn('could not index an attachment\'s text', err));
    }
    app.events.publish({ name: 'attachment_added', profile, data: { session_id: sessionId, attachment } });
  } finally {
    // Before answering: once the client has its answer, nothing of the upload may be left in staging.
    await form.cleanup();
    if (gunzipped) await fsp.rm(gunzipped.file, { force: true });
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
      body = await extractIntoSession(input, base, file.stagedPath, safeName, sessionId);
    } finally {
      await base.close();
    }
  } finally {
    await form.cleanup();
  }
  await sendJson(ctx, 200, publicExtractResult(body) satisfies wire.ExtractResult);
}
