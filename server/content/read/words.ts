// The bracketed lines and headers an attachment is introduced to the agent with. None holds a path of this
// machine: a file is named by its Satchel URI, or by its name alone.
import path from 'node:path';
import type { ChatAttachment } from '../../core/wire.js';
import type { InputOptions } from './types.js';

/**
 * An attachment only named: what it is, how big, the Satchel URI it is stored as (agent.md's "its stored path",
 * read as that URI: docs/spec-notes.md), when known, and why no more was sent.
 */
export function describe(name: string, mime: string, size: number | undefined, uri: string | undefined, note = ''): string {
  const sizeText = size === undefined ? 'size unknown' : `${size} bytes`;
  return `[Attached file "${name}" (${mime || 'unknown type'}, ${sizeText})${uri ? `, stored as ${uri}` : ''}${note ? `; ${note}` : ''}]`;
}

/** What the agent is told of where `file` lies: its Satchel URI when the caller gives one, else nothing. */
export function toldWhere(file: string, opts: Pick<InputOptions, 'agentUri'>): string | undefined {
  return opts.agentUri?.(file);
}

export function header(name: string, what = 'file', detail?: string): string {
  return `Attached ${what} "${name}"${detail ? ` (${detail})` : ''}:\n`;
}

/** The name the turn gives an attachment, as its chip shows it: the person's name for it, else its stored name. */
export function attachmentName(a: ChatAttachment): string {
  return ('display_name' in a && typeof a.display_name === 'string' && a.display_name) || ('filename' in a && a.filename) || ('name' in a && (a as { name?: string }).name) || path.basename(a.path);
}
