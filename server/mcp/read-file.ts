// One file as MCP returns it (read_attachment, read_workspace_file, the search walk's Office files), by what the
// content engine says it is (server/content/: its bytes first, the name only where bytes cannot tell), through
// that engine's readers: the same text Satchel's own agent gets, cut at the caller's `max_chars`. Every text is
// redacted here, where it is read.
import {
  archiveFileRead,
  Budget,
  classify,
  pdfAgentText,
  readAt,
  REFUSED_ARCHIVE,
  SNIFF_BYTES,
  textOf,
  transcriptOf,
  unknownKind,
  withRecognizedPages,
  type Kind,
} from '../content/index.js';
import { guessMime } from '../core/mime.js';
import { officeToMarkdown, type OfficeFormat } from '../office/index.js';
import { readSidecar } from '../office/sidecar.js';
import { cutRedacted, redactText, type McpAttachmentContent, type RedactedText } from '../projections/index.js';
import { openInside } from '../store/anchored-walk.js';
import { readPdfFile } from '../workspace/pdf.js';
import { openWorkspaceFile, readWorkspaceBytes, type WorkspacePath } from '../store/anchored-browse.js';
import { readImage } from './image-read.js';
import * as L from './limits.js';

/** What reading an audio file needs: where the speech-to-text settings are, and when to give up. */
export interface ReadFileOptions {
  stateDir: string;
  signal?: AbortSignal;
  /** Replaces speech-to-text (tests). */
  transcribe?: (file: string, filename: string) => Promise<string>;
}

/** A media type that says what the bytes are: the name's guess, unless it claims another kind than they are. */
function mimeFor(kind: Kind, base: string): string {
  const guessed = guessMime(base);
  switch (kind.kind) {
    case 'image':
      return kind.mime;
    case 'pdf':
      return 'application/pdf';
    case 'text':
      return /^(image|audio|video)\//.test(guessed) || guessed === 'application/pdf' ? 'text/plain' : guessed;
    case 'office':
    case 'audio':
    case 'archive':
    case 'binary':
      return guessed;
    default:
      return unknownKind(kind);
  }
}

/** The file `at` names (called `base`), read by its kind, within `maxChars`. */
export async function readFileContent(at: WorkspacePath, base: string, maxChars: number, opts: ReadFileOptions): Promise<McpAttachmentContent> {
  const kind = await kindOf(at, base);
  const mime = mimeFor(kind, base);
  switch (kind.kind) {
    case 'text': {
      const { bytes, size } = await readWorkspaceBytes(at, L.MAX_READ_BYTES, true);
      return { kind: 'text', name: base, mime, size, text: readText(bytes, size, maxChars), source: 'file' };
    }
    case 'pdf':
      return readPdf(at, base, maxChars);
    case 'office':
      return readOffice(at, base, kind.format, maxChars);
    case 'image':
      return readImage(at, base, mime);
    case 'audio':
      return readAudio(at, base, mime, maxChars, opts);
    case 'archive':
      return readArchiveFile(at, base, mime, kind.format, maxChars);
    case 'binary':
      return { kind: 'binary', name: base, mime, size: await sizeOf(at), note: 'binary file: content not returned' };
    default:
      return unknownKind(kind);
  }
}

async function sizeOf(at: WorkspacePath): Promise<number> {
  const file = await openWorkspaceFile(at);
  await file.close();
  return file.size;
}

async function kindOf(at: WorkspacePath, base: string): Promise<Kind> {
  const file = await openWorkspaceFile(at);
  try {
    return classify(base, await readAt(file.handle, Math.min(file.size, SNIFF_BYTES)));
  } finally {
    await file.close();
  }
}

/** Decoded, redacted, cut at `maxChars`; a file read only in part says how many bytes were left. */
export function readText(bytes: Buffer, size: number, maxChars: number): RedactedText {
  const text = cutRedacted(redactText(textOf(bytes)), (t) => L.truncated(t, maxChars));
  if (size > bytes.length && text.length <= maxChars) return cutRedacted(text, (t) => `${t}\n[… truncated: ${size - bytes.length} more bytes]`);
  return text;
}

/**
 * An archive stored as it came (not extracted): its file list and small text members, as the agent gets them
 * (the content engine's archive reader, the same function), within `maxChars`.
 */
