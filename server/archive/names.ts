// Member-name policy shared by the zip and tar engines: the one place that decides whether a name stays
// inside the destination. Both `/` and `\` count as separators on every OS, so an archive is judged the
// same way on the Linux box that tests it and on the Windows desktop that extracts it.
import path from 'node:path';
import { portableName } from '../core/names.js';
import { slipBlocked, type ArchiveFamily } from './limits.js';

// Member segments are not shortened here: MemberWriter shortens one longer than the file system allows
// (fit-names.ts), after every name has passed this check.
const NO_SEGMENT_LIMIT = Number.POSITIVE_INFINITY;

const DRIVE_PREFIX = /^[A-Za-z]:/;

/**
 * The member's path as safe segments relative to the destination, or [] for a name that denotes the
 * destination itself (`./`). Throws the family's slip ValueError for NUL bytes, absolute or drive paths,
 * and anything whose normalized form climbs out of the destination. Each segment is then made portable
 * (names.ts portableName): control characters become `_`, Windows device names get a `_` prefix and
 * trailing dots and spaces become `_`, so an archive extracts to the same names on every platform.
 */
export function memberSegments(family: ArchiveFamily, name: string, platform = process.platform): string[] {
  if (name.includes('\0')) throw slipBlocked(family, name);
  const slashed = name.replace(/\\/g, '/');
  if (slashed.startsWith('/') || DRIVE_PREFIX.test(slashed)) throw slipBlocked(family, name);
  const normalized = path.posix.normalize(slashed);
  if (normalized === '..' || normalized.startsWith('../')) throw slipBlocked(family, name);
  const segments = normalized.split('/').filter((s) => s !== '' && s !== '.');
  // On NTFS `a:b` names an alternate data stream of `a`, a write the destination check cannot see.
  if (platform === 'win32' && segments.some((s) => s.includes(':'))) throw slipBlocked(family, name);
  return segments.map((s) => portableName(s, NO_SEGMENT_LIMIT));
}
