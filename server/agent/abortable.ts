// Iterate an async iterable until a signal aborts, without trusting the iterable to notice: a cancel must end
// the turn at once even when the upstream is stuck waiting for a byte that never comes.
export async function* abortable<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  const aborted = new Promise<never>((_, reject) => {
    const fail = (): void => reject(signal.reason);
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  // Observed here so an abort after the last item is no unhandled rejection.
  aborted.catch(() => {});
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Let the source close its socket; its own answer to that is not waited for.
    void Promise.resolve()
      .then(() => iterator.return?.())
      .catch(() => {});
  }
}
