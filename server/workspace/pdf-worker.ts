// Worker-thread entry for PDF previews (started by pdf.ts from the compiled build only). Unlike the Office
// worker it stays up between requests: pdf.js costs about 200 ms to load and warm in a fresh thread, more than
// a short document takes to read. It answers each request with one reply; pdf.ts ends it when it runs past
// its deadline, misbehaves or has been idle for a while.
import { parentPort } from 'node:worker_threads';
import { extractPdfText, type PdfLimits, type PdfRead } from './pdf-text.js';

export interface PdfRequest {
  bytes: Uint8Array;
  limits?: PdfLimits;
}
export interface PdfReply {
  summary: PdfRead;
}

// pdf.js inflates Flate streams through DecompressionStream when there is one, and otherwise with its own
// JavaScript decoder. The native stream's output arrives in many small chunks that stay allocated in this
// thread's malloc arena after pdf.ts terminates the worker for using too much memory: each document ended that
// way left its ~512 MiB resident for good (measured: 61, 554, 1033 MiB after three). The JavaScript decoder
// writes into one growing typed array, which is returned to the system when the thread ends, and it reads the
// same documents as fast (36- and 17-page manuals: 209 and 69 ms median against 224 and 90 ms). pdf.js falls back
// to it when constructing the stream fails, so the global is removed before pdf.js loads (on first use).
delete (globalThis as { DecompressionStream?: unknown }).DecompressionStream;

if (parentPort) {
  const port = parentPort;
  port.on('message', (request: PdfRequest) => {
    void extractPdfText(request.bytes, request.limits).then((summary) => port.postMessage({ summary } satisfies PdfReply));
  });
}
