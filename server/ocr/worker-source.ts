// The OCR worker thread's code. It runs Tesseract's own WebAssembly build (tesseract.js-core) directly, not
// through tesseract.js's job queue: that queue spawns its own thread with no resource limits and fetches the
// language data from a CDN unless told otherwise, while here everything it loads is a file path given by
// engine.ts (workerData), so nothing can reach the network and the thread carries engine.ts's heap limit.
//
// It is a string evaluated as the worker's script (`new Worker(source, { eval: true })`) because a worker file
// would exist only in the compiled build: tests run the TypeScript sources, and the time and memory budgets
// must be proven on a real thread there too. The script only requires Node built-ins and the absolute paths
// it is handed, so where it is evaluated from does not matter.
//
// Protocol: workerData { corePath, dataPath, unpdfUrl, maxImagePixels }; each message is answered once, with
// { id, error } when it fails:
//   { id, op: 'image', image } (a grayscale PGM)      → { id, tsv } (Tesseract's TSV: one row per word, its confidence)
//   { op: 'load' }                                     → nothing: the core and model loaded ahead of a recognition
//   { id, op: 'pdf-page', pdf, page } (a PDF's bytes) → { id, pixels: { data, width, height, channels } | null }:
//     the largest image painted on that page (a scan's page image), decoded by pdf.js, without a canvas.
export const OCR_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { gunzipSync } = require('node:zlib');

// Tesseract's engine modes: 1 is the LSTM recognizer alone, the one the shipped core and data are built for.
const OEM_LSTM_ONLY = 1;
let ready;

function load() {
  ready ??= (async () => {
    const Core = require(workerData.corePath);
    const module = await Core({});
    let data = readFileSync(workerData.dataPath);
    if (data[0] === 0x1f && data[1] === 0x8b) data = gunzipSync(data);
    module.FS.writeFile('/eng.traineddata', data);
    const api = new module.TessBaseAPI();
    if (api.Init(null, 'eng', OEM_LSTM_ONLY) !== 0) throw new Error('Tesseract could not load its English data');
    return { module, api };
  })();
  return ready;
}

// pdf.js's ImageKind: 1 bit per pixel (rows padded to bytes, a set bit is white), RGB, RGBA.
const GRAYSCALE_1BPP = 1;
const RGB_24BPP = 2;
let pdfjs;

function loadPdfjs() {
  // As in the PDF preview worker (server/workspace/pdf-worker.ts): pdf.js's own inflate returns its memory
  // when this thread is ended for using too much, the native DecompressionStream's chunks do not.
  delete globalThis.DecompressionStream;
  pdfjs ??= import(workerData.unpdfUrl).then(async (unpdf) => ({ unpdf, OPS: (await unpdf.getResolvedPDFJS()).OPS }));
  return pdfjs;
}

function objectOf(page, name) {
  const objs = name.startsWith('g_') ? page.commonObjs : page.objs;
  return objs.has(name) ? objs.get(name) : undefined;
}

async function pageImage(pdf, number) {
  const { unpdf, OPS } = await loadPdfjs();
  const doc = await unpdf.getDocumentProxy(pdf, { isEvalSupported: false, isOffscreenCanvasSupported: false, verbosity: 0, maxImageSize: workerData.maxImagePixels });
  try {
    const page = await doc.getPage(number);
    const ops = await page.getOperatorList();
    let best;
    for (let i = 0; i < ops.fnArray.length; i++) {
      if (ops.fnArray[i] !== OPS.paintImageXObject) continue;
      const image = objectOf(page, ops.argsArray[i][0]);
      if (!image || !image.data || !image.width || !image.height) continue;
      if (!best || image.width * image.height > best.width * best.height) best = image;
    }
    if (!best) return null;
    const { width, height, kind } = best;
    if (kind === GRAYSCALE_1BPP) {
      const gray = new Uint8Array(width * height);
      const rowBytes = (width + 7) >> 3;
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) gray[y * width + x] = best.data[y * rowBytes + (x >> 3)] & (0x80 >> (x & 7)) ? 255 : 0;
      }
      return { data: gray, width, height, channels: 1 };
    }
    return { data: new Uint8Array(best.data), width, height, channels: kind === RGB_24BPP ? 3 : 4 };
  } finally {
    await doc.destroy();
  }
}

parentPort.on('message', async ({ id, op, image, pdf, page }) => {
  if (op === 'load') {
    // A failure here is met again, and answered, by the recognition that follows.
    load().catch(() => {});
    return;
  }
  try {
    if (op === 'pdf-page') {
      const pixels = await pageImage(pdf, page);
      parentPort.postMessage({ id, pixels }, pixels ? [pixels.data.buffer] : []);
      return;
    }
    const { module, api } = await load();
    module.FS.writeFile('/input', image);
    // 1: the image's own orientation (the PGM engine.ts writes has none to apply); 0: no rotation.
    if (api.SetImageFile(1, 0) === 1) throw new Error('Tesseract could not read the image');
    api.Recognize(null);
    const tsv = api.GetTSVText(0);
    api.Clear();
    module.FS.unlink('/input');
    parentPort.postMessage({ id, tsv });
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
`;
