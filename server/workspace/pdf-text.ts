// The CPU-heavy half of a PDF's preview: its text (pdf.js's serverless build through unpdf, offline, no native
// code), page count and title, from bytes already read. It runs in pdf-worker.ts in the built server, and
// in-thread under the test runner (see pdf.ts); both call this one function, so they cannot drift apart.
import type { FilePreview } from './preview-wire.js';

/** Pages whose text is extracted; a longer document shows its first pages. */
export const MAX_PDF_TEXT_PAGES = 50;
export const MAX_PDF_TEXT_CHARS = 200_000;

/** How far one read goes: the preview's and a turn's first sight stop at the defaults; a document read whole for a
 *  conversation's passages (context/doc-text.ts) goes further, within the same worker's deadline and memory. */
export interface PdfLimits {
  pages: number;
  chars: number;
}
export const PREVIEW_PDF_LIMITS: PdfLimits = { pages: MAX_PDF_TEXT_PAGES, chars: MAX_PDF_TEXT_CHARS };
export const PDF_UNREADABLE = 'This PDF could not be read.';
export const PDF_NO_TEXT = 'This PDF has no text (scanned pages are images).';
/** pdf.js asks for a password (its PasswordException): nothing is read without it. */
export const PDF_ENCRYPTED = 'This PDF is encrypted (it needs a password): no text preview.';
/** pdf.js's VerbosityLevel.ERRORS. */
const PDFJS_ERRORS_ONLY = 0;

/** What a PDF's preview adds to the file's description: pages, title and text, or a note saying why not. */
export type PdfSummary = Pick<FilePreview, 'pages' | 'title' | 'text' | 'truncated' | 'note'>;

/** The preview's summary, and what the agent gets of the same read (server/agent/read/pdf.ts): page by page. */
export interface PdfRead extends PdfSummary {
  /** The text of each page read, from page 1, trimmed; at most MAX_PDF_TEXT_PAGES pages and MAX_PDF_TEXT_CHARS
   *  characters in all (the last page read cut there). Absent with a note that says why nothing was read. */
  pageTexts?: string[];
  /** The numbers (from 1) of the pages read that have no text: scanned pages are images, for OCR to read. */
  pagesWithoutText?: number[];
  /** The text stopped at MAX_PDF_TEXT_CHARS (rather than only at MAX_PDF_TEXT_PAGES). */
  cut?: boolean;
}

/** The preview's fields of a read: the page texts stay on the server. */
export function previewOf({ pages, title, text, truncated, note }: PdfRead): PdfSummary {
  return { ...(pages !== undefined ? { pages } : {}), ...(title !== undefined ? { title } : {}), ...(text !== undefined ? { text, truncated } : {}), ...(note !== undefined ? { note } : {}) };
}

/** Never throws: a document that fails to parse is described by a note. `bytes` may be detached by pdf.js. */
export async function extractPdfText(bytes: Uint8Array, limits: PdfLimits = PREVIEW_PDF_LIMITS): Promise<PdfRead> {
  // Loaded on first use: most sessions never preview a PDF, and pdf.js is the largest module here.
  const { getDocumentProxy } = await import('unpdf');
  let doc: Awaited<ReturnType<typeof getDocumentProxy>> | undefined;
  try {
    doc = await getDocumentProxy(bytes, {
      isEvalSupported: false,
      // pdf.js writes its recoverable complaints ("Indexing all PDF objects") to the console: errors only.
      verbosity: PDFJS_ERRORS_ONLY,
    });
    const pages = doc.numPages;
    const meta = await doc.getMetadata().catch(() => undefined);
    const info = meta?.info as { Title?: unknown } | undefined;
    const title = typeof info?.Title === 'string' && info.Title.trim() ? info.Title.trim() : undefined;
    const texts: string[] = [];
    const pageTexts: string[] = [];
    const pagesWithoutText: number[] = [];
    const last = Math.min(pages, limits.pages);
    let chars = 0;
    let kept = 0;
    let cut = false;
    for (let n = 1; n <= last; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const items = content.items as { str?: unknown; hasEOL?: boolean }[];
      const text = items.map((item) => (typeof item.str === 'string' ? item.str + (item.hasEOL ? '\n' : '') : '')).join('');
      const trimmed = text.trim();
      texts.push(trimmed);
      if (!trimmed) pagesWithoutText.push(n);
      // The agent's pages hold no more than the preview's text: MAX_PDF_TEXT_CHARS in all, the last page cut there.
      const pageText = trimmed.slice(0, limits.chars - kept);
      pageTexts.push(pageText);
      kept += pageText.length;
      chars += text.length;
      if (chars > limits.chars) {
        cut = pageText.length < trimmed.length || n < last;
        break;
      }
    }
    const truncated = pages > limits.pages || chars > limits.chars;
    const text = texts.join('\n\n').slice(0, limits.chars).trim();
    const read = { pageTexts, pagesWithoutText, ...(cut ? { cut } : {}) };
    return { pages, ...(title ? { title } : {}), ...(text ? { text, truncated } : { note: PDF_NO_TEXT }), ...read };
  } catch (err) {
    return { note: (err as { name?: unknown } | null)?.name === 'PasswordException' ? PDF_ENCRYPTED : PDF_UNREADABLE };
  } finally {
    await doc?.destroy().catch(() => {});
  }
}
