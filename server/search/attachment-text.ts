// The text of a stored attachment as the agent gets it, read back for the search index: an Office document's
// sidecar (the Markdown the agent was sent), a text file's own text, or an archive's list with its small members'
// text, as the agent's reader builds it (workspace/preview-agent.ts), so a word the agent was sent from a file
// inside a zip is found. Read by name below the session's attachment folder through the anchored walk (no
// symlink out, no special file). Texts that take seconds to make are indexed when a turn makes them
// (agent/read's `onAttachmentText`): a PDF's pages and their OCR, an image's OCR, a transcript, which is stored
// nowhere and so is indexed at the audio file's next turn only.
import path from 'node:path';
import { openAttachmentPath } from '../attachments/open.js';
import { readSidecar } from '../office/sidecar.js';
import { openInside } from '../store/anchored-walk.js';
import { MAX_INDEXED_ATTACHMENT_CHARS } from '../store/db/search-query.js';
import { classify, SNIFF_BYTES, textOf, unknownKind } from '../content/index.js';
import { readWorkspaceBytes } from '../store/anchored-browse.js';
import { readAsAgent } from '../workspace/preview-agent.js';

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

/** The line the agent's reader ends a text it cut with (agent/read/budget.ts truncationMarker). */
const CUT_MARKER = /\n?\[… truncated: \d+ more characters of [^\n]*\]$/u;

/** A part the reader cut: its marker (not the file's words) and the cut word go. */
function uncut(part: string): string {
  const marker = part.match(CUT_MARKER);
  return marker ? withoutCutWord(part.slice(0, marker.index)) : part;
}

/** Transcription is never waited for here (an upload, the backfill): an audio file is then only named, and not indexed. */
const NO_TRANSCRIPT = (): Promise<string> => Promise.reject(new Error('transcripts are indexed when a turn makes them'));

/** `filename`'s text in the session's attachment folder, or '' when it has none (an image, a binary, missing). */
export async function storedAttachmentText(stateDir: string, sessionId: string, filename: string): Promise<string> {
  const at = await openAttachmentPath(stateDir, sessionId, filename).catch(() => undefined);
  if (!at) return '';
  try {
    // Its first bytes decide (content/: what the agent, MCP and the preview decide too); only a text is read as
    // far as the index takes it (a video is not read 16 MiB deep).
    const head = await readWorkspaceBytes(at, SNIFF_BYTES, true);
    const kind = classify(filename, head.bytes);
    switch (kind.kind) {
      case 'office': {
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
      case 'text': {
        const read = await readWorkspaceBytes(at, MAX_ATTACHMENT_TEXT_READ_BYTES, true);
        const text = textOf(read.bytes);
        return read.size > read.bytes.length ? withoutCutWord(text) : text;
      }
      // A PDF's pages and their OCR, an image's OCR, a transcript take seconds an upload does not wait: they
      // are indexed when a turn makes them.
      case 'pdf':
      case 'image':
      case 'audio':
      case 'binary':
        return '';
      // An archive's list and small members as the agent gets them.
      case 'archive': {
        const full = path.join(at.root.path, ...at.segments);
        const got = await readAsAgent({ root: at.root.path, path: full, name: path.basename(filename), size: head.size, mime: '', isImage: false }, MAX_INDEXED_ATTACHMENT_CHARS, { transcribe: NO_TRANSCRIPT });
        if (got.state === 'unreadable') return '';
        return got.texts.map(uncut).join('\n');
      }
      default:
        return unknownKind(kind);
    }
  } catch {
    return '';
  } finally {
    await at.root.close();
  }
}
