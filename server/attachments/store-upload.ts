// Storing one staged file as a session's attachment: the upload's path (POST /api/upload) and every other way a
// file reaches a conversation without a request of its own (the Inbox folder watcher, server/inbox/), so the
// same limits, names, refusals, `.gz` handling and search indexing apply whatever brought the file.
import fsp from 'node:fs/promises';
import type { App } from '../app.js';
import { guessMime } from '../core/mime.js';
import { givenName, givenWithSuffix } from '../core/names.js';
import { log } from '../core/log.js';
import { maxExtractedBytes } from '../archive/index.js';
import type { Kind } from '../content/index.js';
import { storedAttachmentText } from '../search/attachment-text.js';
import { placeUnique } from '../store/files.js';
import { refuseOverCap } from '../store/caps.js';
import { settlePendingAttachmentText } from '../store/db/session-rows.js';
import type { Attachment, AttachmentAlongside } from '../store/sessions.js';
import { attachKind, refusal } from './attach-kind.js';
import { gunzipToStaging } from './gunzip-upload.js';
import { storedName } from './layout.js';
import { leaseSessionFolder } from './session-folders.js';

/** Kinds storedAttachmentText indexes nothing of at upload (their text comes when a turn makes it). */
const NO_TEXT_NOW: ReadonlySet<Kind['kind']> = new Set(['pdf', 'image', 'audio', 'binary']);

/** Whether the stored bytes, judged as `content`, have text to index now (an image, a PDF, audio, a binary: none). */
function hasTextNow(content: Kind | undefined): boolean {
  return !(content && NO_TEXT_NOW.has(content.kind));
}

/**
 * `alongside`, and the attachment's mark of text still to index (attachment_text_pending, set by the row's write)
 * cleared in the same transaction: for a kind with no text now, the background pass (search/backfill.ts) would
 * only walk to the file again, read its first bytes, find the same kind and clear the mark in a transaction of its
 * own; done here, that is one statement in the upload's (batched) write. The position is the one the attachment
 * has in the session as written: the change records it each time it is applied.
 */
function settledWith(sessionId: string, attachment: Attachment, alongside: AttachmentAlongside | undefined): AttachmentAlongside {
  let position = -1;
  return {
    change: (s) => {
      alongside?.change?.(s);
      position = s.attachments.lastIndexOf(attachment);
    },
    also: async (q) => {
      await alongside?.also?.(q);
      if (position >= 0) await settlePendingAttachmentText(q, sessionId, position);
    },
  };
}

/** A file already in the staging folder, as it arrived: where it is, the name it came with, its size. */
export interface StagedInput {
  stagedPath: string;
  filename: string;
  size: number;
  /** The file's first bytes as they were staged (at least CLASSIFY_BYTES, or the whole file when shorter): judged
   *  without opening the staged file again. Absent: read from the file. */
  head?: Buffer;
  /** The staged file was created with STORED_FILE_MODE (store/file-mode.ts): placing it sets no mode. */
  storedMode?: boolean;
}

/**
 * Store `file` (staged; the caller removes it afterwards) in session `sessionId` of `profile`, record it, index its
 * text and announce it (`attachment_added`: open windows show it, MCP clients hear the list changed). A 7z or
 * RAR archive, or a file for a conversation at its attachment cap (store/caps.ts), is refused (ValueError, 400)
 * before anything is stored; a plain `.gz` is stored as what it holds.
 */
export async function storeStagedAttachment(
  app: App,
  profile: string,
  sessionId: string,
  file: StagedInput,
  /** What the caller stores with the record, in its transaction (the Inbox: the arrival row, the file's hash). */
  alongside?: (attachment: Attachment) => AttachmentAlongside,
): Promise<Attachment> {
  let attachment: Attachment;
  // What the stored bytes were judged to be, by the same first bytes storedAttachmentText would read again.
  let content: Kind | undefined;
  let gunzipped: { file: string; size: number } | undefined;
  // A full conversation is refused before anything is written (the store checks again in its transaction).
  refuseOverCap('attachments', (await app.sessions.get(sessionId))?.attachments.length ?? 0);
  try {
    const kind = await attachKind(file.stagedPath, file.filename, file.head);
    if (kind.kind === 'refused') throw refusal(kind.reason);
    gunzipped = kind.kind === 'gzip' ? await gunzipToStaging(file.stagedPath, app.stagingDir, maxExtractedBytes(app.config.maxUploadBytes)) : undefined;
    // What a `.gz` holds is judged as a dropped file would be: a `notes.7z.gz` is still a 7z.
    const inner = gunzipped && kind.kind === 'gzip' ? await attachKind(gunzipped.file, kind.innerName) : undefined;
    if (inner?.kind === 'refused') throw refusal(inner.reason);
    const safeName = storedName(kind.kind === 'gzip' ? kind.innerName : file.filename);
    // An image by its bytes (content/kind.ts, on the staged copy no one else can change): `photo.png` holding
    // text is no image, a PNG named `scan` is one. The page shows a thumbnail by it; no reader trusts it.
    const stored = inner ?? kind;
    const isImage = stored.kind === 'file' && stored.content.kind === 'image';
    if (stored.kind === 'file') content = stored.content;
    const lease = await leaseSessionFolder(app.config.stateDir, sessionId);
    const { dir } = lease;
    try {
      const placed = await placeUnique(gunzipped?.file ?? file.stagedPath, dir, safeName, {
        exists: () => `Upload destination already exists: ${safeName}`,
        rejected: () => [403, 'Upload destination rejected'],
      }, { modeSet: !gunzipped && file.storedMode === true, createFirst: true });
      const type = guessMime(placed.name);
      attachment = { filename: placed.name, path: placed.path, size: gunzipped?.size ?? file.size, mime: type, is_image: isImage };
      // What the person called it, where that is not the stored name (issue 38, item 4): shown, told, exported.
      const given = givenName(kind.kind === 'gzip' ? kind.innerName : file.filename);
      const called = given === null ? placed.name : givenWithSuffix(given, safeName, placed.name);
      if (called !== placed.name) attachment.display_name = called;
      // The chip says "server.log (from server.log.gz)": the name the person dropped, as the upload's answer carries it.
      if (gunzipped) attachment.decompressed_from = givenName(file.filename) ?? storedName(file.filename);
      // A file the session does not record would be an orphan nobody can see: it goes if the record fails.
      const with_ = alongside?.(attachment);
      await app.sessions.addAttachment(sessionId, attachment, hasTextNow(content) ? with_ : settledWith(sessionId, attachment, with_)).catch(async (err: unknown) => {
        await dir.unlink(placed.name).catch((rmErr: unknown) => log.warn('could not remove an unrecorded attachment', rmErr));
        throw err;
      });
    } finally {
      await lease.release();
    }
  } finally {
    if (gunzipped) await fsp.rm(gunzipped.file, { force: true });
  }
  // A text file's text is what the agent will get of it: searchable from now on (an Office document's, once a
  // turn has converted it; search/attachment-text.ts). A failure here costs the search, never the upload.
  // A kind with no text to index now (search/attachment-text.ts answers '' for these by the same first bytes) is
  // not opened again: for a binary upload that second walk and read was a third of its work past the bytes.
  if (hasTextNow(content)) {
    const text = await storedAttachmentText(app.config.stateDir, sessionId, attachment.filename);
    if (text !== '') await app.sessions.indexAttachmentText(sessionId, attachment.path, text).catch((err: unknown) => log.warn('could not index an attachment\'s text', err));
  }
  app.events.publish({ name: 'attachment_added', profile, data: { session_id: sessionId, attachment } });
  return attachment;
}
