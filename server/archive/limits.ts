// The extraction limits of spec-notes 8 and the client-facing texts of spec-notes 4.4, in one place so the zip and
// tar engines cannot drift apart on wording.
import { ValueError } from '../core/errors.js';

/** More members than this is treated as an archive bomb (spec-notes 8). */
export const MAX_ARCHIVE_MEMBERS = 10000;
/** Member data is written in pieces of at most this many bytes (spec-notes 8). */
export const EXTRACT_CHUNK_BYTES = 65536;

export function tooManyMembers(): ValueError {
  return new ValueError(`Archive has too many files (> ${MAX_ARCHIVE_MEMBERS}). Possible archive bomb.`);
}

export function tooLarge(maxBytes: number): ValueError {
  return new ValueError(`Extraction too large (max ${maxBytes} bytes). Possible zip bomb.`);
}

export type ArchiveFamily = 'zip' | 'tar';
/** A member name longer than this is shortened in the error text (a pax name can be megabytes long). */
export const MAX_QUOTED_NAME_CHARS = 1024;

/** `Zip-slip blocked: <name>` with the member's name as the archive spells it, absolute paths included. */
export function slipBlocked(family: ArchiveFamily, name: string): ValueError {
  const label = family === 'zip' ? 'Zip-slip' : 'Tar-slip';
  return new ValueError(`${label} blocked: ${quotedName(name)}`, true);
}

/** A member name fit for an error text: shortened, control characters shown as `?`. */
export function quotedName(name: string): string {
  return printable(name.length > MAX_QUOTED_NAME_CHARS ? `${name.slice(0, MAX_QUOTED_NAME_CHARS)}…` : name);
}

// Control characters (NUL above all) would corrupt log lines and confuse terminals; the rest of the name
// is kept so the user can recognise the offending member.
function printable(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\u0000-\u001f\u007f]/g, '?');
}
