// The idle collection: once per idle spell, IDLE_COLLECT_MS after the last request started, never while requests
// keep coming; and the collection it gets in this very process gives a dropped heap back.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fullCollection, IDLE_COLLECT_MS, IdleCollector, idleRelease } from './idle-collect.js';

afterEach(() => vi.useRealTimers());

describe('IdleCollector', () => {
  it('collects once per idle spell, IDLE_COLLECT_MS after the last request, and not while requests come', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const collect = vi.fn();
    const idle = new IdleCollector(collect);
    // Nothing before the first request: the start's heap is what it is.
    vi.advanceTimersByTime(IDLE_COLLECT_MS * 3);
    expect(collect).not.toHaveBeenCalled();
    // Requests every half interval for five intervals: none.
    for (let i = 0; i < 10; i++) {
      idle.touch();
      vi.advanceTimersByTime(IDLE_COLLECT_MS / 2);
    }
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(IDLE_COLLECT_MS / 2);
    expect(collect).toHaveBeenCalledTimes(1);
    // Still idle: not again.
    vi.advanceTimersByTime(IDLE_COLLECT_MS * 5);
    expect(collect).toHaveBeenCalledTimes(1);
    // The next spell: once more.
    idle.touch();
    vi.advanceTimersByTime(IDLE_COLLECT_MS - 1);
    expect(collect).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(2);
    idle.touch();
    idle.stop();
    vi.advanceTimersByTime(IDLE_COLLECT_MS * 2);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it("this process's full collection gives back a heap of garbage", () => {
    const gc = fullCollection();
    expect(gc).toBeTypeOf('function');
    gc!();
    const before = process.memoryUsage().heapUsed;
    let garbage: unknown[] | null = Array.from({ length: 200_000 }, (_, i) => ({ text: `row ${i} `.repeat(20) }));
    expect(process.memoryUsage().heapUsed - before).toBeGreaterThan(30 * 2 ** 20);
    garbage = null;
    void garbage;
    gc!();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(8 * 2 ** 20);
  });
});

describe('idleRelease', () => {
  it('runs the full collection, then the trim, each where there is one; nothing where neither', () => {
    const order: string[] = [];
    const collect = () => void order.push('collect');
    const trim = () => (order.push('trim'), true);
    idleRelease(collect, trim)!();
    expect(order).toEqual(['collect', 'trim']);
    order.length = 0;
    idleRelease(undefined, trim)!();
    idleRelease(collect, undefined)!();
    expect(order).toEqual(['trim', 'collect']);
    expect(idleRelease(undefined, undefined)).toBeUndefined();
  });
});
