// The watchdog against a resident set the test sets: who is stopped, at which size, and that it goes quiet
// (no timer) when nothing runs.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRssWatchdog } from './rss-watchdog.js';

const MIB = 1024 * 1024;
const BUDGET = 100 * MIB;
const INTERVAL_MS = 10;

let rss = 0;
const watchdog = () => createRssWatchdog({ budgetBytes: BUDGET, intervalMs: INTERVAL_MS, rss: () => rss });

beforeEach(() => {
  vi.useFakeTimers();
  rss = 50 * MIB;
});
afterEach(() => vi.useRealTimers());

describe('RSS watchdog', () => {
  it('stops a job once the process has grown past its budget since the job started, and only once', () => {
    const dog = watchdog();
    const stopped = vi.fn();
    dog.watch(stopped);
    rss += BUDGET;
    vi.advanceTimersByTime(INTERVAL_MS * 3);
    expect(stopped).not.toHaveBeenCalled();
    rss += 1;
    vi.advanceTimersByTime(INTERVAL_MS);
    expect(stopped).toHaveBeenCalledTimes(1);
    rss += BUDGET;
    vi.advanceTimersByTime(INTERVAL_MS * 3);
    expect(stopped).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('gives each running job its own budget, counted from the oldest start, and stops all of them past it', () => {
    const dog = watchdog();
    const first = vi.fn();
    const second = vi.fn();
    dog.watch(first);
    rss += 60 * MIB;
    dog.watch(second);
    // 160 MiB above the first start: over one budget, within two.
    rss += 100 * MIB;
    vi.advanceTimersByTime(INTERVAL_MS * 3);
    expect(first).not.toHaveBeenCalled();
    rss += 41 * MIB;
    vi.advanceTimersByTime(INTERVAL_MS);
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).toHaveBeenCalledTimes(1);
  });

  it('forgets a job whose watch has ended, and measures a new one from its own start', () => {
    const dog = watchdog();
    const ended = vi.fn();
    const unwatch = dog.watch(ended);
    rss += 90 * MIB;
    unwatch();
    unwatch();
    expect(vi.getTimerCount()).toBe(0);
    // Memory the ended job left behind (a warm worker's heap) is the next job's baseline.
    const next = vi.fn();
    dog.watch(next);
    rss += 90 * MIB;
    vi.advanceTimersByTime(INTERVAL_MS * 3);
    expect(next).not.toHaveBeenCalled();
    expect(ended).not.toHaveBeenCalled();
    rss += 20 * MIB;
    vi.advanceTimersByTime(INTERVAL_MS);
    expect(next).toHaveBeenCalledTimes(1);
    expect(ended).not.toHaveBeenCalled();
  });
});
