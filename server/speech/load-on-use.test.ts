// llama-tokenizer-js (which unpacks its vocabulary on import) and opus-decoder (its WASM inlined in
// JavaScript) load with the first dictation or the speech preload, not with the server.
import { describe, expect, it, vi } from 'vitest';

const loads = vi.hoisted(() => ({ tokenizer: 0, opus: 0 }));
vi.mock('llama-tokenizer-js', async (original) => {
  loads.tokenizer++;
  return original();
});
vi.mock('opus-decoder', async (original) => {
  loads.opus++;
  return original();
});

const { startServer } = await import('../index.js');
const { detokenize } = await import('./moonshine.js');
const { warmUpOpus } = await import('./opus.js');

describe('speech libraries, loaded on first use', () => {
  it('are not loaded with the server', () => {
    expect(typeof startServer).toBe('function');
    expect(loads).toEqual({ tokenizer: 0, opus: 0 });
  });

  it('the first transcripts, decoded at once, share one load of the tokenizer', async () => {
    // "Hello" and "world" in LLaMA's vocabulary.
    expect(await Promise.all([detokenize([15043]), detokenize([3186])])).toEqual(['Hello', 'world']);
    expect(loads.tokenizer).toBe(1);
  });

  it('the Opus decoder loads once for concurrent first uses', async () => {
    await Promise.all([warmUpOpus(), warmUpOpus()]);
    expect(loads.opus).toBe(1);
  });
});
