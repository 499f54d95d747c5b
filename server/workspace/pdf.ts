// A PDF's preview: its text, page count and title (pdf-text.ts), read in a worker thread so that a long or
// hostile document never stalls the server's event loop; under Node the thread runs in a child process of its own
// (off-thread.ts), so what pdf.js leaves in the allocator leaves with it. Bounded: a file over MAX_PDF_BYTES is described by
// its size alone, at most PDF_MAX_CONCURRENT documents are read at once, and one that runs past its deadline
// has its worker terminated and the preview says so.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLimiter } from '../core/limiter.js';
import { defaultChildHost, startOffThread, type OffThread, type OffThreadEnd } from './off-thread.js';
import { unpackedPath } from '../core/unpacked-path.js';
import { readStart, type OpenedFile } from '../store/anchored-browse.js';
import { extractPdfText, PDF_UNREADABLE, previewOf, type PdfLimits, type PdfRead, type PdfSummary } from './pdf-text.js';
import type { PdfReply, PdfRequest } from './pdf-worker.js';

export { MAX_PDF_TEXT_CHARS, MAX_PDF_TEXT_PAGES, PDF_ENCRYPTED, PDF_NO_TEXT, PDF_UNREADABLE, PREVIEW_PDF_LIMITS, type PdfLimits, type PdfRead, type PdfSummary } from './pdf-text.js';

/** The whole file is read into memory and handed to pdf.js: a larger file is described by its size alone. */
export const MAX_PDF_BYTES = 32 * 1024 * 1024;
export const PDF_TOO_LARGE = `PDF larger than ${MAX_PDF_BYTES / 1024 / 1024} MiB: no text preview.`;
// Reading a PDF is CPU-bound: two at once keep one slow document from holding every preview, without more
// threads than this machine class has cores. The others wait their turn.
export const PDF_MAX_CONCURRENT = 2;
// A 24-page report reads in about 0.3 s (1 s cold); 50 pages of dense text in a few seconds. Past this the
// document is hostile or broken (a 33 KB file of empty text operators takes minutes), and the worker is ended.
export const PDF_WORKER_TIMEOUT_MS = 15_000;
export const PDF_TIMED_OUT = `This PDF took too long to read (over ${PDF_WORKER_TIMEOUT_MS / 1000} s): no text preview.`;
// A warm worker answers a short document in milliseconds instead of the ~200 ms a fresh one needs to load
// pdf.js; one left unused this long exits, so an idle app holds no thread.
export const PDF_WORKER_IDLE_MS = 30_000;
// pdf.js's parsed objects for a 32 MiB document fit well below this; a runaway parse stops
// (ERR_WORKER_OUT_OF_MEMORY) instead of growing the heap.
export const PDF_WORKER_MAX_HEAP_MB = 512;
// The heap limit does not count ArrayBuffers, and pdf.js inflates a stream into one that doubles without a
// ceiling: 2 MB of Flate data made 2 GiB and 3.8 GiB of resident memory before the deadline. No pdf.js option
// bounds that (maxImageSize is for images, the others for range loading), so the process's resident set is
// watched while a document is read (rss-watchdog.ts) and a worker that adds more than this is ended, which
// returns its memory (see pdf-worker.ts for why that needs pdf.js's own decoder). Equal to the heap limit: a
// document allowed that much heap is allowed that much memory of any kind.
export const PDF_WORKER_MAX_MEMORY_MB = 512;
// pdf.js inflates a few hundred MiB a second: sampled this often, a document passes the limit by what it
// allocates in one interval (5-14 MiB measured with the 2 GiB bomb), for a read costing microseconds.
export const PDF_MEMORY_SAMPLE_MS = 10;
export const PDF_TOO_MUCH_MEMORY = `This PDF is too large to read (it needed over ${PDF_WORKER_MAX_MEMORY_MB} MiB of memory): no text preview.`;

// The worker exists only in the compiled build (dist/server/workspace/); from the TypeScript sources, as under
// the test runner, the text is read in-thread, through the same function. In the installed app it starts from
// app.asar.unpacked (see server/core/unpacked-path.ts).
const WORKER_NEXT_TO_US = new URL('./pdf-worker.js', import.meta.url);
const WORKER_PATH = WORKER_NEXT_TO_US.protocol === 'file:' ? unpackedPath(fileURLToPath(WORKER_NEXT_TO_US)) : null;
const USE_WORKER = WORKER_PATH !== null && existsSync(WORKER_PATH);

