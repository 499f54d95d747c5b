// A file described for its preview (GET /api/workspace/preview, GET /api/attachment/preview): its kind from its
// bytes, and what the UI shows of it. Text is decoded (UTF-8, UTF-8/UTF-16 with a byte order mark), Office
// files bring their Markdown (the sidecar beside them, else converted now), images only their type: their
// bytes come from the raw route. Beside it, what the agent gets where the file's own text is not that
// (preview-agent.ts: the agent's reader). Its free text is redacted on the way out (previewJson).
import path from 'node:path';
import { guessMime } from '../core/mime.js';
import { redactText, serverValue, type RedactedText, type ServerValue } from '../projections/brand.js';
import { officeFormat, officeToMarkdown } from '../office/index.js';
import { readSidecar } from '../office/sidecar.js';
import { readBounded, readStart, type OpenedFile } from '../store/anchored-browse.js';
import { classify as contentKind, decodeText, SNIFF_BYTES, unknownKind } from '../content/index.js';
import { PDF_NO_TEXT, readPdfFile } from './pdf.js';
import { previewOf } from './pdf-text.js';
import { agentPreview, type AgentReadOptions } from './preview-agent.js';
import type { AgentPreview, FilePreview, PreviewKind } from './preview-wire.js';

/** The most text a preview carries; a longer file shows its start and says it was cut. */
export const MAX_PREVIEW_TEXT_BYTES = 1024 * 1024;
export const OFFICE_NOT_CONVERTED = 'This Office file could not be converted to text.';

/**
 * The kind the preview shows a file as, and the type it is served with: content/'s kind of it (the one that
 * decides what a file is for the agent, MCP and search too), drawn where the page can draw it.
 */
export function classify(name: string, head: Buffer): { kind: PreviewKind; mime: string } {
  const kind = contentKind(name, head);
  const named = guessMime(name);
  switch (kind.kind) {
    case 'image':
      return { kind: 'image', mime: kind.mime };
    case 'pdf':
      return { kind: 'pdf', mime: 'application/pdf' };
    case 'office':
      return { kind: 'office', mime: named };
    case 'text':
      if (kind.drawable) return { kind: 'image', mime: kind.drawable };
      return { kind: 'text', mime: named.startsWith('text/') ? named : 'text/plain' };
    // What the agent gets of these (a listing, a transcript, a name) is the preview's `agent` part.
    case 'audio':
    case 'archive':
    case 'binary':
      // A name that promises an image or text the bytes do not hold is not believed.
      return { kind: 'binary', mime: named.startsWith('image/') || named.startsWith('text/') ? 'application/octet-stream' : named };
    default:
      return unknownKind(kind);
  }
}

/** The preview of an opened file, unredacted: it leaves the server only through previewJson. */
export async function describeFile(file: OpenedFile, root: string, opts: AgentReadOptions = {}): Promise<FilePreview> {
  const head = await readStart(file, SNIFF_BYTES);
  const { kind, mime } = classify(file.name, head);
  const base: FilePreview = { kind, name: file.name, path: file.path, abs_path: path.join(root, ...file.path.split('/')), size: file.size, mime };
  const agent = (): Promise<AgentPreview> => agentPreview(file, root, mime, kind === 'image', opts);
  switch (kind) {
    // The text shown is the text the agent gets (its own reader decodes the same bytes, the same sidecar).
    case 'text': {
      const text = await textOf(file);
      return { ...base, ...text, ...(text.kind === 'binary' ? { agent: await agent() } : {}) };
    }
    case 'office':
      return { ...base, ...(await officeText(file)) };
    case 'pdf':
      return { ...base, ...(await pdfPreview(file, agent)) };
    // An image's recognized text; an archive's list and small members, a transcript, or only a name.
    case 'image':
    case 'binary':
      return { ...base, agent: await agent() };
    default: {
      const unknown: never = kind;
      throw new Error(`no preview for kind ${String(unknown)}`);
    }
  }
}

