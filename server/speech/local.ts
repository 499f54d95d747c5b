// The `local` speech provider: Moonshine tiny, on this machine, no network. The model is loaded lazily once
// per directory and kept; inferences run one at a time (each already uses a core, and a second model copy
// would double the memory), so concurrent callers queue.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { log } from '../core/log.js';
import { SETTINGS } from '../settings/table.js';
import { decodeToPcm16k, SAMPLE_RATE } from './audio.js';
import { isSilence, splitAtSilences } from './chunk.js';
import { DECODER_FILE, ENCODER_FILE, MoonshineModel } from './moonshine.js';
import { warmUpOpus } from './opus.js';

/** The model's files and their sha256 sums (scripts/fetch-model.mjs pins the same). */
export const MODEL_FILES: { name: string; sha256: string }[] = [
  { name: ENCODER_FILE, sha256: 'c6fc4b7bc5af75c0591fd157a1f3829b533d18e9769a888fd95a62e470dd4f4a' },
  { name: DECODER_FILE, sha256: 'eed87831c3a6103534aae7d47a5d485025c659a1323901513961c39fe8a1a367' },
];
/** Exact sizes of the verified files: the presence probe compares them instead of hashing 28 MB. */
export const MODEL_FILE_BYTES: Record<string, number> = {
  [ENCODER_FILE]: 7_937_661,
  [DECODER_FILE]: 20_243_286,
};
export const MODEL_DIR_ENV = SETTINGS.sttModelDir.env;
const MODEL_SUBDIR = path.join('models', 'moonshine-tiny');

/**
 * SATCHEL_STT_MODEL_DIR, else `models/moonshine-tiny` under Electron's resources folder in a packaged app
 * (electron-builder `extraResources`: ONNX Runtime cannot read from inside app.asar), else under the
 * repository root (the nearest folder above this module holding package.json).
 */
export function defaultModelDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env[MODEL_DIR_ENV]?.trim();
  if (fromEnv) return path.resolve(fromEnv);
  const resources = (process as { resourcesPath?: string }).resourcesPath;
  if (resources && !resources.includes('node_modules')) return path.join(resources, MODEL_SUBDIR);
  return repositoryModelDir();
}

// The repository root of this module does not move while it runs: found once, not on every capability probe.
let repositoryModelDirFound: string | undefined;

function repositoryModelDir(): string {
  if (repositoryModelDirFound) return repositoryModelDirFound;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return (repositoryModelDirFound = path.join(dir, MODEL_SUBDIR));
    const parent = path.dirname(dir);
    // Not remembered: the current directory it falls back on can change.
    if (parent === dir) return path.resolve(MODEL_SUBDIR);
    dir = parent;
  }
}

/** True when both model files exist with their expected sizes (cheap: no load, no hashing). */
export function isLocalModelPresent(modelDir: string): boolean {
  return MODEL_FILES.every(({ name }) => {
    try {
      // Asked on every capability probe: a missing file answers undefined instead of throwing (costly).
      const stat = fs.statSync(path.join(modelDir, name), { throwIfNoEntry: false });
      return stat !== undefined && stat.isFile() && stat.size === MODEL_FILE_BYTES[name];
    } catch {
      return false;
    }
  });
}

/** The model's files are not in the folder: a 503-class condition ("unavailable"), not a client mistake. */
export class LocalModelMissingError extends Error {
  constructor() {
    super('The on-device speech model is unavailable: its files are not installed');
    this.name = 'LocalModelMissingError';
  }
}

const models = new Map<string, Promise<MoonshineModel>>();

function loadModel(modelDir: string): Promise<MoonshineModel> {
  const key = path.resolve(modelDir);
  let model = models.get(key);
  if (!model) {
    if (!isLocalModelPresent(key)) return Promise.reject(new LocalModelMissingError());
    const started = Date.now();
    model = MoonshineModel.load(key).then(
      (loaded) => {
        log.info(`speech: Moonshine tiny loaded in ${Date.now() - started} ms`);
        return loaded;
      },
      (err: unknown) => {
        models.delete(key); // a failed load (e.g. files fetched meanwhile) is retried by the next call
        throw err;
      },
    );
    models.set(key, model);
  }
  return model;
}

/**
 * Start loading the model in the background (e.g. when the server starts and `local` is the provider), so
 * the first dictation does not wait for it. Resolves true once loaded, false when the files are missing or
 * the load failed (logged); never rejects. A later transcription reuses the same load.
 */
export async function preloadLocalModel(modelDir: string): Promise<boolean> {
  if (!isLocalModelPresent(modelDir)) return false;
  try {
    // Browser recordings are Opus: compile its decoder too, while the model loads.
    await Promise.all([loadModel(modelDir), warmUpOpus()]);
    return true;
  } catch (err) {
    log.warn('speech: preloading the on-device model failed:', err);
    return false;
  }
}

/** Release every loaded model (app shutdown, tests); the next transcription loads again. */
export async function unloadLocalModels(): Promise<void> {
  const loaded = [...models.values()];
  models.clear();
  // Behind the queue: a session is never released under a running inference.
  await exclusive(undefined, () => Promise.all(loaded.map((model) => model.then((m) => m.release(), () => undefined))));
}

// One inference at a time, in arrival order. A waiter whose signal aborts leaves the queue at once.
let queueTail: Promise<void> = Promise.resolve();

async function exclusive<T>(signal: AbortSignal | undefined, task: () => Promise<T>): Promise<T> {
  let release!: () => void;
  const turn = new Promise<void>((resolve) => (release = resolve));
  const previous = queueTail;
  queueTail = previous.then(() => turn);
  try {
    await abortable(previous, signal);
    throwIfAborted(signal);
    return await task();
  } finally {
    release();
  }
}

function abortable(promise: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return promise;
  throwIfAborted(signal);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new Error('Aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
    );
  });
}

function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason ?? new Error('Aborted');
}

/** Transcribe 16 kHz mono PCM. Long audio is cut at silences into pieces of at most 30 s. */
export async function transcribePcm(pcm: Float32Array, opts: { modelDir: string; signal?: AbortSignal }): Promise<string> {
  const { modelDir, signal } = opts;
  throwIfAborted(signal);
  if (isSilence(pcm, SAMPLE_RATE)) return '';
  return exclusive(signal, async () => {
    const model = await loadModel(modelDir);
    const texts: string[] = [];
    for (const piece of splitAtSilences(pcm, SAMPLE_RATE)) {
      throwIfAborted(signal);
      if (isSilence(piece, SAMPLE_RATE)) continue;
      const text = await model.transcribe(piece, signal);
      if (text) texts.push(text);
    }
    return texts.join(' ').trim();
  });
}

/** Decode an audio file (see audio.ts for the formats) and transcribe it. */
export async function transcribeLocalFile(filePath: string, opts: { modelDir: string; signal?: AbortSignal }): Promise<string> {
  const pcm = await decodeToPcm16k(filePath, { signal: opts.signal });
  return transcribePcm(pcm, opts);
}
