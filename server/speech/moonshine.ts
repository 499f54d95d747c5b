// Moonshine tiny (encoder + merged decoder, quantized ONNX) on onnxruntime-node, greedy decoding. The
// recipe, and each of its pitfalls, is in docs/spec-notes.md ("On-device speech (Moonshine tiny)").
import path from 'node:path';
import type * as Ort from 'onnxruntime-node';
import { loadRuntime, type OrtModule } from './runtime.js';

export const ENCODER_FILE = 'encoder_model.onnx';
export const DECODER_FILE = 'decoder_model_merged.onnx';

const START_TOKEN = 1;
const END_TOKEN = 2;
const LAYERS = 6;
const HEADS = 8;
const HEAD_DIM = 36;
/** The model stops on its own long before this; the cap stops a repetition loop from running on. */
const MAX_TOKENS_PER_SECOND = 6;
/** Speech that starts at the very first sample makes the model end at once; a little silence avoids it. */
const PAD_BEFORE_SECONDS = 0.5;
const PAD_AFTER_SECONDS = 0.25;
const SAMPLE_RATE = 16000;
/** Two threads measured no faster than one on this model, and one leaves a core for the server. */
const INTRA_OP_THREADS = 1;

const SESSION_OPTIONS: Ort.InferenceSession.SessionOptions = {
  intraOpNumThreads: INTRA_OP_THREADS,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
  executionProviders: ['cpu'],
};

type Feeds = Record<string, Ort.Tensor>;

function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason ?? new Error('Aborted');
}

function argmax(logits: Float32Array, from: number, to: number, skip?: number): number {
  let best = -1;
  let bestValue = -Infinity;
  for (let i = from; i < to; i++) {
    if (i - from === skip) continue;
    const value = logits[i] as number;
    if (value > bestValue) {
      bestValue = value;
      best = i - from;
    }
  }
  return best;
}

type Tokenizer = (typeof import('llama-tokenizer-js'))['default'];
let tokenizer: Promise<Tokenizer> | undefined;

/** llama-tokenizer-js unpacks its vocabulary when imported (about 0.15 s), so it loads with the model rather
 *  than with the server: most starts transcribe nothing. Loaded once; a failed load is tried again. */
function loadTokenizer(): Promise<Tokenizer> {
  tokenizer ??= import('llama-tokenizer-js').then(
    (mod) => mod.default,
    (err: unknown) => {
      tokenizer = undefined;
      throw err;
    },
  );
  return tokenizer;
}

/** Greedy token ids → text. The vocabulary is LLaMA's SentencePiece one, embedded in llama-tokenizer-js. */
export async function detokenize(ids: number[]): Promise<string> {
  return (await loadTokenizer()).decode(ids, false, true).trim();
}

export class MoonshineModel {
  private constructor(
    private readonly ort: OrtModule,
    private readonly encoder: Ort.InferenceSession,
    private readonly decoder: Ort.InferenceSession,
  ) {}

  static async load(modelDir: string): Promise<MoonshineModel> {
    const [ort] = await Promise.all([loadRuntime(), loadTokenizer()]);
    // Both sessions load at once: ONNX Runtime builds them off the main thread, so on two cores a cold start
    // saves the encoder's share of it.
    const [encoder, decoder] = await Promise.allSettled(
      [ENCODER_FILE, DECODER_FILE].map((file) => ort.InferenceSession.create(path.join(modelDir, file), SESSION_OPTIONS)),
    );
    if (encoder?.status === 'fulfilled' && decoder?.status === 'fulfilled') return new MoonshineModel(ort, encoder.value, decoder.value);
    for (const session of [encoder, decoder]) if (session?.status === 'fulfilled') await session.value.release();
    throw encoder?.status === 'rejected' ? encoder.reason : (decoder as PromiseRejectedResult).reason;
  }

  async release(): Promise<void> {
    await Promise.all([this.encoder.release(), this.decoder.release()]);
  }

  /** Token ids for one piece of 16 kHz mono audio of at most about 30 s. */
  async generate(pcm: Float32Array, signal?: AbortSignal): Promise<number[]> {
    const before = Math.round(PAD_BEFORE_SECONDS * SAMPLE_RATE);
    const after = Math.round(PAD_AFTER_SECONDS * SAMPLE_RATE);
    const input = new Float32Array(before + pcm.length + after);
    input.set(pcm, before);

    const { last_hidden_state: hidden } = await this.encoder.run({
      input_values: new this.ort.Tensor('float32', input, [1, input.length]),
    });
    if (!hidden) throw new Error('Moonshine encoder returned no hidden state');
    const maxTokens = Math.max(1, Math.ceil((pcm.length / SAMPLE_RATE) * MAX_TOKENS_PER_SECOND));

    const past: Feeds = {};
    const empty = new this.ort.Tensor('float32', new Float32Array(0), [0, HEADS, 1, HEAD_DIM]);
    for (let layer = 0; layer < LAYERS; layer++) {
      for (const part of ['decoder', 'encoder']) {
        for (const kind of ['key', 'value']) past[`past_key_values.${layer}.${part}.${kind}`] = empty;
      }
    }

    const tokens: number[] = [];
    let token = START_TOKEN;
    for (let step = 0; step < maxTokens; step++) {
      throwIfAborted(signal);
      const out = await this.decoder.run({
        input_ids: new this.ort.Tensor('int64', BigInt64Array.from([BigInt(token)]), [1, 1]),
        encoder_hidden_states: hidden,
        use_cache_branch: new this.ort.Tensor('bool', [step > 0], [1]),
        ...past,
      });
      const logits = out.logits;
      if (!logits) throw new Error('Moonshine decoder returned no logits');
      const vocab = logits.dims[2] as number;
      const data = logits.data as Float32Array;
      const rowStart = data.length - vocab;
      // At step 0 end-of-text means "nothing heard" far more often than it is true: take the best word instead.
      token = argmax(data, rowStart, data.length, step === 0 ? END_TOKEN : undefined);
      if (token === END_TOKEN) break;
      tokens.push(token);
      for (let layer = 0; layer < LAYERS; layer++) {
        for (const kind of ['key', 'value']) {
          past[`past_key_values.${layer}.decoder.${kind}`] = out[`present.${layer}.decoder.${kind}`] as Ort.Tensor;
          // The cross-attention cache only holds real values at step 0; later steps return it empty.
          if (step === 0) past[`past_key_values.${layer}.encoder.${kind}`] = out[`present.${layer}.encoder.${kind}`] as Ort.Tensor;
        }
      }
    }
    return tokens;
  }

  /** Transcript of one piece of 16 kHz mono audio of at most about 30 s. */
  async transcribe(pcm: Float32Array, signal?: AbortSignal): Promise<string> {
    return detokenize(await this.generate(pcm, signal));
  }
}
