// An extracted archive as the agent gets it: the list of its members, and the text of the small text ones
// while the budget lasts.
import path from 'node:path';
import { MAX_ENTRIES_WALKED, MAX_WALK_DEPTH } from '../../store/anchored-walk.js';
import { looksLikeText, SNIFF_BYTES } from '../../workspace/file-kind.js';
import type { ContentPart } from '../types.js';
import type { Budget } from './budget.js';
import { filesUnder, openUnder, readAt } from './open.js';
import { count, partial, plural, ready, unreadable } from './summary.js';
import { readTextFor } from './text.js';
import type { AttachmentRead, InputOptions } from './types.js';
import { header } from './words.js';

/** Archive members listed per archive (the rest are counted). */
export const MAX_ARCHIVE_LISTED = 200;
/** An archive member is inlined only up to this size: the list matters more than one big member. */
export const MAX_ARCHIVE_MEMBER_BYTES = 64 * 1024;

/** The members of an extracted archive, listed, with small text members inlined (budget permitting). */
export async function extractedArchiveRead(a: { name?: string; path: string }, budget: Budget, opts: InputOptions): Promise<AttachmentRead> {
  const name = a.name || path.basename(a.path);
  const root = path.resolve(a.path);
  const listing = await filesUnder(opts.roots, root, MAX_ARCHIVE_LISTED);
  if (!listing) {
    return {
      parts: [{ type: 'text', text: `[Extracted archive "${name}" at ${a.path}; not readable from the attachment folder]` }],
      summary: unreadable('not readable from the attachment folder'),
    };
  }
  const { files, total, complete } = listing;
  const more = total - files.length;
  const lines = [`Extracted archive "${name}" (${total} files, at ${a.path}):`, ...files.map((f) => `- ${f.path} (${f.size} bytes)`)];
  if (more) lines.push(`- … and ${more} more files`);
  if (!complete) lines.push(`- … and more not counted (the list stops after ${MAX_ENTRIES_WALKED} entries or ${MAX_WALK_DEPTH} folders deep)`);
  const list = lines.join('\n');
  let cut = list.length > budget.left;
  const parts: ContentPart[] = [{ type: 'text', text: budget.take(list, `the list of ${name}`) }];
  let inlined = 0;
  for (const f of files) {
    if (budget.left <= 0 || f.size > MAX_ARCHIVE_MEMBER_BYTES) continue;
    const opened = await openUnder(opts.roots, path.join(root, ...f.path.split('/')));
    if (!opened) continue;
    try {
      const head = await readAt(opened.handle, Math.min(opened.size, SNIFF_BYTES));
      if (!looksLikeText(head)) continue;
      const memberName = `${name}/${f.path}`;
      const read = await readTextFor(opened, budget, memberName);
      parts.push({ type: 'text', text: header(memberName) + read.text });
      inlined += 1;
      if (read.summary.state !== 'ready') cut = true;
    } finally {
      await opened.handle.close();
    }
  }
  const listed = `file list of ${plural(total, 'file')}${complete ? '' : ' or more'}`;
  const inline = inlined ? `, ${count(inlined)} text ${inlined === 1 ? 'file' : 'files'} inline` : '';
  return { parts, summary: cut ? partial(`${listed}${inline}, cut to fit`) : ready(`${listed}${inline}`) };
}
