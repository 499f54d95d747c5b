// Worker-thread entry for PDF previews (started by pdf.ts from the compiled build only). Unlike the Office
// worker it stays up between requests: pdf.js costs about 200 ms to load and warm in a fresh thread, more than
// a short document takes to read. It answers each request with one reply; pdf.ts ends it when it runs past
// its deadline, misbehaves or has been idle for a while.
import { parentPort } from 'node:worker_threads';
import { extractPdfText, type PdfSummary } from './pdf-text.js';

export interface PdfRequest {
  bytes: Uint8Array;
}
export interface PdfReply {
  summary: PdfSummary;
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (request: PdfRequest) => {
    void extractPdfText(request.bytes).then((summary) => port.postMessage({ summary } satisfies PdfReply));
  });
}
