// On-device OCR (issue 25): Tesseract's LSTM recognizer compiled to WebAssembly (tesseract.js-core) with the
// English "best_int" model from the npm registry (@tesseract.js-data/eng), both read from node_modules, so
// nothing is downloaded at run time and no cache is written. One worker thread, started on first use, does the
// recognition; one image at a time, each within a time and a memory budget (the worker is ended past either),
// and the worker ends after a while unused. Under Node the thread runs in a child process of its own
// (workspace/off-thread.ts), so the native memory a recognition leaves in the allocator leaves with it. Input is
// decoded by sharp first, in the same worker (worker-source.ts), within the same pixel limit as images handed to
// agents, and turned into the grayscale image Tesseract reads best.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { unpackedPath } from '../core/unpacked-path.js';
import { AGENT_IMAGE_WORKER_LIMITS, MAX_IMAGE_INPUT_PIXELS, IMAGE_RESIZE_TIMEOUT_SECONDS } from '../image/limits.js';
import { AGENT_IMAGE_WORKER_SOURCE } from '../image/agent-image-source.js';
import { createLimiter } from '../core/limiter.js';
import { defaultChildHost, startOffThread, type OffThread, type OffThreadEnd } from '../workspace/off-thread.js';
import { OCR_WORKER_SOURCE } from './worker-source.js';
import { textFromTsv, type RecognizedText } from './tsv.js';

export type { RecognizedText } from './tsv.js';

/** One recognition at a time: Tesseract keeps a core busy for a second or more per page, and the machine's other
 *  cores serve the app. Others wait their turn. */
export const OCR_MAX_CONCURRENT = 1;
/** A page of body text takes 2-3 s of CPU, 4-8 s on this shared, loaded machine (docs/benchmarks.md, "On-device
 *  OCR"); past this the image is hostile or pathological (noise Tesseract segments into thousands of "words")
 *  and the worker is ended. */
export const OCR_TIMEOUT_MS = 45_000;
/** The first recognition also compiles the WebAssembly core and unpacks the model (about 1 s of CPU, up to 5 s
 *  on the loaded machine). */
export const OCR_LOAD_TIMEOUT_MS = 20_000;
/** A warm worker skips that load; one unused this long exits, so an idle app holds neither the thread nor the
 *  model's ~100 MiB. */
export const OCR_WORKER_IDLE_MS = 60_000;
/** The worker's JavaScript heap (Tesseract's own memory is WebAssembly memory, watched below). */
export const OCR_WORKER_MAX_HEAP_MB = 128;
/** What one recognition may add to the process's resident set: the model, pdf.js and a 300 dpi page measured
 *  +345 MiB at the peak of bench/ocr.mjs (its own rendering included); a worker past this is ended
 *  (rss-watchdog.ts, as PDF previews do). */
export const OCR_MAX_MEMORY_MB = 512;
/** How often the resident set is sampled during a recognition. */
export const OCR_MEMORY_SAMPLE_MS = 20;
/** Longest edge of the image Tesseract gets: a letter page at 300 dpi is 3300 px; larger scans are scaled down
 *  (text at that size stays far above the height Tesseract needs) to bound time and memory. */
export const OCR_MAX_EDGE = 3500;
/** Only images whose longest edge is under this may be scaled up (when their text is small, below): larger ones
 *  are read at their own pixels, which bounds the time a page can take. */
export const OCR_UPSCALE_BELOW_EDGE = 1400;
/** A small image is read again at OCR_UPSCALE_FACTOR when the median line of text its layout finds is shorter than
 *  this: Tesseract's LSTM model misreads text much smaller. A 1280×800 screenshot's 13 px UI text (lines 13 px)
 *  reads as well at its own pixels in the CLI's page segmentation as the tesseract CLI reads it (word recall 0.964),
 *  at under half the CPU of reading it at 2×; the same screenshot shrunk to 10 px text recalls 0.953 as it is and
 *  1.000 at 2×, to 8 px text 0.107 and 1.000 (docs/benchmarks.md, issue 37 finding 9, session 16). */
