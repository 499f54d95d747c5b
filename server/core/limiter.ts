// A tiny concurrency limiter: work that holds much memory or CPU (an Office conversion, a chip's agent view, a
// preview's OCR or transcript) queues instead of multiplying that by the number of callers at once. One for
// every such queue in the server.

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