async function readArchiveFile(at: WorkspacePath, base: string, mime: string, format: Extract<Kind, { kind: 'archive' }>['format'], maxChars: number): Promise<McpAttachmentContent> {
  const file = await openWorkspaceFile(at);
  try {
    if (format === '7z' || format === 'rar') return { kind: 'binary', name: base, mime, size: file.size, note: REFUSED_ARCHIVE[format] };
    // Named by its attachment name, never by where it lies on this machine.
    const read = await archiveFileRead(file, format, base, mime, base, new Budget(maxChars));
    const joined = read.parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n\n');
    return { kind: 'text', name: base, mime, size: file.size, text: cutRedacted(redactText(joined), (t) => L.truncated(t, maxChars)), source: 'archive-listing' };
  } finally {
    await file.close();
  }
}

/** A PDF as the agent gets it in a turn: its pages' text under their markers (scanned pages by OCR), cut at
 *  `maxChars`; one that could not be read, by the chip's words for why. */
async function readPdf(at: WorkspacePath, base: string, maxChars: number): Promise<McpAttachmentContent> {
  const file = await openWorkspaceFile(at);
  try {
    const got = pdfAgentText(await withRecognizedPages(await readPdfFile(file), file), base, new Budget(maxChars), (why) => why);
    if (got.whole === undefined) return { kind: 'binary', name: base, mime: 'application/pdf', size: file.size, note: `PDF whose text could not be read: ${got.text}` };
    return { kind: 'text', name: base, mime: 'application/pdf', size: file.size, text: redactText(got.text), source: 'pdf' };
  } finally {
    await file.close();
  }
}

/** The sidecar beside the Office file `at` names, read in the folder holding it (office/sidecar.ts). */
async function storedSidecar(at: WorkspacePath, maxBytes: number): Promise<{ bytes: Buffer; size: number } | undefined> {
  const dir = await openInside(at.root, at.segments.slice(0, -1)).catch(() => undefined);
  if (!dir) return undefined;
  try {
    return await readSidecar(dir, at.segments.at(-1)!, maxBytes);
  } finally {
    await dir.close();
  }
}

/** An Office document as Markdown: its sidecar when one was written beside it, else converted now. */
export async function readOffice(at: WorkspacePath, base: string, format: OfficeFormat, maxChars: number): Promise<McpAttachmentContent> {
  const mime = guessMime(base);
  // A sidecar written beside the file (uploads write one) is the conversion already done.
  const stored = await storedSidecar(at, L.MAX_READ_BYTES);
  if (stored) return { kind: 'text', name: base, mime, size: stored.size, text: readText(stored.bytes, stored.size, maxChars), source: 'office-sidecar' };
  // Opened through the anchored walk and converted from that descriptor: a path handed to the converter could be
  // sent outside by a folder swapped for a symlink in between.
  const file = await openWorkspaceFile(at);
  try {
    const markdown = await officeToMarkdown(file.handle, format);
    return { kind: 'text', name: base, mime, size: file.size, text: cutRedacted(redactText(markdown), (t) => L.truncated(t, maxChars)), source: 'office' };
  } catch {
    return { kind: 'binary', name: base, mime, size: file.size, note: 'Office document that could not be converted to Markdown' };
  } finally {
    await file.close();
  }
}

/** Audio as its transcript by the configured speech-to-text, as the agent gets it; metadata when none can be made. */
async function readAudio(at: WorkspacePath, base: string, mime: string, maxChars: number, opts: ReadFileOptions): Promise<McpAttachmentContent> {
  // The transcriber is given a copy of the file opened here through the anchored walk (content/read/audio.ts),
  // never its path: a folder swapped for a symlink meanwhile cannot hand it another file.
  const file = await openWorkspaceFile(at);
  const size = file.size;
  let transcript: string | undefined;
  try {
    transcript = await transcriptOf(file.handle, size, base, opts);
  } catch {
    if (opts.signal?.aborted) throw opts.signal.reason;
    return { kind: 'binary', name: base, mime, size, note: 'audio that could not be transcribed' };
  } finally {
    await file.close();
  }
  if (transcript === undefined) return { kind: 'binary', name: base, mime, size, note: 'audio: no speech-to-text to transcribe it' };
  return { kind: 'text', name: base, mime, size, text: cutRedacted(redactText(transcript), (t) => L.truncated(t, maxChars)), source: 'transcript' };
}
