// Scanned pages of a PDF as text (issue 25, finding 6): the pages the PDF reader found without a text layer are
// read by on-device OCR (server/ocr/pdf-pages.ts), and their text takes the empty page's place, marked as
// recognized so the agent knows it may hold OCR's mistakes. The chip's summary and the turn read the same PDF,
// and a page takes seconds, so what was recognized is kept by the document's hash and the page number.
import { createHash } from 'node:crypto';
import { MAX_PDF_BYTES, type PdfRead } from '../../workspace/pdf.js';
import { readStart } from '../../store/anchored-browse.js';
import { recognizePdfPages } from '../../ocr/pdf-pages.js';
import type { Opened } from './open.js';

/** Recognized pages kept (a few KiB of text each), oldest dropped first. */
export const PDF_OCR_CACHE_ENTRIES = 256;
const recognized = new Map<string, string>();

export interface RecognizedRead extends PdfRead {
  /** Pages (from 1) whose text came from OCR. */
  recognizedPages: number[];
}

/** `read` with its text-less pages filled in by OCR where OCR found words; those it could not read stay empty
 *  and stay in `pagesWithoutText`. Reads the file again (the reader's bytes went to its worker). */
export async function withRecognizedPages(read: PdfRead, opened: Pick<Opened, 'handle' | 'size'>, signal?: AbortSignal): Promise<RecognizedRead> {
  const empty = read.pagesWithoutText ?? [];
  if (!read.pageTexts || empty.length === 0 || opened.size > MAX_PDF_BYTES) return { ...read, recognizedPages: [] };
  const bytes = await readStart(opened, MAX_PDF_BYTES);
  const doc = createHash('sha256').update(bytes).digest('hex');
  const texts = new Map<number, string>();
  const unknown = empty.filter((n) => {
    const known = recognized.get(`${doc}:${n}`);
    if (known !== undefined) texts.set(n, known);
    return known === undefined;
  });
  if (unknown.length > 0) {
    const found = await recognizePdfPages(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), unknown);
    signal?.throwIfAborted();
    for (const page of found.pages) {
      texts.set(page.page, page.text.trim());
      // A page that failed (time or memory on a busy machine) may be read next time: not kept.
      if (page.error) continue;
      recognized.set(`${doc}:${page.page}`, page.text.trim());
      if (recognized.size > PDF_OCR_CACHE_ENTRIES) recognized.delete(recognized.keys().next().value!);
    }
  }
  const pageTexts = [...read.pageTexts];
  const recognizedPages: number[] = [];
  for (const [n, text] of texts) {
    if (!text) continue;
    pageTexts[n - 1] = text;
    recognizedPages.push(n);
  }
  recognizedPages.sort((a, b) => a - b);
  const stillEmpty = empty.filter((n) => !recognizedPages.includes(n));
  return { ...read, pageTexts, pagesWithoutText: stillEmpty, recognizedPages };
}
