// The CPU-heavy half of a PDF's preview: its text (pdf.js's serverless build through unpdf, offline, no native
// code), page count and title, from bytes already read. It runs in pdf-worker.ts in the built server, and
// in-thread under the test runner (see pdf.ts); both call this one function, so they cannot drift apart.
import type { FilePreview } from './preview-wire.js';

/** Pages whose text is extracted; a longer document shows its first pages. */
export const MAX_PDF_TEXT_PAGES = 50;
export const MAX_PDF_TEXT_CHARS = 200_000;
export const PDF_UNREADABLE = 'This PDF could not be read.';
export const PDF_NO_TEXT = 'This PDF has no text (scanned pages are images).';
/** pdf.js's VerbosityLevel.ERRORS. */
const PDFJS_ERRORS_ONLY = 0;

/** What a PDF's preview adds to the file's description: pages, title and text, or a note saying why not. */
export type PdfSummary = Pick<FilePreview, 'pages' | 'title' | 'text' | 'truncated' | 'note'>;

/** Never throws: a document that fails to parse is described by a note. `bytes` may be detached by pdf.js. */
export async function extractPdfText(bytes: Uint8Array): Promise<PdfSummary> {
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
    let chars = 0;
    let truncated = pages > MAX_PDF_TEXT_PAGES;
    for (let n = 1; n <= Math.min(pages, MAX_PDF_TEXT_PAGES); n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const items = content.items as { str?: unknown; hasEOL?: boolean }[];
      const text = items.map((item) => (typeof item.str === 'string' ? item.str + (item.hasEOL ? '\n' : '') : '')).join('');
      texts.push(text.trim());
      chars += text.length;
      if (chars > MAX_PDF_TEXT_CHARS) {
        truncated = true;
        break;
      }
    }
    const text = texts.join('\n\n').slice(0, MAX_PDF_TEXT_CHARS).trim();
    return { pages, ...(title ? { title } : {}), ...(text ? { text, truncated } : { note: PDF_NO_TEXT }) };
  } catch {
    return { note: PDF_UNREADABLE };
  } finally {
    await doc?.destroy().catch(() => {});
  }
}