export const OCR_SMALL_TEXT_LINE_PX = 12;
/** The factor applied to those images (bounded by OCR_MAX_EDGE). */
export const OCR_UPSCALE_FACTOR = 2;
/** A scanned PDF page is two steps in one job (pdf.js decodes its image, then it is read): it gets the time of
 *  both, as when they were two jobs. */
const PDF_PAGE_STEPS = 2;

/** Why an image could not be read, in words a person or an agent can act on. */
export class OcrError extends Error {}

// The errors that are the worker's own sentence about the input (not an image it may read), as against the engine
// failing (time, memory, a crash). Kept apart so an OcrError stays the plain error it always was.
const refusals = new WeakSet<OcrError>();
const refusal = (message: string): OcrError => {
  const err = new OcrError(message);
  refusals.add(err);
  return err;
};

/** Whether `err` is the worker's refusal of the input, in its own words (image/downscale.ts passes those on). */
export function isRefusal(err: OcrError): boolean {
  return refusals.has(err);
}

/** An agent's image as the worker made it (image/agent-image-source.ts; image/downscale.ts turns it into an
 *  AgentImage): no image library, the person's bytes kept as they are, or a new encoding. */
export type AgentImageMade =
  | { none: true }
  | { keep: true; mime: string; width: number; height: number }
  | { image: Uint8Array; mime: string; width: number; height: number; originalWidth: number; originalHeight: number };

export interface OcrEngineOptions {
  timeoutMs?: number;
  loadTimeoutMs?: number;
  idleMs?: number;
  maxMemoryMb?: number;
  /** The compiled off-thread host to run the worker in a child process, null for a thread of this process
   *  (default: workspace/off-thread.ts defaultChildHost()). */
  childHost?: string | null;
}

export interface OcrEngine {
  /** The text in an encoded image (PNG, JPEG, WebP, GIF, TIFF, …). Throws OcrError. */
  recognizeImage(bytes: Buffer): Promise<RecognizedText>;
  /** The text in raw pixels (1-4 channels, 8 bits each), as a PDF's page images are. Throws OcrError. */
  recognizePixels(pixels: RawPixels): Promise<RecognizedText>;
  /** The text of one page of a PDF (1-based), read from the largest image painted on it (a scan), or no words
   *  when it paints none. Both steps run in the worker within the time and memory budgets. Throws OcrError. */
  recognizePdfPage(pdf: Uint8Array, page: number): Promise<RecognizedText>;
  /** The image an agent gets of `bytes` (image/downscale.ts), made in the same worker. Throws OcrError: a refusal
   *  (isRefusal) with downscale's sentence for an input it will not decode, otherwise the engine's failure. */
  agentImage(bytes: Buffer): Promise<AgentImageMade>;
  /** Starts the worker and loads the core and model now, so a recognition asked for soon (an image being read)
   *  finds them ready: the load overlaps the caller's own work. Ends after the idle time like a used worker. */
  warm(): void;
  /** Ends the worker now (tests, shutdown). */
  close(): Promise<void>;
  /** Whether a worker thread exists now (between recognitions: until OCR_WORKER_IDLE_MS have passed). */
  readonly running: boolean;
  /** The child process running the worker now, if there is one (tests). */
  readonly pid: number | undefined;
}

