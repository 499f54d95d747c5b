// A stored file as the agent gets it, by what classify (../kind.ts) says its bytes are: the one dispatcher over
// Kind for an attachment. Each kind has its reader; anything else is only named.
import { classify, unknownKind } from '../kind.js';
import { SNIFF_BYTES } from '../file-kind.js';
import type { ChatAttachment } from '../../core/wire.js';
import { archiveRead } from './archive-file.js';
import { audioRead } from './audio.js';
import type { Budget } from './budget.js';
import { imageRead } from './image.js';
import { officeRead } from './office.js';
import { closeOpened, openUnder, readAt } from './open.js';
import { pdfRead } from './pdf.js';
import { count, unreadable } from './summary.js';
import { readTextFor } from './text.js';
import { textPart, type AttachmentRead, type InputOptions } from './types.js';
import { attachmentName, describe, toldWhere } from './words.js';

export { MAX_IMAGE_BYTES } from './image.js';

export async function fileRead(a: ChatAttachment & { filename?: string; mime?: string; size?: number; decompressed_from?: string }, budget: Budget, opts: InputOptions): Promise<AttachmentRead> {
  const name = attachmentName(a);
  const mime = typeof a.mime === 'string' ? a.mime : '';
  // The folder is held for an Office file's sidecar, read and written beside it (office-markdown.ts).
  const opened = await openUnder(opts.roots, a.path, true, opts.workspaceRoot);
  if (!opened) {
    return { parts: [textPart(describe(name, mime, a.size, toldWhere(a.path, opts), 'not readable from the attachment folder'), { file: name })], summary: unreadable('not readable from the attachment folder') };
  }
  try {
    // Classified by the name it is stored under, which the browser cannot choose apart from the upload.
    const kind = classify(opened.name, await readAt(opened.handle, Math.min(opened.size, SNIFF_BYTES)));
    switch (kind.kind) {
      case 'text': {
        const read = await readTextFor(opened, budget, name, typeof a.decompressed_from === 'string' ? a.decompressed_from : undefined);
        return { kind: 'text', parts: [textPart(read.text, { file: name })], summary: read.summary };
      }
      case 'pdf':
        return await pdfRead(opened, name, mime, a.path, budget, opts);
      case 'office':
        return await officeRead(opened, kind.format, name, mime, a.path, budget, opts);
      case 'image':
        return await imageRead(opened, name, mime, kind.mime, a.path, budget, opts);
      case 'audio':
        return await audioRead(opened.handle, opened.size, name, mime, a.path, budget, opts);
      case 'archive':
        return await archiveRead(opened, kind.format, name, mime, toldWhere(a.path, opts), budget);
      case 'binary':
        return { kind: 'binary', parts: [textPart(describe(name, mime, opened.size, toldWhere(a.path, opts)), { file: name })], summary: unreadable(`${count(opened.size)} bytes the agent cannot read: only its name is sent`) };
      default:
        return unknownKind(kind);
    }
  } finally {
    await closeOpened(opened);
  }
}
