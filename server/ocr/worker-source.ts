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
// Protocol: workerData { corePath, dataPath }; each message { id, image } (a grayscale PNG) is answered with
// { id, tsv } (Tesseract's TSV: one row per word with its confidence) or { id, error }.
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

parentPort.on('message', async ({ id, image }) => {
  try {
    const { module, api } = await load();
    module.FS.writeFile('/input', image);
    // 1: the image's own orientation (the PNG engine.ts writes has none to apply); 0: no rotation.
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
