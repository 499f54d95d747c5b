// An Office document as the agent gets it: its Markdown (the sidecar beside it, else converted now and the
// sidecar written: office-markdown.ts), within the budget.
import type { OfficeFormat } from '../../office/index.js';
import type { Budget } from './budget.js';
import { officeMarkdownIn } from './office-markdown.js';
import type { Opened } from './open.js';
import { EMPTY_DOCUMENT, textSummary, unreadable } from './summary.js';
import { textPart, type AttachmentRead, type InputOptions } from './types.js';
import { describe, toldWhere, header } from './words.js';

export async function officeRead(opened: Opened, format: OfficeFormat, name: string, mime: string, where: string, budget: Budget, opts: InputOptions): Promise<AttachmentRead> {
  try {
    if (!opened.dir) throw new Error('the folder of the Office file is not held');
    const markdown = await officeMarkdownIn(opened.dir, opened.name, opened.handle, format, opts.readOnly !== true && opened.inWorkspace !== true);
    opts.onAttachmentText?.(where, markdown);
    const sent = Math.min(markdown.length, budget.left);
    return { kind: 'office', parts: [textPart(header(name, 'document') + budget.take(markdown, name), { file: name })], summary: textSummary(sent, markdown.length, undefined, EMPTY_DOCUMENT) };
  } catch {
    return {
      kind: 'office',
      parts: [textPart(describe(name, mime, opened.size, toldWhere(where, opts), 'its text could not be extracted'), { file: name })],
      summary: unreadable('its text could not be extracted: the file may be damaged or encrypted'),
    };
  }
}
