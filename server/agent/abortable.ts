// The one abort mechanism of a turn: every wait is raced against the turn's AbortSignal, so a cancel, a stop or a
// deadline (each of them an abort of that signal, or of one combined with it) ends the wait at once with the
// signal's reason, whether or not what is awaited notices. Whoever started the work releases it in `finally`.

/** `promise`, or the signal's reason as soon as it aborts (at once when it already has). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // Observed, so a rejection of the abandoned promise is no unhandled rejection.
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const fail = (): void => reject(signal.reason);
    signal.addEventListener('abort', fail, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', fail);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', fail);
        reject(err);
      },
    );
  });
}

/**
 * Iterates `source` until it ends or `signal` aborts, each next() raced against the signal. One listener for the
 * whole iteration rejects the next() in flight: a flood of 200,000 events would otherwise add and remove as many.
 */
export async function* abortable<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  signal.throwIfAborted();
  const iterator = source[Symbol.asyncIterator]();
  let rejectWaiting: ((reason: unknown) => void) | undefined;
  const onAbort = (): void => rejectWaiting?.(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const next = await new Promise<IteratorResult<T>>((resolve, reject) => {
        rejectWaiting = reject;
        iterator.next().then(resolve, reject);
      });
      rejectWaiting = undefined;
      if (next.done) return;
      yield next.value;
      signal.throwIfAborted();
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    // Let the source close its socket; its own answer to that is not waited for.
    void Promise.resolve()
      .then(() => iterator.return?.())
      .catch(() => {});
  }
}
