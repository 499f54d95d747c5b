// A PDF as the agent gets it: its text page by page, each page under a marker, read by the same reader as the
// workspace preview (server/workspace/pdf.ts: its worker, concurrency limit, deadline, heap and memory watchdog,
// size limit), within the turn's budget. Recognized by its first bytes (`%PDF-`), never by its name. MCP's
// read_attachment returns the same text (pdfAgentText).
import {
  MAX_PDF_BYTES,
  PREVIEW_PDF_LIMITS,
  PDF_ENCRYPTED,
  PDF_NO_TEXT,
  PDF_TIMED_OUT,
  PDF_TOO_LARGE,
  PDF_TOO_MUCH_MEMORY,
  PDF_WORKER_MAX_MEMORY_MB,
  PDF_WORKER_TIMEOUT_MS,
  readPdfFile,
  type PdfLimits,
  type PdfRead,
} from '../../workspace/pdf.js';
import type { Budget } from './budget.js';
import type { Opened } from './open.js';
import { count, partial, plural, ready, textSummary, unreadable, type ReadSummary } from './summary.js';
import { textPart, type AttachmentRead, type InputOptions } from './types.js';
import { describe, toldWhere } from './words.js';
import { withRecognizedPages } from './pdf-ocr.js';

/** What an empty page says, so the agent knows the page is there and only its text is missing. */
export const NO_TEXT_ON_PAGE = '[no text on this page]';

// Each of the preview's notes (a PDF read to no text) as the person's chip says it: what happened and what to do.
const UNREADABLE_SUMMARY = new Map<string, string>([
  [PDF_ENCRYPTED, 'encrypted: remove the password and attach it again'],
  [PDF_NO_TEXT, 'no text: scanned pages are images'],
  [PDF_TOO_LARGE, `larger than ${MAX_PDF_BYTES / 1024 / 1024} MiB: split it or attach its pages as smaller PDFs`],
  [PDF_TIMED_OUT, `took too long to read (over ${PDF_WORKER_TIMEOUT_MS / 1000} s): save it again (print to PDF) and attach it again`],
  [PDF_TOO_MUCH_MEMORY, `needed over ${PDF_WORKER_MAX_MEMORY_MB} MiB of memory to read: save it again (print to PDF) and attach it again`],
]);
const DAMAGED_SUMMARY = 'damaged: it could not be read; save it again from the program that made it and attach it again';

/** "--- Page 3 ---": the marker before each page's text. */
export function pageMarker(n: number): string {
  return `--- Page ${n} ---`;
}

/** "--- Page 2 (recognized by on-device OCR) ---": a scanned page's text may hold OCR's mistakes; the agent is told. */
export function recognizedPageMarker(n: number): string {
  return `--- Page ${n} (recognized by on-device OCR) ---`;
}

/** The pages read, each under its marker (joined with newlines: the whole text the search index is given). */
function pageSections(pageTexts: readonly string[], recognized: ReadonlySet<number>): string[] {
  return pageTexts.map((text, i) => `${recognized.has(i + 1) ? recognizedPageMarker(i + 1) : pageMarker(i + 1)}\n${text || NO_TEXT_ON_PAGE}`);
}

/** A line of what the agent gets, with the page it is from (none for the header and the notes). */
export interface PdfPiece {
  text: string;
  page?: number;
}

/**
 * `sections` (joined by newlines) as the budget let them through: `taken` is budget.take's answer for the joined
 * text, `kept` characters of it the text itself. Each section's part is its own piece, so joining the pieces with
 * newlines gives `taken` back exactly (a cut that keeps a section's trailing newline leaves an empty next piece).
 */
function sectionPieces(sections: readonly string[], taken: string, kept: number): PdfPiece[] {
  const whole = sections.join('\n');
  if (kept >= whole.length) return sections.map((text, i) => ({ text, page: i + 1 }));
  const pieces: PdfPiece[] = [];
  let start = 0;
  sections.forEach((text, i) => {
    if (start < kept || (start === kept && i > 0)) pieces.push({ text: whole.slice(start, Math.min(start + text.length, kept)), page: i + 1 });
    start += text.length + 1;
  });
  pieces.push({ text: taken.slice(kept + (kept > 0 ? 1 : 0)) });
  return pieces;
}

export interface PdfAgentText {
  /** What the agent gets: the header, the pages within the budget, and a line for the pages not read. */
  text: string;
  /** `text` by page: joined with newlines, they are `text`. */
  pieces: PdfPiece[];
  summary: ReadSummary;
  /** The pages' whole text before the budget cut it, for the search index; absent when nothing was read. */
  whole?: string;
  /** The pages read that have no text (numbered from 1): for OCR. */
  pagesWithoutText: number[];
}