export interface RawPixels {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

const require = createRequire(import.meta.url);

/** The files the worker loads, by absolute path: in the installed app their app.asar.unpacked copies
 *  (electron-builder.yml unpacks them: the WebAssembly core reads its .wasm beside it with plain fs). */
export function ocrFiles(): { corePath: string; dataPath: string; unpdfUrl: string; sharpPath: string | null } {
  // By each package's folder, not the file itself: in the installed app the file exists only in the unpacked copy.
  const coreDir = path.dirname(require.resolve('tesseract.js-core/package.json'));
  const corePath = unpackedPath(path.join(coreDir, 'tesseract-core-simd-lstm.js'));
  const dataDir = path.dirname(require.resolve('@tesseract.js-data/eng/package.json'));
  const dataPath = unpackedPath(path.join(dataDir, '4.0.0_best_int', 'eng.traineddata.gz'));
  // pdf.js for scanned PDF pages (unpacked for the PDF preview worker already).
  const unpdfUrl = pathToFileURL(unpackedPath(path.join(path.dirname(require.resolve('unpdf')), 'index.mjs'))).href;
  return { corePath, dataPath, unpdfUrl, sharpPath: sharpFile() };
}

/** sharp's entry for the worker, unpacked (electron-builder.yml unpacks sharp and its @img binding), or null when
 *  this build has none: the worker then refuses images with a sentence, as the server did. */
function sharpFile(): string | null {
  try {
    return unpackedPath(require.resolve('sharp'));
  } catch {
    return null;
  }
}

interface Reply {
  id: number;
  tsv?: string;
  /** An agent's image (op 'agent-image'): the fields of AgentImageMade. */
  none?: true;
  keep?: true;
  image?: Uint8Array;
  mime?: string;
  width?: number;
  height?: number;
  originalWidth?: number;
  originalHeight?: number;
  /** The engine failed. */
  error?: string;
  /** The input is not an image it may read: the sentence for the person, as it stands. */
  refused?: string;
}

type Request = { op: 'image'; image: Uint8Array } | { op: 'pixels'; pixels: RawPixels } | { op: 'pdf-page'; pdf: Uint8Array; page: number } | { op: 'agent-image'; image: Uint8Array };

/** What a failed job is called, by what it was doing (the agent's image is not a recognition). */
function failureWords(op: Request['op']): { took: string; memory: string; crash: string; failed: string } {
  if (op === 'agent-image') return { took: 'the image took too long', memory: 'the image needed too much memory', crash: 'the image worker stopped unexpectedly', failed: 'the image worker failed' };
  return { took: 'text recognition took too long', memory: 'text recognition needed too much memory', crash: 'text recognition stopped unexpectedly', failed: 'text recognition failed' };
}

export function createOcrEngine(options: OcrEngineOptions = {}): OcrEngine {
  const timeoutMs = options.timeoutMs ?? OCR_TIMEOUT_MS;
  const loadTimeoutMs = options.loadTimeoutMs ?? OCR_LOAD_TIMEOUT_MS;
  const idleMs = options.idleMs ?? OCR_WORKER_IDLE_MS;
  const limit = createLimiter(OCR_MAX_CONCURRENT);
  const maxMemoryMb = options.maxMemoryMb ?? OCR_MAX_MEMORY_MB;
  const childHost = options.childHost === undefined ? defaultChildHost() : options.childHost;
  let worker: OffThread | undefined;
  let warm = false;
  let idleTimer: NodeJS.Timeout | undefined;
  let nextId = 1;
  // Workers started and not yet exited (an ended worker until its thread or process is really gone).
  const alive = new Set<OffThread>();

  const end = async () => {
    clearTimeout(idleTimer);
    const w = worker;
    worker = undefined;
    warm = false;
    if (w) await w.terminate();
  };

  const start = (): OffThread => {
    const w = startOffThread({
      script: { source: OCR_WORKER_SOURCE + AGENT_IMAGE_WORKER_SOURCE },
      workerData: {
        ...ocrFiles(),
        maxImagePixels: MAX_IMAGE_INPUT_PIXELS,
        prepare: { maxEdge: OCR_MAX_EDGE, upscaleBelowEdge: OCR_UPSCALE_BELOW_EDGE, upscaleFactor: OCR_UPSCALE_FACTOR, smallTextLinePx: OCR_SMALL_TEXT_LINE_PX, timeoutSeconds: IMAGE_RESIZE_TIMEOUT_SECONDS },
        agentImage: AGENT_IMAGE_WORKER_LIMITS,
      },
      maxHeapMb: OCR_WORKER_MAX_HEAP_MB,
      memory: { budgetBytes: maxMemoryMb * 1024 * 1024, sampleMs: OCR_MEMORY_SAMPLE_MS },
      childHost,
    });
    alive.add(w);
    w.on('exit', () => {
      alive.delete(w);
      if (worker === w) {
        worker = undefined;
        warm = false;
      }
    });
    return w;
  };

  const run = (request: Request): Promise<Reply> => {
    clearTimeout(idleTimer);
    worker ??= start();
    const w = worker;
    w.ref();
    const budget = timeoutMs * (request.op === 'pdf-page' ? PDF_PAGE_STEPS : 1) + (warm ? 0 : loadTimeoutMs);
    const id = nextId++;
    const words = failureWords(request.op);
    return new Promise<Reply>((resolve, reject) => {
      let settled = false;
      const finish = (error: OcrError | undefined, reply: Reply | undefined, keep: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        w.off('message', onMessage).off('exit', onExit);
        const answer = () => (error || !reply ? reject(error) : resolve(reply));
        if (keep) {
          // Only a recognition proves Tesseract loaded; an agent's image alone does not load it.
          if (request.op !== 'agent-image') warm = true;
          w.unref();
          idleTimer = setTimeout(() => void end(), idleMs).unref();
          answer();
          return;
        }
        // The next recognition's memory budget starts from the resident set at its start: the ended thread's
        // memory is returned first.
        if (worker === w) worker = undefined;
        warm = false;
        void w.terminate().then(answer);
      };
      const onMessage = (reply: Reply) => {
        if (reply.id !== id) return;
        if (reply.refused !== undefined) finish(refusal(reply.refused), undefined, true);
        else if (reply.error !== undefined) finish(new OcrError(`${words.failed} (${reply.error.slice(0, 200)})`), undefined, true);
        else finish(undefined, reply, true);
      };
      const onExit = (why: OffThreadEnd) => finish(new OcrError(why === 'memory' ? `${words.memory} (over ${maxMemoryMb} MiB)` : words.crash), undefined, false);
      const timer = setTimeout(() => finish(new OcrError(`${words.took} (over ${Math.round(budget / 1000)} s)`), undefined, false), budget);
      w.on('message', onMessage).on('exit', onExit);
      w.post({ id, ...request }, { job: true });
    });
  };

  // Copies: the worker takes what it is sent (moved, not copied, to its thread), the caller keeps its own bytes.
  const ocr = async (request: Request) => textFromTsv((await run(request)).tsv ?? '');

  return {
    recognizeImage: (bytes) => limit(() => ocr({ op: 'image', image: new Uint8Array(bytes) })),
    recognizePixels: (pixels) => limit(() => ocr({ op: 'pixels', pixels: { ...pixels, data: new Uint8Array(pixels.data) } })),
    recognizePdfPage: (pdf, page) => limit(() => ocr({ op: 'pdf-page', pdf: new Uint8Array(pdf), page })),
    agentImage: (bytes) =>
      limit(async () => {
        const { id: _id, tsv: _tsv, error: _error, refused: _refused, ...made } = await run({ op: 'agent-image', image: new Uint8Array(bytes) });
        return made as AgentImageMade;
      }),
    warm() {
      if (worker) return;
      const w = (worker = start());
      w.post({ op: 'load' });
      w.unref();
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => void end(), idleMs).unref();
    },
    close: end,
    get running() {
      return alive.size > 0;
    },
    get pid() {
      return worker?.pid;
    },
  };
}

let shared: OcrEngine | undefined;

/** The app's one OCR engine (its worker starts on first use). */
export function ocrEngine(): OcrEngine {
  shared ??= createOcrEngine();
  return shared;
}
