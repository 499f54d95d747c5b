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
// The image is prepared here too (sharp: decoded, oriented, flattened, grayscale, scaled), not in the server: the
// native memory libvips allocates for a page's pixels then stays in this thread's process, which under Node is a
// child that ends when idle (workspace/off-thread.ts; docs/benchmarks.md, issue 37 finding 8).
//
// Pages are read in Tesseract's automatic page segmentation (PSM 3), as the tesseract CLI reads them: the API's own
// default (a single block of text, PSM 6) ran a screenshot's sidebar, buttons and body together and missed words
// the CLI reads at the same pixels. Each image is read at its own pixels; only when the layout's median text line
// is shorter than smallTextLinePx (text too small for the LSTM model) is it prepared again at upscaleFactor and
// read at that size (issue 37, finding 9: docs/benchmarks.md).
//
// Protocol: workerData { corePath, dataPath, unpdfUrl, sharpPath (null: no image library in this build),
// maxImagePixels, prepare: { maxEdge, upscaleBelowEdge, upscaleFactor, smallTextLinePx, timeoutSeconds } }; each message is
// answered once, with { id, error } when the engine fails and { id, refused } (a sentence for the person) when the
// input is not an image it may read:
//   { id, op: 'image', image } (an encoded image)      → { id, tsv } (Tesseract's TSV: one row per word, its confidence)
//   { id, op: 'pixels', pixels: { data, width, height, channels } } → { id, tsv }
//   { op: 'load' }                                     → nothing: the core and model loaded ahead of a recognition
//   { id, op: 'pdf-page', pdf, page } (a PDF's bytes) → { id, tsv }: the largest image painted on that page (a
//     scan's page image), decoded by pdf.js without a canvas, then read; '' when the page paints no image.
//   { id, op: 'agent-image', image } → the image an agent gets (image/agent-image-source.ts, appended to this script)
export const OCR_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { gunzipSync } = require('node:zlib');

// Tesseract's engine modes: 1 is the LSTM recognizer alone, the one the shipped core and data are built for.
const OEM_LSTM_ONLY = 1;
// Page segmentation: 3 is fully automatic (columns, blocks, lines found by the layout), the tesseract CLI's default.
const PSM_AUTO = 3;
// PageIteratorLevel: a line of text.
const RIL_TEXTLINE = 2;
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
    api.SetPageSegMode(PSM_AUTO);
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

// Why an input is not read, in the words the person sees (engine.ts hands them on as they are).
class Refusal extends Error {}
let sharpLib;

function loadSharp() {
  if (sharpLib === undefined) {
    try {
      sharpLib = workerData.sharpPath ? require(workerData.sharpPath) : null;
      // One image at a time: libvips' operation cache would only hold memory.
      if (sharpLib) sharpLib.cache(false);
    } catch {
      sharpLib = null;
    }
  }
  return sharpLib;
}

// The grayscale image Tesseract gets: oriented, flattened on white (transparent screenshots), within bounds, as a
// binary PGM (P5): leptonica reads it as it stands, where a PNG cost sharp a deflate and the WebAssembly core an
// inflate of the same pixels (~10 % of a page's CPU; the pixels, and so the text, are the same: engine.test.ts).
// upscale: whether to scale an image under upscaleBelowEdge up by upscaleFactor (its text found too small).
async function prepare(bytes, raw, upscale) {
  const sharp = loadSharp();
  if (!sharp) throw new Refusal('no image library in this build to read the image with');
  const limit = workerData.maxImagePixels;
  const p = workerData.prepare;
  const open = () =>
    raw
      ? sharp(Buffer.from(raw.data.buffer, raw.data.byteOffset, raw.data.byteLength), { raw: { width: raw.width, height: raw.height, channels: raw.channels }, limitInputPixels: limit })
      : sharp(bytes, { limitInputPixels: limit, failOn: 'error', animated: false });
  let width;
  let height;
  if (raw) {
    ({ width, height } = raw);
  } else {
    let meta;
    try {
      // The header alone, without the pixel limit, to name the numbers when they are over it.
      meta = await sharp(bytes, { limitInputPixels: false, failOn: 'error' }).metadata();
    } catch {
      throw new Refusal('not a readable image');
    }
    width = (meta.autoOrient && meta.autoOrient.width) || meta.width || 0;
    height = (meta.autoOrient && meta.autoOrient.height) || meta.height || 0;
  }
  if (!width || !height) throw new Refusal('not a readable image (no dimensions)');
  if (width * height > limit) throw new Refusal('too large to read (' + width + '×' + height + ' pixels)');
  const longest = Math.max(width, height);
  const scale = upscale ? Math.min(p.upscaleFactor, p.maxEdge / longest) : Math.min(1, p.maxEdge / longest);
  const edge = Math.max(1, Math.round(longest * scale));
  try {
    const gray = open()
      .timeout({ seconds: p.timeoutSeconds })
      .rotate()
      .flatten({ background: '#ffffff' })
      .grayscale()
      .resize({ width: edge, height: edge, fit: 'inside', kernel: 'lanczos3' });
    const { data, info } = await gray.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    // One 8-bit channel is what grayscale() gives; anything else is handed over as a PNG.
    if (info.channels !== 1 || data.length !== info.width * info.height) return await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).png({ compressionLevel: 1 }).toBuffer();
    return Buffer.concat([Buffer.from('P5\n' + info.width + ' ' + info.height + '\n255\n', 'latin1'), data]);
  } catch {
    throw new Refusal('not a readable image');
  }
}

