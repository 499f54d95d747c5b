// An archive attached but not extracted (issue 25, "an archive is readable whether or not it was extracted"): the
// agent gets its member list and the text of its small text members, read from the archive in memory
// (archive/list.ts), in the same words as an extracted one (archive.ts). Nothing is written to disk. MCP's
// read_attachment answers with the same function (mcp/data.ts).
import type { FileHandle } from 'node:fs/promises';
import type { ArchiveKind } from '../../archive/index.js';
import type { ArchiveListError, ListedMember } from '../../archive/list.js';
import { MAX_ARCHIVE_MEMBERS } from '../../archive/limits.js';
import { looksLikeText, SNIFF_BYTES } from '../file-kind.js';
import { REFUSED_ARCHIVE, type RefusedArchive } from '../kind.js';
import { archiveListingRead, MAX_ARCHIVE_LISTED, MAX_ARCHIVE_MEMBER_BYTES } from './archive.js';
import type { Budget } from './budget.js';
import { count, plural, unreadable } from './summary.js';
import { bytesAsText } from './text.js';
import type { Opened } from './open.js';
import { textPart, type AttachmentRead } from './types.js';
import { describe } from './words.js';

/**
 * Member bytes held in memory at once while listing, whatever the budget: the kept members are decoded only
 * after the list is read (at most MAX_ARCHIVE_LISTED members of MAX_ARCHIVE_MEMBER_BYTES could be 12.5 MiB).
 */
export const MAX_HELD_MEMBER_BYTES = 4 * 1024 * 1024;

/**
 * The archive `opened` (classified so by ../kind.ts, of `format`) as the agent gets it; a 7z or RAR one only
 * named, with why (the upload refuses them, but one may reach a folder some other way).
 */
export async function archiveRead(opened: Opened, format: ArchiveKind | RefusedArchive, name: string, mime: string, where: string | undefined, budget: Budget): Promise<AttachmentRead> {
  if (format === '7z' || format === 'rar') {
    const why = REFUSED_ARCHIVE[format];
    return { kind: 'archive', parts: [textPart(describe(name, mime, opened.size, where, `an archive the agent cannot read (${why})`), { file: name })], summary: unreadable(why) };
  }
  return archiveFileRead(opened, format, name, mime, where, budget);
}

/** What the person can do about an archive the agent cannot read, by why. */
const WHAT_TO_DO: Record<ArchiveListError['why'], (err: ArchiveListError) => string> = {
  encrypted: () => 'encrypted: extract it yourself and drop the folder',
  damaged: (err) => `damaged: ${err.message}; check that it opens on your computer, or extract it there and drop the folder`,
  'too-many': () => `more than ${count(MAX_ARCHIVE_MEMBERS)} entries: extract the part you need and drop that folder`,
};

/**
 * The archive `handle` holds (`size` bytes, of `kind`) as the agent gets it: listed, its small text members
 * inlined while `budget` lasts. `where` is what the agent is told the file is stored as (its Satchel URI, never a
 * path), named when the archive cannot be read.
 */
export async function archiveFileRead(
  file: { handle: FileHandle; size: number },
  kind: ArchiveKind,
  name: string,
  mime: string,
  where: string | undefined,
  budget: Budget,
): Promise<AttachmentRead> {
  let held = 0;
  // Bytes are held for members that can be inlined: small, among the first listed, while the budget lasts.
  let regular = 0;
  const keep = (m: { size: number }): boolean => {
    regular += 1;
    if (regular > MAX_ARCHIVE_LISTED || m.size > MAX_ARCHIVE_MEMBER_BYTES || held + m.size > MAX_HELD_MEMBER_BYTES || budget.left <= 0) return false;
    held += m.size;
    return true;
  };
  // The zip and tar engines load with the first archive listed or extracted, not with the server (engine-load.test.ts).
  const { ArchiveListError, listArchive, MAX_LISTED_TAR_BYTES } = await import('../../archive/list.js');
  let members: ListedMember[];
  let complete: boolean;
  try {
    ({ members, complete } = await listArchive(file.handle, file.size, kind, keep));
  } catch (err) {
    if (!(err instanceof ArchiveListError)) throw err;
    const why = WHAT_TO_DO[err.why](err);
    return { kind: 'archive', parts: [textPart(describe(name, mime, file.size, where, `an archive the agent cannot read (${why})`), { file: name })], summary: unreadable(why) };
  }
  const total = members.filter((m) => !m.skipped).length;
  const skipped = members.length - total;
  const listed = firstListed(members);
  const byPath = new Map(listed.map((m) => [m, m.data]));
  return archiveListingRead(
    {
      name,
      heading: `Archive "${name}" (${plural(total, 'file')}${skipped ? `, ${skipped} skipped` : ''}, not extracted)`,
      files: listed,
      total,
      ...(complete ? {} : { incomplete: `and more not listed (the list stops after ${MAX_LISTED_TAR_BYTES / (1024 * 1024)} MiB of the archive)` }),
      async inline(f, memberName) {
        const data = byPath.get(f as ListedMember);
        if (!data || !looksLikeText(data.subarray(0, SNIFF_BYTES))) return undefined;
        return bytesAsText(data, budget, memberName);
      },
    },
    budget,
  );
}

/** The first MAX_ARCHIVE_LISTED files, with the skipped members among them (they say what extraction would leave out). */
function firstListed(members: readonly ListedMember[]): ListedMember[] {
  const out: ListedMember[] = [];
  let files = 0;
  for (const m of members) {
    if (!m.skipped && files >= MAX_ARCHIVE_LISTED) continue;
    if (!m.skipped) files += 1;
    else if (out.length >= 2 * MAX_ARCHIVE_LISTED) continue;
    out.push(m);
  }
  return out;
}
