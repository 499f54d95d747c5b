// The server's heap growing factor (core/heap-growth.ts): set once when the server starts, through V8's flag,
// never over a person's own choice of it.
import { execFileSync } from 'node:child_process';
import v8 from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.restoreAllMocks();
  vi.resetModules();
});

describe('the server heap growing factor', () => {
  it('is set once, to SERVER_HEAP_GROWING_PERCENT, when the server starts', async () => {
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
    const { startServer } = await import('../index.js');
    const { SERVER_HEAP_GROWING_PERCENT } = await import('./heap-growth.js');
    // The start fails at once (no state folder can be made under a file), after the factor is set.
    await expect(startServer({ host: '127.0.0.1', port: 0, stateDir: '/dev/null/satchel', token: 't'.repeat(32) } as never)).rejects.toThrow();
    expect(set.mock.calls).toEqual([[`--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`]]);
    await expect(startServer({ host: '127.0.0.1', port: 0, stateDir: '/dev/null/satchel', token: 't'.repeat(32) } as never)).rejects.toThrow();
    expect(set).toHaveBeenCalledTimes(1);
  });

  it("leaves a person's own --heap-growing-percent alone (node's flags, NODE_OPTIONS, Electron's --js-flags)", async () => {
    const { heapGrowthChosen } = await import('./heap-growth.js');
    expect(heapGrowthChosen(['--heap-growing-percent=50'], undefined)).toBe(true);
    expect(heapGrowthChosen([], '--max-old-space-size=4096 --heap_growing_percent=20')).toBe(true);
    expect(heapGrowthChosen(['/opt/Satchel/satchel', '--js-flags=--heap-growing-percent=10'], undefined)).toBe(true);
    expect(heapGrowthChosen(['--inspect', '/opt/Satchel/satchel'], '--max-old-space-size=4096')).toBe(false);
  });

  it('is STREAMING_HEAP_GROWING_PERCENT while upload bodies stream, the server\'s own again STREAMING_LINGER_MS after the last has ended', async () => {
    vi.useFakeTimers();
    try {
      const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
      const { setServerHeapGrowth, bodyStreaming, SERVER_HEAP_GROWING_PERCENT, STREAMING_HEAP_GROWING_PERCENT, STREAMING_LINGER_MS } = await import('./heap-growth.js');
      const server = `--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`;
      const streaming = `--heap-growing-percent=${STREAMING_HEAP_GROWING_PERCENT}`;
      expect(setServerHeapGrowth()).toBe(true);
      const first = bodyStreaming();
      const second = bodyStreaming();
      expect(set.mock.calls.map((c) => c[0])).toEqual([server, streaming]);
      first();
      first();
      // One body still streams: the factor stays.
      expect(set.mock.calls.map((c) => c[0])).toEqual([server, streaming]);
      second();
      vi.advanceTimersByTime(STREAMING_LINGER_MS - 1);
      expect(set.mock.calls.map((c) => c[0])).toEqual([server, streaming]);
      vi.advanceTimersByTime(1);
      expect(set.mock.calls.map((c) => c[0])).toEqual([server, streaming, server]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stays raised across a pause between two waves of uploads shorter than STREAMING_LINGER_MS (no full collection set from 1.3 between them)', async () => {
    vi.useFakeTimers();
    try {
      const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
      const { setServerHeapGrowth, bodyStreaming, heapGrowingPercentSet, SERVER_HEAP_GROWING_PERCENT, STREAMING_HEAP_GROWING_PERCENT, STREAMING_LINGER_MS } = await import('./heap-growth.js');
      setServerHeapGrowth();
      bodyStreaming()();
      vi.advanceTimersByTime(STREAMING_LINGER_MS / 2);
      expect(heapGrowingPercentSet()).toBe(STREAMING_HEAP_GROWING_PERCENT);
      const wave = bodyStreaming();
      vi.advanceTimersByTime(STREAMING_LINGER_MS * 2);
      // Still streaming: the first wave's timer did not set it back under the second wave.
      expect(heapGrowingPercentSet()).toBe(STREAMING_HEAP_GROWING_PERCENT);
      wave();
      vi.advanceTimersByTime(STREAMING_LINGER_MS);
      expect(heapGrowingPercentSet()).toBe(SERVER_HEAP_GROWING_PERCENT);
      // Raised once, set back once: never lowered between the waves.
      expect(set.mock.calls.map((c) => c[0])).toEqual([SERVER_HEAP_GROWING_PERCENT, STREAMING_HEAP_GROWING_PERCENT, SERVER_HEAP_GROWING_PERCENT].map((p) => `--heap-growing-percent=${p}`));
    } finally {
      vi.useRealTimers();
    }
  });

  it("never sets it over a person's own choice, streaming or not", async () => {
    const set = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => {});
    const saved = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = '--heap-growing-percent=50';
    try {
      const { setServerHeapGrowth, bodyStreaming } = await import('./heap-growth.js');
      expect(setServerHeapGrowth()).toBe(false);
      bodyStreaming()();
      expect(set).not.toHaveBeenCalled();
    } finally {
      if (saved === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = saved;
    }
  });

  it('is a growing factor V8 knows (an unknown flag would be ignored with a warning, and nothing would change)', () => {
    const flags = new Set<string>();
    // V8 lists the flags it takes; node prints them with --v8-options.
    const listed = execV8Options();
    for (const m of listed.matchAll(/^\s+--([a-z0-9-]+)/gm)) flags.add(m[1]!);
    expect(flags.has('heap-growing-percent')).toBe(true);
    expect(flags.has('max-old-space-size')).toBe(true);
  });
});

function execV8Options(): string {
  return execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8', maxBuffer: 16 << 20 });
}