// The median height in pixels of the text lines the layout found (0 when it found none).
function medianLineHeight(module, api) {
  const lines = api.AnalyseLayout();
  if (!lines || module.getPointer(lines) === 0) return 0;
  const box = module._malloc(16);
  const heights = [];
  try {
    lines.Begin();
    do {
      if (lines.BoundingBox(RIL_TEXTLINE, box, box + 4, box + 8, box + 12)) heights.push(module.getValue(box + 12, 'i32') - module.getValue(box + 4, 'i32'));
    } while (lines.Next(RIL_TEXTLINE));
  } finally {
    module._free(box);
    module.destroy(lines);
  }
  heights.sort((a, b) => a - b);
  return heights.length ? heights[heights.length >> 1] : 0;
}

// The page's TSV, or null when mayUpscale and its text is too small to read at these pixels: the layout found
// here is then the only work spent (the recognition reuses it otherwise).
async function recognize(image, mayUpscale) {
  const { module, api } = await load();
  module.FS.writeFile('/input', image);
  try {
    // 1: the image's own orientation (the PGM prepare() writes has none to apply); 0: no rotation.
    if (api.SetImageFile(1, 0) === 1) throw new Error('Tesseract could not read the image');
    if (mayUpscale) {
      const line = medianLineHeight(module, api);
      if (line > 0 && line < workerData.prepare.smallTextLinePx) return null;
    }
    api.Recognize(null);
    return api.GetTSVText(0);
  } finally {
    api.Clear();
    module.FS.unlink('/input');
  }
}

// Read at its own pixels; again at upscaleFactor when small (under upscaleBelowEdge) and its text lines short.
async function read(bytes, raw) {
  let width = raw ? raw.width : 0;
  let height = raw ? raw.height : 0;
  const prepared = await prepare(bytes, raw, false);
  if (!raw) ({ width, height } = pgmSize(prepared));
  const mayUpscale = width > 0 && Math.max(width, height) < workerData.prepare.upscaleBelowEdge;
  const tsv = await recognize(prepared, mayUpscale);
  return tsv ?? (await recognize(await prepare(bytes, raw, true), false));
}

// The size written in a prepared image's PGM header (0×0 for the PNG fallback: it is then never scaled up).
function pgmSize(image) {
  const head = /^P5\n(\d+) (\d+)\n/.exec(image.subarray(0, 32).toString('latin1'));
  return head ? { width: Number(head[1]), height: Number(head[2]) } : { width: 0, height: 0 };
}

parentPort.on('message', async ({ id, op, image, pixels, pdf, page }) => {
  if (op === 'load') {
    // A failure here is met again, and answered, by the recognition that follows.
    load().catch(() => {});
    return;
  }
  try {
    if (op === 'agent-image') {
      // Defined by image/agent-image-source.ts, which engine.ts appends to this script.
      return void parentPort.postMessage({ id, ...(await agentImage(Buffer.from(image.buffer, image.byteOffset, image.byteLength))) });
    }
    let tsv;
    if (op === 'pdf-page') {
      const found = await pageImage(pdf, page);
      if (!found) return void parentPort.postMessage({ id, tsv: '' });
      tsv = await read(undefined, found);
    } else if (op === 'pixels') {
      tsv = await read(undefined, pixels);
    } else {
      tsv = await read(Buffer.from(image.buffer, image.byteOffset, image.byteLength), undefined);
    }
    parentPort.postMessage({ id, tsv });
  } catch (err) {
    if (err instanceof Refusal) parentPort.postMessage({ id, refused: err.message });
    else parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
`;
