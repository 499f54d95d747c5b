// A text file as the agent gets it: as much as the budget holds, in its own encoding decoded.
import { decodeFileText } from '../../workspace/file-kind.js';
import { encodingLabel } from '../../workspace/text-encoding.js';
import { truncationMarker, type Budget } from './budget.js';
import { readAt, type Opened } from './open.js';
import { textSummary, type ReadSummary } from './summary.js';
import { header } from './words.js';

/**
 * Reads enough of a text file to fill `budget` characters; the rest is counted, never held. Headed with its
 * name, and its encoding when that is not UTF-8: the agent then knows the bytes on disk are not what it reads.
 */
export async function readTextFor(opened: Opened, budget: Budget, name: string): Promise<{ text: string; summary: ReadSummary }> {
  // UTF-8 and UTF-16 need at most 4 bytes a character (single-byte encodings 1): this many bytes hold more than
  // `left` characters, or the file (and a byte order mark).
  const want = Math.min(opened.size, budget.left * 4 + 4);
  const { encoding, text } = decodeFileText(await readAt(opened.handle, want));
  const label = encodingLabel(encoding);
  const head = header(name, 'file', label ? `text, ${label}` : undefined);
  const what = label ? `characters of text (${label})` : 'characters of text';
  const unread = opened.size - want;
  if (unread <= 0) {
    const sent = Math.min(text.length, budget.left);
    return { text: head + budget.take(text, name), summary: textSummary(sent, text.length, what) };
  }
  const kept = text.slice(0, budget.left);
  budget.left = 0;
  // Each unread byte counts as a character: exact for ASCII, an upper bound otherwise.
  const more = text.length - kept.length + unread;
  return { text: `${head}${kept}${kept ? '\n' : ''}${truncationMarker(more, name)}`, summary: textSummary(kept.length, kept.length + more, what) };
}