const limit = createLimiter(PDF_MAX_CONCURRENT);

/** An open PDF read page by page (the preview's summary with each page's text): what the agent and MCP get
 *  (server/agent/read/pdf.ts), through the same worker and limits as the preview. Never throws. */
export async function readPdfFile(file: Pick<OpenedFile, 'handle' | 'size'>, limits?: PdfLimits): Promise<PdfRead> {
  if (file.size > MAX_PDF_BYTES) return { note: PDF_TOO_LARGE };
  return readPdf(await readStart(file, MAX_PDF_BYTES), limits);
}

/** The summary of a PDF's bytes (at most MAX_PDF_BYTES). Never throws; `bytes` may be handed to the worker. */
export async function summarizePdf(bytes: Buffer): Promise<PdfSummary> {
  return previewOf(await readPdf(bytes));
}

/** A PDF's bytes (at most MAX_PDF_BYTES) read page by page. Never throws; `bytes` may be handed to the worker. */
export function readPdf(bytes: Buffer, limits?: PdfLimits): Promise<PdfRead> {
  return limit(() => (USE_WORKER ? inWorker(bytes, limits) : extractPdfText(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), limits)));
}

// Workers waiting for their next document, each with the timer that ends it when none comes.
const idle = new Map<OffThread, NodeJS.Timeout>();

function takeWorker(): OffThread {
  for (const [worker, timer] of idle) {
    idle.delete(worker);
    clearTimeout(timer);
    worker.ref();
    return worker;
  }
  const worker = startOffThread({
    script: { file: WORKER_PATH as string },
    maxHeapMb: PDF_WORKER_MAX_HEAP_MB,
    memory: { budgetBytes: PDF_WORKER_MAX_MEMORY_MB * 1024 * 1024, sampleMs: PDF_MEMORY_SAMPLE_MS },
    childHost: defaultChildHost(),
  });
  // A worker that dies while idle is only forgotten; while busy, the job's own listeners answer for it.
  worker.on('exit', () => {
    clearTimeout(idle.get(worker));
    idle.delete(worker);
  });
  return worker;
}

function putBack(worker: OffThread): void {
  // An idle worker does not keep the process alive.
  worker.unref();
  idle.set(
    worker,
    setTimeout(() => {
      idle.delete(worker);
      void worker.terminate();
    }, PDF_WORKER_IDLE_MS).unref(),
  );
}

/** One document in a worker. Whatever happens to it — a crash, running out of heap, memory or time — is a note. */
function inWorker(bytes: Buffer, limits?: PdfLimits): Promise<PdfRead> {
  // Moved, not copied, when the buffer owns its memory (readStart's result for a whole file does).
  const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  const data = owned ? new Uint8Array(bytes.buffer as ArrayBuffer) : new Uint8Array(bytes);
  const worker = takeWorker();
  return new Promise<PdfRead>((resolve) => {
    let settled = false;
    const finish = (summary: PdfRead, reuse: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off('message', onMessage).off('exit', onExit);
      if (reuse) {
        putBack(worker);
        resolve(summary);
        return;
      }
      // An ended worker's answer waits for its thread (or process) to be gone, and with it the memory it allocated:
      // the limiter's slot stays taken until then, so the next document's budget (counted from the resident set at
      // its start) never starts on top of the last one's 512 MiB. Tearing a thread down takes a few ms, longer on
      // a busy machine.
      void worker.terminate().then(() => resolve(summary));
    };
    const onMessage = (reply: PdfReply) => finish(reply.summary, true);
    const onExit = (why: OffThreadEnd) => finish({ note: why === 'memory' ? PDF_TOO_MUCH_MEMORY : PDF_UNREADABLE }, false);
    const timer = setTimeout(() => finish({ note: PDF_TIMED_OUT }, false), PDF_WORKER_TIMEOUT_MS);
    worker.on('message', onMessage).on('exit', onExit);
    worker.post({ bytes: data, ...(limits ? { limits } : {}) } satisfies PdfRequest, { job: true, transfer: [data.buffer as ArrayBuffer] });
  });
}
