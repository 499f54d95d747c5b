// A memory guard for work done in worker threads. A worker's resourceLimits bound its JavaScript heap only: the
// ArrayBuffers it allocates live outside that heap and are not counted, so a document that makes its reader
// inflate gigabytes into typed arrays (pdf.js's DecodeStream doubles its buffer with no ceiling) grows the
// process without limit until a deadline. Threads share one address space, so the only measure that sees those
// buffers is the process's resident set: it is sampled while any watched job runs, and when it rises past what
// the running jobs are allowed, every running job is told to stop (the caller terminates its worker, which frees
// its buffers). The sample comes from the main thread, whose event loop a busy worker does not hold up.

export interface RssWatchdogOptions {
  /** The memory one job may add to the process: the limit is the lowest RSS any running job started at plus
   *  this much per running job. */
  budgetBytes: number;
  /** How often the resident set is read while a job runs; what a job can allocate between two samples is the
   *  overshoot past the limit. */
  intervalMs: number;
  /** The process's resident set size in bytes (injected by tests). */
  rss?: () => number;
}

export interface RssWatchdog {
  /** Watch one job from now; `onExceeded` is called at most once, and the job is then no longer watched.
   *  Returns the function that ends the watch (call it when the job ends; calling it again does nothing). */
  watch(onExceeded: () => void): () => void;
}

interface Job {
  startRss: number;
  onExceeded: () => void;
}

export function createRssWatchdog({ budgetBytes, intervalMs, rss = () => process.memoryUsage.rss() }: RssWatchdogOptions): RssWatchdog {
  const jobs = new Set<Job>();
  let timer: NodeJS.Timeout | undefined;

  const stopIfIdle = () => {
    if (jobs.size > 0 || timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
  };

  const sample = () => {
    if (jobs.size === 0) return;
    // Measured from the oldest running job's start (a job runs for a bounded time, so this floor moves on);
    // each running job adds its own budget. Which of two jobs allocated the memory cannot be told apart from
    // here, so both stop: the limit holds either way, and a second job at once is the rare case.
    let floor = Infinity;
    for (const job of jobs) floor = Math.min(floor, job.startRss);
    if (rss() <= floor + jobs.size * budgetBytes) return;
    const over = [...jobs];
    jobs.clear();
    stopIfIdle();
    for (const job of over) job.onExceeded();
  };

  return {
    watch(onExceeded) {
      const job: Job = { startRss: rss(), onExceeded };
      jobs.add(job);
      // Unreferenced: the job's own worker keeps the process alive while it runs, not this timer.
      timer ??= setInterval(sample, intervalMs).unref();
      return () => {
        jobs.delete(job);
        stopIfIdle();
      };
    },
  };
}
