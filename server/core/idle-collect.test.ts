// The idle release: once per idle spell, IDLE_COLLECT_MS after the last request started, never while requests keep
// coming: IDLE_COLLECTIONS full collections IDLE_COLLECTION_GAP_MS apart, then the trim; a request in between ends
// them. And the collection it gets in this very process gives a dropped heap back.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fullCollection, IDLE_COLLECT_MS, IDLE_COLLECTION_GAP_MS, IDLE_COLLECTIONS, IdleCollector, idleRelease } from './idle-collect.js';

afterEach(() => vi.useRealTimers());

/** A release that records what ran, in order. */
function recorder() {
  const ran: string[] = [];
  return { ran, release: { collect: () => void ran.push('collect'), trim: () => (ran.push('trim'), true) } };
}
const spell = [...Array<string>(IDLE_COLLECTIONS).fill('collect'), 'trim'];
const spellMs = IDLE_COLLECT_MS + (IDLE_COLLECTIONS - 1) * IDLE_COLLECTION_GAP_MS;

describe('IdleCollector', () => {
  it('releases once per idle spell, IDLE_COLLECT_MS after the last request, and not while requests come', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { ran, release } = recorder();
    const idle = new IdleCollector(release);
    // Nothing before the first request: the start's heap is what it is.
    vi.advanceTimersByTime(IDLE_COLLECT_MS * 3);
    expect(ran).toEqual([]);
    // Requests every half interval for five intervals: none.
    for (let i = 0; i < 10; i++) {
      idle.touch();
      vi.advanceTimersByTime(IDLE_COLLECT_MS / 2);
    }
    expect(ran).toEqual([]);
    vi.advanceTimersByTime(IDLE_COLLECT_MS / 2);
    // The first collection at once, each next one a gap later, the trim with the last.
    expect(ran).toEqual(['collect']);
    vi.advanceTimersByTime(IDLE_COLLECTION_GAP_MS - 1);
    expect(ran).toEqual(['collect']);
    vi.advanceTimersByTime(1);
    expect(ran).toEqual(['collect', 'collect']);
    vi.advanceTimersByTime((IDLE_COLLECTIONS - 2) * IDLE_COLLECTION_GAP_MS);
    expect(ran).toEqual(spell);
    // Still idle: not again.
    vi.advanceTimersByTime(IDLE_COLLECT_MS * 5);
    expect(ran).toEqual(spell);
    // The next spell: once more.
    idle.touch();
    vi.advanceTimersByTime(spellMs - 1);
    expect(ran).toEqual([...spell, ...spell.slice(0, IDLE_COLLECTIONS - 1)]);
    vi.advanceTimersByTime(1);
    expect(ran).toEqual([...spell, ...spell]);
    idle.touch();
    idle.stop();
    vi.advanceTimersByTime(spellMs * 2);
    expect(ran).toEqual([...spell, ...spell]);
  });

  it('a request between two collections ends the spell: no more collections, no trim, and the next spell counts from it', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { ran, release } = recorder();
    const idle = new IdleCollector(release);
    idle.touch();
    vi.advanceTimersByTime(IDLE_COLLECT_MS + IDLE_COLLECTION_GAP_MS);
    expect(ran).toEqual(['collect', 'collect']);
    idle.touch();
    vi.advanceTimersByTime(IDLE_COLLECT_MS - 1);
    expect(ran).toEqual(['collect', 'collect']);
    vi.advanceTimersByTime(1 + (IDLE_COLLECTIONS - 1) * IDLE_COLLECTION_GAP_MS);
    expect(ran).toEqual(['collect', 'collect', ...spell]);
    idle.stop();
  });

  it('lets the caches go first, once per spell, before the collections', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { ran, release } = recorder();
    const idle = new IdleCollector({ letGo: () => void ran.push('letGo'), ...release });
    idle.touch();
    vi.advanceTimersByTime(spellMs);
    expect(ran).toEqual(['letGo', ...spell]);
    // Only the caches (no collection, no trim in this process): still once per spell.
    const only: string[] = [];
    const caches = new IdleCollector({ letGo: () => void only.push('letGo') });
    caches.touch();
    vi.advanceTimersByTime(spellMs * 2);
    caches.touch();
    vi.advanceTimersByTime(spellMs);
    expect(only).toEqual(['letGo', 'letGo']);
    idle.stop();
    caches.stop();
  });

  it('with only a trim, trims once per spell; with neither, arms nothing', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const ran: string[] = [];
    const idle = new IdleCollector({ trim: () => (ran.push('trim'), true) });
    idle.touch();
    vi.advanceTimersByTime(spellMs * 2);
    expect(ran).toEqual(['trim']);
    const none = new IdleCollector(null);
    none.touch();
    expect(vi.getTimerCount()).toBe(0);
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
  it('holds what the process has, and is null where it has none of them', () => {
    const collect = () => {};
    const trim = () => true;
    expect(idleRelease(collect, trim)).toEqual({ collect, trim });
    expect(idleRelease(undefined, trim)).toEqual({ collect: undefined, trim });
    expect(idleRelease(undefined, undefined)).toBeNull();
    const letGo = () => {};
    expect(idleRelease(undefined, undefined, letGo)).toEqual({ letGo, collect: undefined, trim: undefined });
  });
});
