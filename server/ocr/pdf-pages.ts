// Scanned PDF pages as text (issue 25): a page with no text layer is usually one image of the paper. pdf.js, in
// the OCR worker, decodes the largest image the page paints (no canvas needed: JPEG, Flate, CCITT and JBIG2 scans
// alike), and Tesseract reads it. The PDF reader (server/agent/read/pdf.ts) calls this with the pages it found
// without text.
import { OcrError, ocrEngine, type OcrEngine, type RecognizedText } from './engine.js';

/** Pages recognized per document: 1-3 s of CPU each, so 20 pages keep one dropped scan under about a minute of
 *  a core; the rest are reported as not read. */
export const OCR_PDF_MAX_PAGES = 20;

export interface PageText extends RecognizedText {
  /** 1-based, as the PDF numbers it. */
  page: number;
  /** Why the page could not be read (time or memory budget, an undecodable image); its text is then empty. */
  error?: string;
}

export interface ScannedPages {
  pages: PageText[];
  /** The requested pages past OCR_PDF_MAX_PAGES, not read. */
  skipped: number[];
}

/** The recognized text of `pages` (1-based) of the PDF in `pdf`, in the order given. Never throws for a bad
 *  document or page: each page says what became of it. */
export async function recognizePdfPages(pdf: Uint8Array, pages: readonly number[], engine: OcrEngine = ocrEngine()): Promise<ScannedPages> {
  const wanted = [...new Set(pages.filter((n) => Number.isInteger(n) && n >= 1))];
  const read: PageText[] = [];
  for (const page of wanted.slice(0, OCR_PDF_MAX_PAGES)) {
    try {
      read.push({ page, ...(await engine.recognizePdfPage(pdf, page)) });
    } catch (err) {
      if (!(err instanceof OcrError)) throw err;
      read.push({ page, text: '', words: 0, error: err.message });
    }
  }
  return { pages: read, skipped: wanted.slice(OCR_PDF_MAX_PAGES) };
}
