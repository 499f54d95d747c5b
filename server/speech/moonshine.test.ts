import llamaTokenizer from 'llama-tokenizer-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModelDir, isLocalModelPresent } from './local.js';
import { detokenize, MoonshineModel } from './moonshine.js';

describe('detokenize', () => {
  it('turns LLaMA SentencePiece ids back into text without a leading space', async () => {
    const ids = llamaTokenizer.encode('Open the settings window, please.', false);
    expect(await detokenize(ids)).toBe('Open the settings window, please.');
  });
  it('is empty for no tokens', async () => {
    expect(await detokenize([])).toBe('');
  });
});

const modelDir = defaultModelDir();
const present = isLocalModelPresent(modelDir);
if (!present) console.log(`moonshine.test: skipping model tests: no model in ${modelDir} (run node scripts/fetch-model.mjs)`);

describe.skipIf(!present)('MoonshineModel', { timeout: 120_000 }, () => {
  let model: MoonshineModel;
  beforeAll(async () => {
    model = await MoonshineModel.load(modelDir);
  });
  afterAll(async () => {
    await model?.release();
  });

  it('never ends at the first step, and stops at 6 tokens per second of audio', async () => {
    // One second of faint noise: the model would answer end-of-text at once; we insist on one token.
    let seed = 7;
    const noise = Float32Array.from({ length: 16000 }, () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.02);
    const tokens = await model.generate(noise);
    expect(tokens.length).toBeGreaterThanOrEqual(1);
    expect(tokens.length).toBeLessThanOrEqual(6);
    expect(tokens).not.toContain(2);
  });

  it('is deterministic', async () => {
    const tone = Float32Array.from({ length: 8000 }, (_, i) => 0.3 * Math.sin(i / 5));
    expect(await model.generate(tone)).toEqual(await model.generate(tone));
  });

  it('stops between decoder steps when its signal aborts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(model.generate(new Float32Array(16000), controller.signal)).rejects.toThrow('gone');
  });

  it('fails to load from a folder without the model', async () => {
    await expect(MoonshineModel.load('/nonexistent-satchel-model')).rejects.toThrow();
  });
});
