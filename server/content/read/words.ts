// The bracketed lines and headers an attachment is introduced to the agent with.
import path from 'node:path';
import type { ChatAttachment } from '../../core/wire.js';

/** An attachment only named: what it is, how big, where it lies on this machine, and why no more was sent. */
export function describe(name: string, mime: string, size: number | undefined, where: string, note = ''): string {
  const sizeText = size === undefined ? 'size unknown' : `${size} bytes`;
  return `[Attached file "${name}" (${mime || 'unknown type'}, ${sizeText}), stored at ${where}${note ? `; ${note}` : ''}]`;
}

export function header(name: string, what = 'file', detail?: string): string {
  return `Attached ${what} "${name}"${detail ? ` (${detail})` : ''}:\n`;
}

/** The name the turn gives an attachment: its stored name, as its chip shows it. */
export function attachmentName(a: ChatAttachment): string {
  return ('filename' in a && a.filename) || ('name' in a && (a as { name?: string }).name) || path.basename(a.path);
}
