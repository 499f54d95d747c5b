// Every attachment as the agent gets it (agent.md, "Attachments as model input"): an extracted archive's folder
// as its listing, a file by its kind's reader (file.ts). The turn sends the parts (mapped to its dialect in
// agent/content-parts.ts); the chip and MCP show the summary (issue 25).
import type { ChatAttachment } from '../../core/wire.js';
import { extractedArchiveRead } from './archive.js';
import type { Budget } from './budget.js';
import { fileRead } from './file.js';
import type { AttachmentRead, InputOptions } from './types.js';

export async function readAttachment(a: ChatAttachment, budget: Budget, opts: InputOptions): Promise<AttachmentRead> {
  if ('extracted' in a && a.extracted) return extractedArchiveRead(a, budget, opts);
  return fileRead(a, budget, opts);
}
