// A tiny concurrency limiter. Converting one Office file can hold a few hundred MiB at the limits (the
// inflated parts plus their parsed trees), so conversions queue instead of multiplying that by the number of
// simultaneous uploads.

export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

/** Run at most `max` tasks at once; the rest wait in arrival order. A failing task frees its slot too. */
export function createLimiter(max: number): Limiter {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    running -= 1;
    waiting.shift()?.();
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await task();
    } finally {
      release();
    }
  };
}
