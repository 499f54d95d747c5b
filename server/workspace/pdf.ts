// A PDF's preview: its text (pdf.js's serverless build through unpdf, offline, no native code), page count and
// title. Bounded: a file over MAX_PDF_BYTES or a document that fails to parse keeps only what could be read,
// and the preview says why; text past MAX_PDF_TEXT_CHARS or MAX_PDF_TEXT_PAGES is cut and marked truncated.
import { readStart, type OpenedFile } from './browse.js';
import type { FilePreview } from './preview-wire.js';

/** pdf.js parses in this thread: a larger file is described by its size alone. */
export const MAX_PDF_BYTES = 32 * 1024 * 1024;
/** Pages whose text is extracted; a longer document shows its first pages. */
export const MAX_PDF_TEXT_PAGES = 50;
export const MAX_PDF_TEXT_CHARS = 200_000;
export const PDF_TOO_LARGE = `PDF larger than ${MAX_PDF_BYTES / 1024 / 1024} MiB: no text preview.`;
export const PDF_UNREADABLE = 'This PDF could not be read.';
/** pdf.js's VerbosityLevel.ERRORS. */
const PDFJS_ERRORS_ONLY = 0;
export const PDF_NO_TEXT = 'This PDF has no text (scanned pages are images).';

export async function pdfSummary(file: OpenedFile): Promise<Partial<FilePreview>> {
  if (file.size > MAX_PDF_BYTES) return { note: PDF_TOO_LARGE };
  const bytes = await readStart(file, MAX_PDF_BYTES);
  // Loaded on first use: most sessions never preview a PDF, and pdf.js is the largest module here.
  const { getDocumentProxy } = await import('unpdf');
  let doc: Awaited<ReturnType<typeof getDocumentProxy>> | undefined;
  try {
    doc = await getDocumentProxy(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
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
