// The batches a streaming reply's shown text is written in (streamed-batches.ts), against a recording store: only
// reply text and reasoning, in the order shown, at most one write at a time, a batch at once past the size bound
// and otherwise after the time bound, nothing after close, and the kept text removed by discard.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StreamedText } from '../store/streamed-text.js';
import { StreamedBatches } from './streamed-batches.js';

class RecordingStore {
  batches: StreamedText[] = [];
  removed: { sessionId: string; streamId: string }[] = [];
  inFlight = 0;
  maxInFlight = 0;
  release: (() => void)[] = [];
  hold = false;

  async appendStreamedText(_id: string, _stream: string, batch: StreamedText): Promise<void> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    if (this.hold) await new Promise<void>((r) => this.release.push(r));
    this.batches.push({ ...batch });
    this.inFlight--;
  }

  async removeStreamedText(stream?: { sessionId: string; streamId: string }): Promise<void> {
    if (stream) this.removed.push(stream);
  }
}

const LIMITS = { ms: 100, chars: 10 };
let store: RecordingStore;
let batches: StreamedBatches;

beforeEach(() => {
  vi.useFakeTimers();
  store = new RecordingStore();
  batches = new StreamedBatches(store, 's1', 'stream1', LIMITS);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('StreamedBatches', () => {
  it('writes the shown text and reasoning once the time bound passes, and nothing else', async () => {
    batches.shown('reasoning', { text: 'hm' });
    batches.shown('token', { text: 'Hi' });
    batches.shown('tool', { name: 'x' });
    batches.shown('token', { text: '' });
    await vi.advanceTimersByTimeAsync(LIMITS.ms - 1);
    expect(store.batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.batches).toEqual([{ content: 'Hi', reasoning: 'hm' }]);
  });

  it('writes at once past the size bound; one write at a time, the rest joining the next batch in order', async () => {
    store.hold = true;
    batches.shown('token', { text: '0123456789' });
    await vi.advanceTimersByTimeAsync(0);
    expect(store.inFlight).toBe(1);
    batches.shown('token', { text: 'abcdefghij' });
    batches.shown('token', { text: 'k' });
    await vi.advanceTimersByTimeAsync(LIMITS.ms * 3);
    expect(store.inFlight).toBe(1);
    store.hold = false;
    store.release.shift()!();
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(LIMITS.ms);
    expect(store.maxInFlight).toBe(1);
    expect(store.batches.map((b) => b.content)).toEqual(['0123456789', 'abcdefghijk']);
  });

  it('close waits for a write under way and writes nothing more; discard removes the stream\'s text', async () => {
    store.hold = true;
    batches.shown('token', { text: '0123456789' });
    await vi.advanceTimersByTimeAsync(0);
    batches.shown('token', { text: 'late' });
    const closing = batches.close();
    store.hold = false;
    store.release.shift()!();
    await closing;
    batches.shown('token', { text: 'after' });
    await vi.advanceTimersByTimeAsync(LIMITS.ms * 2);
    expect(store.batches.map((b) => b.content)).toEqual(['0123456789']);
    await batches.discard();
    expect(store.removed).toEqual([{ sessionId: 's1', streamId: 'stream1' }]);
  });
});
