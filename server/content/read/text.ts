// A text file as the agent gets it: as much as the budget holds, in its own encoding decoded.
import { decodeFileText } from '../file-kind.js';
import { encodingLabel } from '../text-encoding.js';
import { truncationMarker, type Budget } from './budget.js';
import { readAt, type Opened } from './open.js';
import { textSummary, type ReadSummary } from './summary.js';
import { header } from './words.js';

/**
 * Reads enough of a text file to fill `budget` characters; the rest is counted, never held. Headed with its
 * name, and its encoding when that is not UTF-8: the agent then knows the bytes on disk are not what it reads.
 * `from`: the `.gz` the file was decompressed from (attachments/gunzip-upload.ts), named in its header and summary.
 */
export async function readTextFor(opened: Opened, budget: Budget, name: string, from?: string): Promise<{ text: string; summary: ReadSummary }> {
  // UTF-8 and UTF-16 need at most 4 bytes a character (single-byte encodings 1): this many bytes hold more than
  // `left` characters, or the file (and a byte order mark).
  const want = Math.min(opened.size, budget.left * 4 + 4);
  const bytes = await readAt(opened.handle, want);
  const unread = opened.size - want;
  if (unread <= 0) return bytesAsText(bytes, budget, name, from);
  const { text, head, what } = decoded(bytes, name, from);
  const kept = text.slice(0, budget.left);
  budget.left = 0;
  // Each unread byte counts as a character: exact for ASCII, an upper bound otherwise.
  const more = text.length - kept.length + unread;
  return { text: `${head}${kept}${kept ? '\n' : ''}${truncationMarker(more, name)}`, summary: fromGz(textSummary(kept.length, kept.length + more, what), from) };
}

/** The whole of a text file held in memory (an archive member read without extracting it), as readTextFor sends a file. */
export function bytesAsText(bytes: Buffer, budget: Budget, name: string, from?: string): { text: string; summary: ReadSummary } {
  const { text, head, what } = decoded(bytes, name, from);
  const sent = Math.min(text.length, budget.left);
  return { text: head + budget.take(text, name), summary: fromGz(textSummary(sent, text.length, what), from) };
}

function decoded(bytes: Buffer, name: string, from: string | undefined): { text: string; head: string; what: string } {
  const { encoding, text } = decodeFileText(bytes);
  const label = encodingLabel(encoding);
  const details = [label ? `text, ${label}` : '', from ? `decompressed from ${from}` : ''].filter(Boolean).join(', ');
  return { text, head: header(name, 'file', details || undefined), what: label ? `characters of text (${label})` : 'characters of text' };
}

/** "4,120 characters of text, decompressed from server.log.gz": the person sees the file they dropped named. */
function fromGz(summary: ReadSummary, from: string | undefined): ReadSummary {
  return from ? { ...summary, text: `${summary.text}, decompressed from ${from}` } : summary;
}
