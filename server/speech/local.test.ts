import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeToPcm16k, SAMPLE_RATE } from './audio.js';
import { MAX_CHUNK_SECONDS } from './chunk.js';
import {
  defaultModelDir,
  isLocalModelPresent,
  LocalModelMissingError,
  MODEL_FILE_BYTES,
  MODEL_FILES,
  preloadLocalModel,
  transcribeLocalFile,
  transcribePcm,
  unloadLocalModels,
} from './local.js';
import { MoonshineModel } from './moonshine.js';
import { concat, missingTools, SENTENCES, silence, synthEspeak, synthFlite, toWebmOpus, which } from './testing/synth.js';
import { wordErrorRate } from './testing/wer.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let dir = '';
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-local-'));
});
afterAll(async () => {
  await unloadLocalModels();
  await fs.rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('model location and presence', () => {
  it('pins the same files and sums as scripts/fetch-model.mjs', async () => {
    const script = await fs.readFile(path.join(repoRoot, 'scripts', 'fetch-model.mjs'), 'utf8');
    expect(MODEL_FILES.map((f) => f.name)).toEqual(['encoder_model.onnx', 'decoder_model_merged.onnx']);
    for (const file of MODEL_FILES) expect(script).toContain(`{ name: '${file.name}', sha256: '${file.sha256}' }`);
  });

  it('takes SATCHEL_STT_MODEL_DIR, else models/moonshine-tiny at the repository root', () => {
    expect(defaultModelDir({ SATCHEL_STT_MODEL_DIR: '/opt/stt/model' })).toBe(path.resolve('/opt/stt/model'));
    expect(defaultModelDir({ SATCHEL_STT_MODEL_DIR: '  ' })).toBe(path.join(repoRoot, 'models', 'moonshine-tiny'));
    expect(defaultModelDir({})).toBe(path.join(repoRoot, 'models', 'moonshine-tiny'));
  });

  it('is absent for a missing folder, a missing file or a file of the wrong size', async () => {
    const fake = path.join(dir, 'fake-model');
    expect(isLocalModelPresent(fake)).toBe(false);
    await fs.mkdir(fake);
    const [encoder, decoder] = MODEL_FILES.map((f) => f.name) as [string, string];
    await fs.writeFile(path.join(fake, encoder), Buffer.alloc(MODEL_FILE_BYTES[encoder] as number));
    expect(isLocalModelPresent(fake)).toBe(false);
    await fs.writeFile(path.join(fake, decoder), Buffer.alloc(10)); // a truncated download
    expect(isLocalModelPresent(fake)).toBe(false);
    await fs.writeFile(path.join(fake, decoder), Buffer.alloc(MODEL_FILE_BYTES[decoder] as number));
    expect(isLocalModelPresent(fake)).toBe(true);
  });
});

const modelDir = defaultModelDir();
const present = isLocalModelPresent(modelDir);
const missing = missingTools('flite', 'espeak-ng', 'ffmpeg');
const skipReason = !present
  ? `no model in ${modelDir} (run node scripts/fetch-model.mjs)`
  : missing.length > 0
    ? `missing ${missing.join(', ')}`
    : '';
if (skipReason) console.log(`local.test: skipping transcription tests: ${skipReason}`);

/** flite/espeak-ng clips measured to come back within the WER bound (output is deterministic). */
const CLIPS: { engine: 'flite' | 'espeak'; voice: string; sentence: number }[] = [
  { engine: 'flite', voice: 'slt', sentence: 1 },
  { engine: 'flite', voice: 'slt', sentence: 2 },
  { engine: 'flite', voice: 'rms', sentence: 3 },
  { engine: 'flite', voice: 'kal16', sentence: 0 },
  { engine: 'flite', voice: 'awb', sentence: 6 },
  { engine: 'espeak', voice: 'en-us', sentence: 1 },
  { engine: 'espeak', voice: 'en-us', sentence: 6 },
];
const MAX_WER = 0.25;
// Model tests take seconds on an idle core; on a shared CI machine they may take several times as long.
const MODEL_TEST_TIMEOUT_MS = 180_000;

async function synth(engine: 'flite' | 'espeak', voice: string, text: string, name: string): Promise<string> {
  const file = path.join(dir, name);
  if (engine === 'flite') await synthFlite(text, voice, file);
  else await synthEspeak(text, voice, file);
  return file;
}

describe.skipIf(skipReason !== '')('transcription with Moonshine tiny', { timeout: MODEL_TEST_TIMEOUT_MS }, () => {
  it('loads the model once for three concurrent callers and runs one inference at a time', async () => {
    await unloadLocalModels();
    const load = vi.spyOn(MoonshineModel, 'load');
    const original = MoonshineModel.prototype.generate;
    let active = 0;
    let maxActive = 0;
    vi.spyOn(MoonshineModel.prototype, 'generate').mockImplementation(async function (this: MoonshineModel, ...args) {
      active++;
      maxActive = Math.max(maxActive, active);
      try {
        return await original.apply(this, args);
      } finally {
        active--;
      }
    });
    const texts = [SENTENCES[1], SENTENCES[2], SENTENCES[6]];
    const files = await Promise.all(texts.map((t, i) => synth('flite', 'slt', t, `concurrent-${i}.wav`)));
    const results = await Promise.all(files.map((f) => transcribeLocalFile(f, { modelDir })));
    expect(load).toHaveBeenCalledTimes(1);
    expect(maxActive).toBe(1);
    results.forEach((text, i) => expect(wordErrorRate(texts[i] as string, text), text).toBeLessThanOrEqual(MAX_WER));
  });

  it('preloads in the background, and the first transcription reuses that load', async () => {
    await unloadLocalModels();
    const load = vi.spyOn(MoonshineModel, 'load');
    expect(await preloadLocalModel(path.join(dir, 'nothing'))).toBe(false);
    expect(load).not.toHaveBeenCalled();
    expect(await preloadLocalModel(modelDir)).toBe(true);
    const file = await synth('flite', 'slt', SENTENCES[2] as string, 'preloaded.wav');
    expect(wordErrorRate(SENTENCES[2] as string, await transcribeLocalFile(file, { modelDir }))).toBeLessThanOrEqual(MAX_WER);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it.each(CLIPS)('transcribes $engine $voice sentence $sentence within the WER bound', async ({ engine, voice, sentence }) => {
    const reference = SENTENCES[sentence] as string;
    const file = await synth(engine, voice, reference, `${engine}-${voice}-${sentence}.wav`);
    const text = await transcribeLocalFile(file, { modelDir });
    expect(wordErrorRate(reference, text), `"${text}"`).toBeLessThanOrEqual(MAX_WER);
  });

  it('transcribes a browser-style WebM/Opus recording with ffmpeg hidden from PATH', async () => {
    const reference = 'Can you tell me how long it takes to drive to the airport?';
    const wav = await synth('espeak', 'en-us', reference, 'browser.wav');
    const webm = path.join(dir, 'recording.webm');
    await toWebmOpus(wav, webm);
    const saved = process.env.PATH;
    process.env.PATH = path.join(dir, 'no-bin');
    try {
      expect(which('ffmpeg')).toBeUndefined();
      const text = await transcribeLocalFile(webm, { modelDir });
      expect(wordErrorRate(reference, text), `"${text}"`).toBeLessThanOrEqual(MAX_WER);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('transcribes a WebM/Opus file recorded by Chromium MediaRecorder (fixture), with ffmpeg hidden', async () => {
    const fixture = path.join(repoRoot, 'server', 'speech', 'testing', 'fixtures', 'chromium-opus.webm');
    const saved = process.env.PATH;
    process.env.PATH = path.join(dir, 'no-bin');
    try {
      const text = await transcribeLocalFile(fixture, { modelDir });
      expect(wordErrorRate('Please open the settings window and change the language to English.', text), `"${text}"`).toBeLessThanOrEqual(MAX_WER);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('cuts audio longer than 30 s at pauses and joins the pieces with spaces', async () => {
    const sentences = SENTENCES.slice(1, 11);
    const parts: Float32Array[] = [];
    for (const [i, sentence] of sentences.entries()) {
      parts.push(await decodeToPcm16k(await synth('flite', 'slt', sentence, `long-${i}.wav`)), silence(0.8));
    }
    const pcm = concat(parts);
    expect(pcm.length / SAMPLE_RATE).toBeGreaterThan(35);
    const generate = vi.spyOn(MoonshineModel.prototype, 'generate');
    const text = await transcribePcm(pcm, { modelDir });
    expect(generate.mock.calls.length).toBeGreaterThanOrEqual(2);
    for (const [piece] of generate.mock.calls) expect(piece.length).toBeLessThanOrEqual(MAX_CHUNK_SECONDS * SAMPLE_RATE);
    expect(text).not.toMatch(/\s{2}/);
    expect(wordErrorRate(sentences.join(' '), text), `"${text}"`).toBeLessThanOrEqual(MAX_WER);
  });

  it('unloads only after the running inference finishes', async () => {
    const file = await synth('flite', 'slt', SENTENCES[6] as string, 'unload.wav');
    const running = transcribeLocalFile(file, { modelDir });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await unloadLocalModels();
    expect(wordErrorRate(SENTENCES[6] as string, await running)).toBeLessThanOrEqual(MAX_WER);
  });

  it('returns an empty transcript for silence without running the model', async () => {
    const generate = vi.spyOn(MoonshineModel.prototype, 'generate');
    expect(await transcribePcm(silence(3), { modelDir })).toBe('');
    expect(generate).not.toHaveBeenCalled();
  });

  it('lets a queued caller give up while another transcription runs', async () => {
    const first = await synth('flite', 'rms', SENTENCES[4] as string, 'queue-first.wav');
    const second = await synth('flite', 'rms', SENTENCES[5] as string, 'queue-second.wav');
    const running = transcribeLocalFile(first, { modelDir });
    const controller = new AbortController();
    const queued = transcribeLocalFile(second, { modelDir, signal: controller.signal });
    let firstDone = false;
    void running.then(() => (firstDone = true));
    setTimeout(() => controller.abort(new Error('client closed the connection')), 20);
    await expect(queued).rejects.toThrow('client closed the connection');
    expect(firstDone).toBe(false);
    expect(wordErrorRate(SENTENCES[4] as string, await running)).toBeLessThanOrEqual(MAX_WER);
    // The queue is not stuck behind the abandoned caller.
    expect(wordErrorRate(SENTENCES[5] as string, await transcribeLocalFile(second, { modelDir }))).toBeLessThanOrEqual(MAX_WER);
  });

  it('rejects a folder without the model as unavailable, then works again with the right one', async () => {
    const tone = Float32Array.from({ length: 16000 }, (_, i) => 0.2 * Math.sin(i / 7));
    await expect(transcribePcm(tone, { modelDir: path.join(dir, 'nothing') })).rejects.toThrow(
      new LocalModelMissingError(),
    );
    // Files of the right size that are not a model: ONNX Runtime's load error, and no cached broken model.
    const fake = path.join(dir, 'corrupt-model');
    await fs.mkdir(fake);
    for (const { name } of MODEL_FILES) await fs.writeFile(path.join(fake, name), Buffer.alloc(MODEL_FILE_BYTES[name] as number));
    const load = vi.spyOn(MoonshineModel, 'load');
    await expect(transcribePcm(tone, { modelDir: fake })).rejects.toThrow();
    await expect(transcribePcm(tone, { modelDir: fake })).rejects.toThrow();
    expect(await preloadLocalModel(fake)).toBe(false);
    expect(load).toHaveBeenCalledTimes(3);
    const file = await synth('flite', 'slt', SENTENCES[2] as string, 'after-failure.wav');
    expect(wordErrorRate(SENTENCES[2] as string, await transcribeLocalFile(file, { modelDir }))).toBeLessThanOrEqual(MAX_WER);
  });
});
