// llama-tokenizer-js unpacks its vocabulary on import: it is loaded with the speech model, not the server.
import { describe, expect, it, vi } from 'vitest';

const loads = vi.hoisted(() => ({ tokenizer: 0 }));
vi.mock('llama-tokenizer-js', async (original) => {
  loads.tokenizer++;
  return original();
});

const { startServer } = await import('../index.js');
const { detokenize } = await import('./moonshine.js');

describe('the tokenizer, loaded on first use', () => {
  it('is not loaded with the server, and the first transcripts, decoded at once, share one load', async () => {
    expect(typeof startServer).toBe('function');
    expect(loads.tokenizer).toBe(0);
    // "Hello" and "world" in LLaMA's vocabulary.
    expect(await Promise.all([detokenize([15043]), detokenize([3186])])).toEqual(['Hello', 'world']);
    expect(loads.tokenizer).toBe(1);
  });
});
