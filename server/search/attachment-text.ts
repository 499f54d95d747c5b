// The text of a stored attachment as the agent gets it, read back for the search index: an Office document's
// sidecar (the Markdown the agent was sent), or a text file's own text. Read by name below the session's
// attachment folder through the anchored walk (no symlink out, no special file). A transcript is not stored
// anywhere, so it is indexed only when a turn makes it (agent/input.ts `onAttachmentText`).
import { openAttachmentPath } from '../attachments/open.js';
import { officeFormat } from '../office/index.js';
import { readSidecar } from '../office/sidecar.js';
import { openInside } from '../store/anchored-walk.js';
import { MAX_INDEXED_ATTACHMENT_CHARS } from '../store/db/search-query.js';
import { looksLikeText, textOf } from '../workspace/file-kind.js';
import { readWorkspaceBytes } from '../workspace/browse.js';

/** Bytes read of an attachment's text: enough for MAX_INDEXED_ATTACHMENT_CHARS characters of up to 4 bytes. */
export const MAX_ATTACHMENT_TEXT_READ_BYTES = MAX_INDEXED_ATTACHMENT_CHARS * 4;

/**
 * A text read only in part loses its last, cut word: a token cut in half (the head of a key) may no longer look
 * like the secret it is, and the redactor would let it through into the index.
 */
export function withoutCutWord(text: string): string {
  const end = text.search(/\s\S*$/u);
  return end === -1 ? '' : text.slice(0, end);
}

/** `filename`'s text in the session's attachment folder, or '' when it has none (an image, a binary, missing). */
export async function storedAttachmentText(stateDir: string, sessionId: string, filename: string): Promise<string> {
  const at = await openAttachmentPath(stateDir, sessionId, filename).catch(() => undefined);
  if (!at) return '';
  try {
    if (officeFormat(filename)) {
      const dir = await openInside(at.root, at.segments.slice(0, -1)).catch(() => undefined);
      if (!dir) return '';
      try {
        const sidecar = await readSidecar(dir, at.segments.at(-1)!, MAX_ATTACHMENT_TEXT_READ_BYTES);
        if (!sidecar) return '';
        const text = sidecar.bytes.toString('utf8');
        return sidecar.size > sidecar.bytes.length ? withoutCutWord(text) : text;
      } finally {
        await dir.close();
      }
    }
    const read = await readWorkspaceBytes(at, MAX_ATTACHMENT_TEXT_READ_BYTES, true);
    if (!looksLikeText(read.bytes)) return '';
    const text = textOf(read.bytes);
    return read.size > read.bytes.length ? withoutCutWord(text) : text;
  } catch {
    return '';
  } finally {
    await at.root.close();
  }
}
