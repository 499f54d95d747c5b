import { describe, expect, it } from 'vitest';
import { createLimiter } from './limiter.js';

function deferred() {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('createLimiter', () => {
  it('runs one task at a time in arrival order, and a failure frees the slot', async () => {
    const limit = createLimiter(1);
    const started: string[] = [];
    const a = deferred();
    const b = deferred();
    const pa = limit(async () => {
      started.push('a');
      await a.promise;
      return 'A';
    });
    const pb = limit(async () => {
      started.push('b');
      await b.promise;
    });
    const pc = limit(async () => {
      started.push('c');
      return 'C';
    });
    await tick();
    expect(started).toEqual(['a']);
    a.resolve();
    expect(await pa).toBe('A');
    await tick();
    expect(started).toEqual(['a', 'b']);
    b.reject(new Error('boom'));
    await expect(pb).rejects.toThrow('boom');
    expect(await pc).toBe('C');
    expect(started).toEqual(['a', 'b', 'c']);
  });

  it('allows up to max tasks at once', async () => {
    const limit = createLimiter(2);
    let active = 0;
    let peak = 0;
    const gate = deferred();
    const tasks = Array.from({ length: 5 }, () =>
      limit(async () => {
        active += 1;
        peak = Math.max(peak, active);
        await gate.promise;
        active -= 1;
      }),
    );
    await tick();
    expect(active).toBe(2);
    gate.resolve();
    await Promise.all(tasks);
    expect(peak).toBe(2);
  });
});
