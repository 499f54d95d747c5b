// Every attachment as the agent gets it (agent.md, "Attachments as model input"): one reader per kind, each
// giving the content parts and a summary of what they hold. The turn sends the parts; the chip and MCP show
// the summary (issue 25).
import type { ChatAttachment } from '../../core/wire.js';
import { extractedArchiveRead } from './archive.js';
import { archiveAttachmentRead } from './archive-file.js';
import type { Budget } from './budget.js';
import { fileRead } from './file.js';
import { pdfRead } from './pdf.js';
import type { AttachmentRead, InputOptions } from './types.js';

export async function readAttachment(a: ChatAttachment, budget: Budget, opts: InputOptions): Promise<AttachmentRead> {
  if ('extracted' in a && a.extracted) return extractedArchiveRead(a, budget, opts);
  return (await pdfRead(a, budget, opts)) ?? (await archiveAttachmentRead(a, budget, opts)) ?? fileRead(a, budget, opts);
}

export { Budget, truncationMarker } from './budget.js';
export { MAX_IMAGE_BYTES } from './file.js';
export { MAX_ARCHIVE_LISTED, MAX_ARCHIVE_MEMBER_BYTES } from './archive.js';
export type { AttachmentRead, InputOptions } from './types.js';
export type { ReadState, ReadSummary } from './summary.js';