/**
 * A PDF's text layer as it is, and when pages have none, what the agent gets instead: their OCR text, so the
 * preview no longer says "no text" of a page the agent is sent recognized (issue 35). Read once when every page
 * has text.
 */
async function pdfPreview(file: OpenedFile, agent: () => Promise<AgentPreview>): Promise<Partial<FilePreview>> {
  const read = await readPdfFile(file);
  const summary = previewOf(read);
  if (!read.pagesWithoutText?.length) return summary;
  const view = await agent();
  // "This PDF has no text" is the text layer's story; what the agent is sent is told beside it.
  if (summary.note === PDF_NO_TEXT && view.state !== 'unreadable' && view.state !== 'pending') delete summary.note;
  return { ...summary, agent: view };
}

async function textOf(file: OpenedFile): Promise<Partial<FilePreview>> {
  const bytes = await readStart(file, MAX_PREVIEW_TEXT_BYTES);
  const cut = file.size > bytes.length;
  const decoded = decodeText(bytes, cut);
  // Text at its start, binary further on: shown as far as it is text would mislead; it is binary.
  if (!decoded) return { kind: 'binary', mime: 'application/octet-stream' };
  return { encoding: decoded.encoding, text: decoded.text, truncated: cut };
}

async function officeText(file: OpenedFile): Promise<Partial<FilePreview>> {
  // A sidecar written beside the file (workspace uploads write one) is the conversion already done; read by
  // the one reader of sidecars (no symlink followed, at most what a preview shows).
  const read = await readSidecar(file.parent, file.name, MAX_PREVIEW_TEXT_BYTES).catch(() => undefined);
  const decoded = read && decodeText(read.bytes, read.size > read.bytes.length);
  if (read && decoded) return { text: decoded.text, truncated: read.size > read.bytes.length, source: 'sidecar' };
  try {
    // The descriptor the walk opened, not a path: a folder swapped for a symlink meanwhile cannot redirect the read.
    const markdown = await officeToMarkdown(file.handle, officeFormat(file.name)!);
    return { text: markdown, source: 'converted' };
  } catch {
    return { note: OFFICE_NOT_CONVERTED };
  }
}

/** The preview as it leaves the server (projections/brand.ts): free text redacted, the server's own values verbatim. */
export interface PublicFilePreview {
  kind: PreviewKind;
  name: ServerValue;
  path: ServerValue;
  abs_path: ServerValue;
  size: number;
  mime: ServerValue;
  encoding?: FilePreview['encoding'];
  text?: RedactedText;
  truncated?: boolean;
  source?: FilePreview['source'];
  pages?: number;
  title?: RedactedText;
  note?: RedactedText;
  agent?: { state: AgentPreview['state']; summary: RedactedText; text: RedactedText };
}

/**
 * Names and paths are the server's own and the UI sends them back, so they go out as they are; the file's text,
 * a PDF's title and a note are free text (a note may quote a converter's complaint).
 */
export function previewJson(p: FilePreview): PublicFilePreview {
  const out: PublicFilePreview = { kind: p.kind, name: serverValue(p.name), path: serverValue(p.path), abs_path: serverValue(p.abs_path), size: p.size, mime: serverValue(p.mime) };
  if (p.encoding !== undefined) out.encoding = p.encoding;
  if (p.text !== undefined) out.text = redactText(p.text);
  if (p.truncated !== undefined) out.truncated = p.truncated;
  if (p.source !== undefined) out.source = p.source;
  if (p.pages !== undefined) out.pages = p.pages;
  if (p.title !== undefined) out.title = redactText(p.title);
  if (p.note !== undefined) out.note = redactText(p.note);
  if (p.agent !== undefined) out.agent = { state: p.agent.state, summary: redactText(p.agent.summary), text: redactText(p.agent.text) };
  return out;
}