/**
 * A PDF read by the preview's reader, as the agent gets it under `budget`; `unreadableText` says what the agent
 * gets instead when nothing could be read. Used by the turn and by MCP's read_attachment, so both say the same.
 */
export function pdfAgentText(read: PdfRead & { recognizedPages?: number[] }, name: string, budget: Budget, unreadableText: (note: string) => string, limits: PdfLimits = PREVIEW_PDF_LIMITS): PdfAgentText {
  const { pageTexts, pages } = read;
  if (!pageTexts || pages === undefined || pageTexts.every((t) => !t)) {
    // A document read to pages without text has the note PDF_NO_TEXT; one not read at all says why.
    const said = (read.note !== undefined && UNREADABLE_SUMMARY.get(read.note)) || DAMAGED_SUMMARY;
    const text = unreadableText(said);
    return { text, pieces: [{ text }], summary: unreadable(said), pagesWithoutText: read.pagesWithoutText ?? [] };
  }
  const sections = pageSections(pageTexts, new Set(read.recognizedPages ?? []));
  const whole = sections.join('\n');
  const sent = Math.min(whole.length, budget.left);
  const pieces: PdfPiece[] = [{ text: `Attached PDF "${name}" (${plural(pages, 'page')}):` }, ...sectionPieces(sections, budget.take(whole, name), sent)];
  const unread = pages - pageTexts.length;
  if (unread > 0) {
    const why = read.cut ? `the text stops at ${count(limits.chars)} characters` : `only the first ${limits.pages} pages are read`;
    pieces.push({ text: `[… ${plural(unread, 'more page')} of ${name} not read: ${why}]` });
  } else if (read.cut) {
    pieces.push({ text: `[… the rest of page ${pageTexts.length} of ${name} not read: the text stops at ${count(limits.chars)} characters]` });
  }
  const text = pieces.map((p) => p.text).join('\n');
  return { text, pieces, summary: pdfSummary(read, pageTexts, sent, whole.length, limits), whole, pagesWithoutText: read.pagesWithoutText ?? [] };
}

/** "12 pages, 24,310 characters of text", or each way it falls short. */
function pdfSummary(read: PdfRead & { recognizedPages?: number[] }, pageTexts: readonly string[], sent: number, total: number, limits: PdfLimits): ReadSummary {
  const pages = read.pages ?? pageTexts.length;
  const ocr = read.recognizedPages?.length ?? 0;
  const byOcr = ocr > 0 ? `, ${ocr === pageTexts.length ? (ocr === 1 ? 'the page' : `all ${count(ocr)} pages`) : plural(ocr, 'page')} recognized by OCR` : '';
  const short: string[] = [];
  const empty = read.pagesWithoutText?.length ?? 0;
  if (empty > 0) short.push(`${count(empty)} of ${count(pageTexts.length)} pages have no text (scanned?)`);
  if (read.cut) short.push(`cut at ${count(limits.chars)} characters`);
  else if (pageTexts.length < pages) short.push(`first ${count(pageTexts.length)} of ${count(pages)} pages`);
  const budget = textSummary(sent, total);
  // A PDF with no text at all is already said above (its pages without text): the budget adds only a cut.
  if (budget.state === 'partial' && total > 0) short.push(budget.text);
  if (short.length) return partial(short.join(', ') + byOcr);
  return ready(`${plural(pages, 'page')}, ${count(total)} characters of text${byOcr}`);
}

/** The PDF `opened` (classified so by its bytes: ../kind.ts) as the agent gets it, its text-less pages read by OCR. */
export async function pdfRead(opened: Opened, name: string, mime: string, where: string, budget: Budget, opts: InputOptions): Promise<AttachmentRead> {
  const type = mime || 'application/pdf';
  const limits = opts.pdfLimits ?? PREVIEW_PDF_LIMITS;
  const read = await withRecognizedPages(await readPdfFile(opened, limits), opened, opts.signal);
  if (opts.signal?.aborted) throw opts.signal.reason;
  const got = pdfAgentText(read, name, budget, (note) => describe(name, type, opened.size, toldWhere(where, opts), `its text could not be read: ${note}`), limits);
  if (got.whole !== undefined) opts.onAttachmentText?.(where, got.whole);
  return { kind: 'pdf', parts: got.pieces.map((p) => textPart(p.text, p.page === undefined ? { file: name } : { file: name, page: p.page })), summary: got.summary };
}
