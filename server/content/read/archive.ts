// An archive as the agent gets it, extracted (a folder) or not (archive-file.ts): the list of its members, and
// the text of the small text ones while the budget lasts. Both build the same text here.
import path from 'node:path';
import { MAX_ENTRIES_WALKED, MAX_WALK_DEPTH } from '../../store/anchored-walk.js';
import { looksLikeText, SNIFF_BYTES } from '../file-kind.js';
import type { Budget } from './budget.js';
import { filesUnder, openUnder, readAt } from './open.js';
import { count, partial, plural, ready, unreadable, type ReadSummary } from './summary.js';
import { readTextFor } from './text.js';
import { textPart, type AttachmentRead, type InputOptions, type Part } from './types.js';
import { toldWhere } from './words.js';

/** Archive members listed per archive (the rest are counted). */
export const MAX_ARCHIVE_LISTED = 200;
/** An archive member is inlined only up to this size: the list matters more than one big member. */
export const MAX_ARCHIVE_MEMBER_BYTES = 64 * 1024;

/** One line of an archive's list. */
export interface ListedFile {
  path: string;
  size: number;
  /** Why the extraction does not write it: listed, never inlined. */
  skipped?: string;
}

export interface ArchiveListingInput {
  name: string;
  /** The list's first line, without its colon: `Extracted archive "x.zip" (3 files, stored as satchel://…)`. */
  heading: string;
  /** At most MAX_ARCHIVE_LISTED of them, in the archive's order. */
  files: readonly ListedFile[];
  /** Files in the archive (skipped members not counted), listed or not. */
  total: number;
  /** A line saying the list stopped before the archive's end, when it did. */
  incomplete?: string;
  /** The text of one listed member, headed with its name; undefined when it is not text or not readable. */
  inline(file: ListedFile, memberName: string): Promise<{ text: string; summary: ReadSummary } | undefined>;
}

/** The list, then the small members' text while `budget` lasts, and the summary of both. */
export async function archiveListingRead(input: ArchiveListingInput, budget: Budget): Promise<AttachmentRead> {
  const { name, files, total } = input;
  const listedFiles = files.filter((f) => !f.skipped).length;
  const lines = [`${input.heading}:`, ...files.map((f) => (f.skipped ? `- ${f.path} (skipped: ${f.skipped})` : `- ${f.path} (${f.size} bytes)`))];
  const more = total - listedFiles;
  if (more > 0) lines.push(`- … and ${more} more files`);
  if (input.incomplete) lines.push(`- … ${input.incomplete}`);
  const list = lines.join('\n');
  let cut = list.length > budget.left;
  const parts: Part[] = [textPart(budget.take(list, `the list of ${name}`), { file: name })];
  let inlined = 0;
  for (const f of files) {
    if (budget.left <= 0 || f.skipped || f.size > MAX_ARCHIVE_MEMBER_BYTES) continue;
    const read = await input.inline(f, `${name}/${f.path}`);
    if (!read) continue;
    parts.push(textPart(read.text, { file: name, member: f.path }));
    inlined += 1;
    if (read.summary.state !== 'ready') cut = true;
  }
  const listed = `file list of ${plural(total, 'file')}${input.incomplete ? ' or more' : ''}`;
  const inline = inlined ? `, ${count(inlined)} text ${inlined === 1 ? 'file' : 'files'} inline` : '';
  return { kind: 'archive', parts, summary: cut || input.incomplete ? partial(`${listed}${inline}, cut to fit`) : ready(`${listed}${inline}`) };
}

/** Where the agent is told the extraction lies: its Satchel URI (a member is that URI's name + `/<member>`), never
 *  its folder on this machine. */
function storedAs(folder: string, opts: InputOptions): string {
  const uri = toldWhere(folder, opts);
  return uri ? `, stored as ${uri}` : '';
}

/** The members of an extracted archive, listed, with small text members inlined (budget permitting). */
export async function extractedArchiveRead(a: { name?: string; path: string }, budget: Budget, opts: InputOptions): Promise<AttachmentRead> {
  const name = a.name || path.basename(a.path);
  const root = path.resolve(a.path);
  const listing = await filesUnder(opts.roots, root, MAX_ARCHIVE_LISTED);
  if (!listing) {
    return {
      kind: 'archive',
      parts: [textPart(`[Extracted archive "${name}"${storedAs(a.path, opts)}; not readable from the attachment folder]`, { file: name })],
      summary: unreadable('not readable from the attachment folder'),
    };
  }
  const { files, total, complete } = listing;
  return archiveListingRead(
    {
      name,
      heading: `Extracted archive "${name}" (${plural(total, 'file')}${storedAs(a.path, opts)})`,
      files,
      total,
      ...(complete ? {} : { incomplete: `and more not counted (the list stops after ${MAX_ENTRIES_WALKED} entries or ${MAX_WALK_DEPTH} folders deep)` }),
      async inline(f, memberName) {
        const opened = await openUnder(opts.roots, path.join(root, ...f.path.split('/')));
        if (!opened) return undefined;
        try {
          const head = await readAt(opened.handle, Math.min(opened.size, SNIFF_BYTES));
          if (!looksLikeText(head)) return undefined;
          return await readTextFor(opened, budget, memberName);
        } finally {
          await opened.handle.close();
        }
      },
    },
    budget,
  );
}
